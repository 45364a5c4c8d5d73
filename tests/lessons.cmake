wb_add_unit_test(test_lessons SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lessons.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
