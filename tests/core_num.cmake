# core_num_parse / core_num_format, run twice: in the C locale, and under
# de_DE.UTF-8 (a decimal-comma locale; exits 77, skipped, only where that
# locale cannot be set — scripts/setup.sh generates it).
wb_add_unit_test(test_core_num SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_core_num.c LIBS wb_core)
add_test(NAME test_core_num_de COMMAND test_core_num de)
set_tests_properties(test_core_num_de PROPERTIES LABELS "unit;locale" TIMEOUT 300
  SKIP_RETURN_CODE 77)
