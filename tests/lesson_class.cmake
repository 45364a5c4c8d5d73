# The class loop (submissions, re-grading import, gradebook, items, review,
# feedback) against real stores and files, and its pure parts.
wb_add_unit_test(test_lesson_class SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_class.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
