# The TUI's calculator screen (tui/tui_screen_calc.c): its views drawn from
# hand-built models, the lesson reader's calculator row, and the pure helpers
# (steps, ranges, the output formatting shared with `warpbench calc`). No
# terminal needed; e2e/test_tui_calc.sh drives the real screen in tmux.
wb_add_unit_test(test_tui_calc
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tui_calc.c
  LIBS wb_tui m
  LABELS tui)
