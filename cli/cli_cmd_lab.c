/* cli_cmd_lab.c — `warpbench lab` (placeholder until it lands). */
#include "cli/cli.h"

int cli_cmd_lab(struct cli_ctx *cx, struct cli_args *a)
{
    (void)cx;
    (void)a;
    fprintf(stderr, "warpbench: 'lab' is not built yet\n");
    return CLI_EXIT_USAGE;
}
