# Every reader and writer of numbers called under setlocale(LC_ALL,
# "de_DE.UTF-8"), as a front end may leave the process (exits 77, skipped,
# only where that locale cannot be set — scripts/setup.sh generates it).
wb_add_unit_test(test_comma_locale SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_comma_locale.c
                 LIBS wb_tui wb_labs wb_db wb_core Threads::Threads m LABELS locale)
set_tests_properties(test_comma_locale PROPERTIES SKIP_RETURN_CODE 77)
