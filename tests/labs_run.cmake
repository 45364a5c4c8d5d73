# The amdahl and memory labs, run through lab_run() at tiny sizes.
wb_add_unit_test(test_labs_run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_labs_run.c
                 LIBS wb_labs wb_db wb_core LABELS labs)
