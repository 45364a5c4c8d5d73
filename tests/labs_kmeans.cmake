# The k-means lab: its pure parts (the map routine at every vector width,
# the loaders, the fault schedule, the reduce), the lab through lab_run()
# with real worker processes at small sizes, and the CUDA map kernel on a
# real GPU (label gpu: exits 77, reported as skipped, where there is none).
wb_add_unit_test(test_lab_kmeans SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_kmeans.c
                 LIBS wb_labs wb_kernels wb_core LABELS labs)
wb_add_unit_test(test_lab_kmeans_run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_kmeans_run.c
                 LIBS wb_labs wb_kernels wb_db wb_core LABELS labs)
wb_add_unit_test(test_lab_kmeans_gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_kmeans_gpu.c
                 LIBS wb_kernels wb_core LABELS "labs;gpu")
set_tests_properties(test_lab_kmeans_gpu PROPERTIES SKIP_RETURN_CODE 77)
