/* cli_cmd_tui.c — `warpbench tui`: hands the terminal to the TUI. */
#include "cli/cli.h"
#include "tui/tui.h"

int cli_cmd_tui(struct cli_ctx *cx, struct cli_args *a)
{
    static const struct cli_command *self;
    if (!self)
        self = cli_command_find("tui");
    /* Opening the store here creates it and imports the built-in course
     * before the screen is taken, so first-run messages are readable. */
    int rc = cli_begin(cx, self, a, 0, 0, CLI_NEED_STORE);
    if (rc)
        return rc;
    struct tui_opts o = {.db_path = cx->db_path, .user = cx->user};
    return tui_main(&o);
}
