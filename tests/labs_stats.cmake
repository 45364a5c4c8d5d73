# The labs' statistics (labs/core/lab_stats.c): median, quantiles, min, max and
# mean, pure. Fast.
wb_add_unit_test(test_lab_stats SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_stats.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs)
