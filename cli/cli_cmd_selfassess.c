/* cli_cmd_selfassess.c — `warpbench selfassess` (placeholder until it lands). */
#include "cli/cli.h"

int cli_cmd_selfassess(struct cli_ctx *cx, struct cli_args *a)
{
    (void)cx;
    (void)a;
    fprintf(stderr, "warpbench: 'selfassess' is not built yet\n");
    return CLI_EXIT_USAGE;
}
