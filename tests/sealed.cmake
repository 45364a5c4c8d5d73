# Sealed assessment's pure parts: deadlines, CSV records, the roster, the
# integrity checks of graded work, the release rewrite of the example course.
wb_add_unit_test(test_sealed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sealed.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
