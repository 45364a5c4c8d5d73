wb_add_unit_test(test_core SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_core.c LIBS wb_core)
# The same tests on the portable SHA-256 (test_core alone takes the SHA
# extensions' path wherever the processor has them).
add_test(NAME test_core_sha_portable COMMAND test_core)
set_tests_properties(test_core_sha_portable PROPERTIES ENVIRONMENT WB_SHA256_PORTABLE=1 LABELS unit)
