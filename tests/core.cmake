wb_add_unit_test(test_core SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_core.c LIBS wb_core)
