# The noise verdict of a lab run (labs/core/lab_noise.c): pure arithmetic on CPU
# samples and repeated measurements, plus a real /proc/stat read. Fast.
wb_add_unit_test(test_lab_noise SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_noise.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs)
