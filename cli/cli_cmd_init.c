/* cli_cmd_init.c — `warpbench init [--restore-course]`: create the store,
 * import the course; with --restore-course make sure the course in the
 * store is the one built into this binary (see lesson_builtin_sync). */
#include "cli/cli.h"

#include <stdlib.h>

static const char *action_word(enum lesson_builtin_action a)
{
    switch (a) {
    case LESSON_BUILTIN_IMPORTED:
        return "imported";
    case LESSON_BUILTIN_UPDATED:
        return "updated";
    case LESSON_BUILTIN_RESTORED:
        return "restored";
    default:
        return "in place";
    }
}

int cli_cmd_init(struct cli_ctx *cx, struct cli_args *a)
{
    bool restore = cli_take_flag(a, "--restore-course", false, NULL, NULL);
    const char *sid = NULL;
    bool missing = false;
    cli_take_flag(a, "--student-id", true, &sid, &missing);
    if (missing)
        return cli_usage(cli_command_find("init"),
                         "--student-id needs the id your instructor knows you by");
    int rc = cli_begin(cx, cli_command_find("init"), a, 0, 0, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    if (sid && (rc = cli_set_student_id(cx, sid)) != CLI_EXIT_OK)
        return rc;
    char *have_sid = NULL;
    struct core_err se = {0};
    db_user_student_id(cx->db, lesson_session_user_id(cx->session), &have_sid, &se);
    /* Opening the store already replaced an impostor; --restore-course
     * also puts back this build's content over a same-version edition. */
    struct lesson_builtin_report rep = cx->builtin;
    if (restore) {
        struct core_err e = {0};
        struct lesson_builtin_report again;
        if (lesson_builtin_sync(cx->db, true, &again, &e) != CORE_OK)
            return cli_fail(&e);
        if (again.action != LESSON_BUILTIN_KEPT || rep.action == LESSON_BUILTIN_KEPT)
            rep = again;
    }
    struct db_pack have = {0};
    struct core_err e = {0};
    if (db_pack_get(cx->db, lesson_builtin_id(), &have, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "db", cx->db_path);
        core_json_kstr(&j, "user", cx->user);
        core_json_kstr(&j, "student_id", have_sid);
        core_json_kint(&j, "schema", db_schema_version(cx->db));
        core_json_key(&j, "course");
        core_json_obj_begin(&j);
        core_json_kstr(&j, "pack", have.id);
        core_json_kstr(&j, "version", have.version);
        core_json_kstr(&j, "built_in", lesson_builtin_version());
        core_json_kstr(&j, "action", rep.newer ? "kept newer" : action_word(rep.action));
        core_json_kstr(&j, "found", rep.found[0] ? rep.found : NULL);
        core_json_obj_end(&j);
        cli_json_close(&b, &j);
    } else {
        printf("store: %s (schema %d)\nuser:  %s\n", cx->db_path, db_schema_version(cx->db),
               cli_tx(cx->user));
        if (have_sid)
            printf("student id: %s\n", cli_tx(have_sid));
        if (rep.newer)
            printf("course: %s %s from a newer Warpbench is kept (this build has %s and does "
                   "not downgrade a store)\n",
                   have.id, cli_tx(have.version), lesson_builtin_version());
        else if (rep.action == LESSON_BUILTIN_RESTORED)
            printf("course: %s %s restored (the store held %s %s, which was not built into "
                   "Warpbench)\n",
                   have.id, cli_tx(have.version), have.id, cli_tx(rep.found));
        else
            printf("course: %s %s %s\n", have.id, cli_tx(have.version), action_word(rep.action));
        printf("next:  warpbench lessons\n");
    }
    db_pack_fini(&have);
    free(have_sid);
    return CLI_EXIT_OK;
}
