# Rubric coverage of a pack (`pack check --rubric`): pure counting over a pack
# loaded by the real grader.
wb_add_unit_test(test_lesson_coverage SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_coverage.c
                 LIBS wb_lessons wb_grader wb_core)
