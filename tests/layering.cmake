# The layering of ARCHITECTURE.md, enforced: an upward or sideways include, a
# module's internal header used from outside, or a foreign header (sqlite3.h,
# lua.h, curses, CUDA) outside its module fails the suite.
add_test(NAME layering COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_layering_test.sh)
set_tests_properties(layering PROPERTIES LABELS "unit"
  ENVIRONMENT "WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp;WB_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
# The layout of .clang-format and the 100-column rule, checked on every
# tracked C, header and CUDA file.
add_test(NAME format COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_format_test.sh)
set_tests_properties(format PROPERTIES LABELS "unit"
  ENVIRONMENT "WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp;WB_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
