# The TUI's draw layers (tui/tui_internal.h): text, canvas, widgets, charts
# and Markdown. The tests render into an in-memory canvas and compare text;
# no terminal is needed.
foreach(t canvas chart md)
  wb_add_unit_test(test_tui_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tui_${t}.c
    LIBS wb_tui m
    LABELS tui)
endforeach()
