# Plausibility checks of a submitted lab run (pure).
wb_add_unit_test(test_lab_plausible SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_plausible.c
                 LIBS wb_labs wb_db wb_core LABELS labs)
