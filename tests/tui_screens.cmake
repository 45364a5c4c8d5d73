# The TUI's upper layers (tui/tui_screen.h): the frame, key tables, every
# screen's view drawn from a hand-built model, and the pure model helpers.
# No terminal needed; the real binary is driven in tmux by e2e/test_tui.sh.
wb_add_unit_test(test_tui_screens
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tui_screens.c
  LIBS wb_tui m
  LABELS tui)
