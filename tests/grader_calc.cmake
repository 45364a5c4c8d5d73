# Calculators: the calculator{} constructor and its validation, running
# compute in the sandbox (limits, return shapes), the calculator self-tests
# of pack check; also pack{ cbm } and a design question's rubric view.
wb_add_unit_test(test_grader_calc
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_calc.c
  LIBS wb_grader wb_core
  LABELS grader)
# The lessons side: calculators of the stored packs through a session.
wb_add_unit_test(test_lesson_calc
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_calc.c
  LIBS wb_lessons wb_db wb_grader wb_core
  LABELS lessons)
