# The quantize lab: its arithmetic (quantizers, SQNR, clip search, the MLP)
# and the lab through lab_run() at small sizes.
wb_add_unit_test(test_lab_quant SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_quant.c
                 LIBS wb_labs wb_kernels wb_db wb_core LABELS labs)
