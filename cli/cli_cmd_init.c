/* cli_cmd_init.c — `warpbench init`: create the store, import the course. */
#include "cli/cli.h"

int cli_cmd_init(struct cli_ctx *cx, struct cli_args *a)
{
    int rc = cli_check_args(cli_command_find("init"), a, 0, 0);
    if (rc == 0)
        rc = cli_open_session(cx);
    if (rc != 0)
        return rc;
    if (cx->json) {
        struct core_buf b;
        core_buf_init(&b);
        struct core_json j;
        core_json_init(&j, &b);
        core_json_obj_begin(&j);
        core_json_key(&j, "db");
        core_json_str(&j, cx->db_path);
        core_json_key(&j, "user");
        core_json_str(&j, cx->user);
        core_json_key(&j, "schema");
        core_json_int(&j, db_schema_version(cx->db));
        core_json_obj_end(&j);
        cli_json_print(&b);
    } else {
        printf("store: %s (schema %d)\nuser:  %s\n", cx->db_path, db_schema_version(cx->db),
               cx->user);
        printf("next:  warpbench lessons\n");
    }
    return CLI_EXIT_OK;
}
