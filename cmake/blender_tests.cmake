# The Blender add-on tests (tests/blender/): one ctest entry per case, each running Debian's
# headless blender with the add-on installed into the build tree; skipped without blender.
if(NOT RIGPORT_TESTS OR RIGPORT_SANITIZE)
  return()  # sanitizer builds: blender would load no instrumented code, only slow the run
endif()
find_program(RIGPORT_BLENDER blender)
if(NOT RIGPORT_BLENDER)
  add_test(NAME Blender.AddonTests
           COMMAND sh -c "echo 'SKIP: blender not found (apt-get install blender); the add-on tests did not run'; exit 77")
  set_tests_properties(Blender.AddonTests PROPERTIES SKIP_RETURN_CODE 77)
  return()
endif()
set(RIGPORT_BLENDER_CASES sample sample_formats options corpus_iqm corpus_iqe corpus_cal3d
    corpus_joe corpus_md5 corpus_smd corpus_obj corpus_fbx skeleton_only retarget)
foreach(case ${RIGPORT_BLENDER_CASES})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/blender_tests/${case})
  # Blender's own temporary files, user scripts and user config stay in the build tree.
  file(MAKE_DIRECTORY ${work}/blender_tmp)
  add_test(NAME Blender.${case}
           COMMAND ${RIGPORT_BLENDER} -b --factory-startup --python-exit-code 1
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/blender/test_addon.py --
                   --case ${case} --work ${work}
                   --corpus ${CMAKE_CURRENT_SOURCE_DIR}/../shared/corpus)
  set_tests_properties(Blender.${case} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS blender
    ENVIRONMENT "RIGPORT_BINARY=$<TARGET_FILE:rigport_cli>;BLENDER_USER_SCRIPTS=${work}/scripts;BLENDER_USER_CONFIG=${work}/config;TMPDIR=${work}/blender_tmp")
endforeach()
