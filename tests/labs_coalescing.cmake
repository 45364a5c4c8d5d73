# The coalescing lab through lab_run() on its CPU analog, at tiny sizes.
wb_add_unit_test(test_labs_coalescing SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_labs_coalescing.c
                 LIBS wb_labs wb_kernels wb_db wb_core LABELS labs
                 SKIPPABLE test_auto_without_gpu) # without a GPU only
