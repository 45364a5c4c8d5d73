# Our FP32/INT8 GEMM on every path this CPU runs, against the references
# (and oneDNN's INT8 result, when the library is there). Pure arithmetic.
wb_add_unit_test(test_kern_gemm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_gemm.c
                 LIBS wb_kernels wb_core LABELS kernels)
