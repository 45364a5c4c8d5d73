# Attempt policies (pure: what tries earn, the value of guessing, the kinds'
# defaults), the policy declarations of a pack, and the variant params JSON
# codec the re-grades depend on.
wb_add_unit_test(test_lesson_policy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lesson_policy.c
                 LIBS wb_lessons wb_db wb_grader wb_core)
