# The kernels module: the warp transaction model and the CPU references
# (pure, run everywhere), and the coalescing kernels on a real GPU (label
# gpu: exits 77, reported as skipped, where there is none).
wb_add_unit_test(test_kern_coalesce_model
                 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_coalesce_model.c
                 LIBS wb_kernels wb_core LABELS kernels)
wb_add_unit_test(test_kern_coalesce_gpu
                 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_coalesce_gpu.c
                 LIBS wb_kernels wb_core LABELS "kernels;gpu")
set_tests_properties(test_kern_coalesce_gpu PROPERTIES SKIP_RETURN_CODE 77)
# The GPU probe's words for each cause, the cause on this machine, and the
# "GPU failed" mark (no GPU needed).
wb_add_unit_test(test_kern_probe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_probe.c
                 LIBS wb_kernels wb_core LABELS kernels)
