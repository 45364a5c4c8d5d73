/* cli_cmd_init.c — `warpbench init`: create the store, import the course. */
#include "cli/cli.h"

int cli_cmd_init(struct cli_ctx *cx, struct cli_args *a)
{
    int rc = cli_begin(cx, cli_command_find("init"), a, 0, 0, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "db", cx->db_path);
        core_json_kstr(&j, "user", cx->user);
        core_json_kint(&j, "schema", db_schema_version(cx->db));
        cli_json_close(&b, &j);
    } else {
        printf("store: %s (schema %d)\nuser:  %s\n", cx->db_path, db_schema_version(cx->db),
               cx->user);
        printf("next:  warpbench lessons\n");
    }
    return CLI_EXIT_OK;
}
