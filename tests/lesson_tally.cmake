# The progress tallies every front end shows (pure): sums per lesson, pack,
# topic, rubric item and kind; policy penalties, pending exam answers and
# certainty-based marks.
wb_add_unit_test(test_lesson_tally SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_tally.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
