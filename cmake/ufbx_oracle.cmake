# The ufbx oracle for the FBX reader (docs/fbx.md, "Checked against ufbx"): tests/oracles/ufbx_probe.c
# built with ufbx's own sources from RIGPORT_UFBX_DIR (../shared/peers/ufbx beside the source tree
# by default, or $RIGPORT_UFBX_DIR), never copied into the project. Only in the normal build: a
# sanitizer build would check ufbx, not rigport. Without it the test skips with a message.
if(DEFINED ENV{RIGPORT_UFBX_DIR})
  set(_ufbx_default "$ENV{RIGPORT_UFBX_DIR}")
else()
  get_filename_component(_ufbx_default "${CMAKE_CURRENT_SOURCE_DIR}/../shared/peers/ufbx" ABSOLUTE)
endif()
set(RIGPORT_UFBX_DIR "${_ufbx_default}" CACHE PATH "ufbx's sources (ufbx.c, ufbx.h) for the FBX oracle test")
# The oracle tests: the reader against the corpus, the writer's files.
set(_ufbx_test ${CMAKE_CURRENT_SOURCE_DIR}/tests/formats/fbx/test_fbx_ufbx.cpp ${CMAKE_CURRENT_SOURCE_DIR}/tests/formats/fbx/test_fbx_write_oracles.cpp)
if(RIGPORT_SANITIZE)
  set(_ufbx_missing "sanitizer build: the ufbx probe is built in the normal build only")
elseif(NOT EXISTS "${RIGPORT_UFBX_DIR}/ufbx.c" OR NOT EXISTS "${RIGPORT_UFBX_DIR}/ufbx.h")
  set(_ufbx_missing "no ufbx.c / ufbx.h in ${RIGPORT_UFBX_DIR} (set RIGPORT_UFBX_DIR)")
else()
  enable_language(C)
  add_executable(ufbx_probe ${CMAKE_CURRENT_SOURCE_DIR}/tests/oracles/ufbx_probe.c ${RIGPORT_UFBX_DIR}/ufbx.c)
  target_include_directories(ufbx_probe PRIVATE ${RIGPORT_UFBX_DIR})
  set_target_properties(ufbx_probe PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
  set_source_files_properties(${RIGPORT_UFBX_DIR}/ufbx.c PROPERTIES COMPILE_OPTIONS "-w")  # not our code
  target_link_libraries(ufbx_probe PRIVATE m)
  add_dependencies(rigport_tests ufbx_probe)
  set(_ufbx_missing "")
endif()
# Only the oracle tests' own files see where the probe is (the other test files keep their flags);
# appended, so they keep the tree's paths (RIGPORT_SOURCE_DIR ...) when they use them.
if(_ufbx_missing)
  message(STATUS "ufbx oracle: not built (${_ufbx_missing}); the ufbx test will skip")
  set_property(SOURCE ${_ufbx_test} APPEND PROPERTY COMPILE_DEFINITIONS "RIGPORT_UFBX_PROBE=\"\"" "RIGPORT_UFBX_MISSING=\"${_ufbx_missing}\"")
else()
  message(STATUS "ufbx oracle: ufbx_probe from ${RIGPORT_UFBX_DIR}")
  set_property(SOURCE ${_ufbx_test} APPEND PROPERTY COMPILE_DEFINITIONS "RIGPORT_UFBX_PROBE=\"$<TARGET_FILE:ufbx_probe>\"" "RIGPORT_UFBX_MISSING=\"\"")
endif()
