/* tui_app.c — the TUI's main loop (placeholder until the TUI lands). */
#include "tui/tui.h"

#include <stdio.h>

int tui_main(const struct tui_opts *o)
{
    (void)o;
    fprintf(stderr, "warpbench: the terminal UI is not built yet; see `warpbench --help`\n");
    return 2;
}
