/* cli_cmd_calc.c — `warpbench calc` (placeholder until it lands). */
#include "cli/cli.h"

int cli_cmd_calc(struct cli_ctx *cx, struct cli_args *a)
{
    (void)cx;
    (void)a;
    fprintf(stderr, "warpbench: 'calc' is not built yet\n");
    return CLI_EXIT_USAGE;
}
