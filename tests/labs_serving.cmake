# The serving lab: its books, schedule and model (pure), and the lab through
# lab_run() at small sizes with real processes and sockets.
wb_add_unit_test(test_lab_serving SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_serving.c
                 LIBS wb_labs wb_kernels wb_db wb_core Threads::Threads LABELS labs)
