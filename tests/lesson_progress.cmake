# The course rubric roll-up, levels, calibration, study-next and the CBM
# rule (pure), and the store reads behind them (temporary SQLite files).
wb_add_unit_test(test_lesson_progress SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_progress.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
