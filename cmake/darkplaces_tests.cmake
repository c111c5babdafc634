# The DarkPlaces load tests (tests/darkplaces/): Debian's DarkPlaces dedicated server loads the
# IQM, MD3, MDL and MD2 that `rigport convert --target` writes, and its vertices are compared with
# rigport's reading of the same files; one ctest entry per format, and one that proves broken
# files are caught. Skipped without darkplaces-server (Debian installs it in /usr/games).
if(NOT RIGPORT_TESTS OR RIGPORT_SANITIZE)
  return()  # sanitizer builds: the engine would run no instrumented code, only slow the run
endif()
find_package(Python3 COMPONENTS Interpreter)
find_program(RIGPORT_DARKPLACES darkplaces-server PATHS /usr/games)
if(NOT RIGPORT_DARKPLACES OR NOT Python3_Interpreter_FOUND)
  add_test(NAME DarkPlaces.LoadsOutputs
           COMMAND sh -c "echo 'SKIP: darkplaces-server (or python3) not found (apt-get install darkplaces-server); the DarkPlaces load tests did not run'; exit 77")
  set_tests_properties(DarkPlaces.LoadsOutputs PROPERTIES SKIP_RETURN_CODE 77)
  return()
endif()
foreach(case iqm md3 mdl md2 rejects)
  add_test(NAME DarkPlaces.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/darkplaces/test_darkplaces.py
                   --case ${case} --rigport $<TARGET_FILE:rigport_cli> --darkplaces ${RIGPORT_DARKPLACES}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/darkplaces_tests/${case})
  # A load takes well under a second; the script also bounds each DarkPlaces run (30 s).
  set_tests_properties(DarkPlaces.${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS darkplaces)
endforeach()
