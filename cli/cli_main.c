/* cli_main.c — main(): global options, the command table, help, and the
 * helpers every command shares (opening the store, errors, flags). */
#include "cli/cli.h"
#include "labs/lab.h"

#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef WB_VERSION
#define WB_VERSION "0.0.0"
#endif

static const struct cli_command commands[] = {
    {"init", "init [--restore-course] [--student-id ID]",
     "create the store and import the built-in course (or bring it back)", cli_cmd_init},
    {"lessons", "lessons", "list packs and lessons with your progress", cli_cmd_lessons},
    {"show", "show LESSON [--page N]", "print a lesson's pages and its questions", cli_cmd_show},
    {"question", "question QID [--variant N] [--hints N]",
     "show a question with your numbers filled in", cli_cmd_question},
    {"answer", "answer QID ANSWER [--variant N] [--certainty N]",
     "grade an answer and record the attempt", cli_cmd_answer},
    {"giveup", "giveup QID [--variant N]", "show the accepted answer and record that you gave up",
     cli_cmd_giveup},
    {"exam", "exam start|status|submit LESSON",
     "sit a lesson in exam mode: one try each, feedback after you submit", cli_cmd_exam},
    {"progress", "progress [PACK]",
     "scores per lesson, topic and rubric item; self-rating vs graded; level", cli_cmd_progress},
    {"search", "search TEXT",
     "find TEXT in the lesson pages, question titles and prompts, and calculators", cli_cmd_search},
    {"mistakes", "mistakes [PACK] [--all]",
     "questions answered wrong, given up or missed in an exam, newest first, to try again",
     cli_cmd_mistakes},
    {"pack",
     "pack check DIR [--rubric] [--variants N] [--budget S] | check --release DIR "
     "[--source SRC] | import DIR [--force] [--variants N] [--student-id ID] | "
     "export ID DIR [--force] | release SRC DIR [--salt HEX | --new-salt] | list | "
     "regrade ID [--dry-run] [--new-params]",
     "check, import, export, release, list and re-grade lesson packs", cli_cmd_pack},
    {"selfassess", "selfassess [--set ITEM=SCORE]...",
     "rate yourself on the course rubric (interactive without --set)", cli_cmd_selfassess},
    {"calc", "calc [ID [--set NAME=VALUE]...]", "list or run a lesson's calculators", cli_cmd_calc},
    {"formulas", "formulas",
     "the course's formula sheet: each formula, the page that teaches it, its calculator",
     cli_cmd_formulas},
    {"lab", "lab list | run NAME [--set KEY=VALUE]... | runs [NAME] | show RUN",
     "run a lab on this machine and list or show your runs", cli_cmd_lab},
    {"code", "code list | start QID [--out FILE] [--force] | run QID [FILE] | show QID",
     "programming labs: write a kernel, run it sandboxed, graded by its share of this machine's "
     "roofline",
     cli_cmd_code},
    {"tui", "tui", "open the terminal UI (what `warpbench` alone does in a terminal)", cli_cmd_tui},
    {"bench", "bench grader|labstream|tui|paramserver|packcheck|class|json|code [--n N]",
     "measure throughput of the grader, the lab metric stream, TUI drawing, raw socketpairs, "
     "pack check, a class import, or the code harness against memcpy and the FMA peak",
     cli_cmd_bench},
    {"submit", "submit [PACK] [--out FILE] [--student-id ID] [--force]",
     "write your work to a new submission file for your instructor", cli_cmd_submit},
    {"class",
     "class [--class PATH] import FILE... [--force] [--deadline TIME|none] | grades [PACK] "
     "[--csv FILE] [--format canvas|moodle] [--count-automatic] | flags [--all] | "
     "clear FLAG --why TEXT | regrade [PACK] [--dry-run] | roster FILE.csv | "
     "items [PACK] [--sort KEY] [--reverse] | review [PACK|QID] [--all] [--tui] | "
     "review set ATTEMPT --concept NAME=SCORE... [--comment TEXT] | feedback --out DIR",
     "the instructor's side: import and grade submissions, flags, gradebook, re-grade, "
     "roster, item analysis, design review, feedback files",
     cli_cmd_class},
    {"feedback", "feedback import FILE", "bring your instructor's reviews into your progress",
     cli_cmd_feedback},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

const struct cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void print_help(FILE *f)
{
    fprintf(f,
            "Warpbench %s — a terminal workbench for ML systems performance.\n"
            "In a terminal, `warpbench` alone opens the full-screen UI.\n\n",
            WB_VERSION);
    fprintf(f, "usage: warpbench [--db PATH] [--user NAME] [--json] COMMAND [ARGS]\n\n");
    fprintf(f, "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        /* A long usage gets its own line, so summaries stay in one column. */
        if (strlen(commands[i].usage) > 44)
            fprintf(f, "  %s\n  %-44s %s\n", commands[i].usage, "", commands[i].summary);
        else
            fprintf(f, "  %-44s %s\n", commands[i].usage, commands[i].summary);
    }
    fprintf(
        f, "\noptions:\n"
           "  --db PATH     the store (default: $WARPBENCH_DB, else\n"
           "                $XDG_DATA_HOME/warpbench/warpbench.db, else\n"
           "                ~/.local/share/warpbench/warpbench.db)\n"
           "  --user NAME   who is studying (default: $WARPBENCH_USER, else your login)\n"
           "  --json        machine-readable output (one JSON document on stdout)\n"
           "  --help, -h    this help;  --version  the version\n"
           "\nexit codes:\n"
           "  0  success (answer: full marks)      4  invalid pack or failing grader script\n"
           "  1  answer graded, not full marks (class import: imported, with flags)\n"
           "                                       5  no such lesson, question or pack\n"
           "  2  usage error                       6  store, file or internal error\n"
           "  3  answer could not be read (nothing was scored)\n"
           "  7  conflicts with the store (pack version imported with other content,\n"
           "     export target exists, store made by a newer Warpbench)\n"
           "  8  lab run failed (stored as failed; the message says why)\n"
           "  130, 129, 143  lab run cancelled by Ctrl-C, SIGHUP or SIGTERM (stored as cancelled)\n"
           "\nQuestion ids (QID) are \"pack:question\" or just \"question\" when unique.\n"
           "Answers may be expressions with units: '1/(0.2+0.8/4)', '320 ms', '56%%'.\n"
           "Put -- before an answer that itself starts with --.\n");
}

/* The escaped copies cli_tx hands out, each alive for 16 more calls. */
static const char *tx_with(const char *s, unsigned flags)
{
    static char *ring[16];
    static unsigned at;
    if (!s)
        return "";
    if (core_text_clean(s, flags))
        return s;
    free(ring[at % 16]);
    ring[at % 16] = core_text_safe(s, flags);
    return ring[at++ % 16];
}

const char *cli_tx(const char *s)
{
    return tx_with(s, CORE_TEXT_NEWLINES | CORE_TEXT_TABS);
}

const char *cli_tx1(const char *s)
{
    return tx_with(s, 0);
}

size_t cli_width(const char *s)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        w += (*p & 0xC0) != 0x80;
    return w;
}

void cli_print_indented(const char *indent, const char *text)
{
    const char *s = cli_tx(text);
    do {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        printf("%s%.*s\n", indent, (int)len, s);
        s = nl ? nl + 1 : NULL;
    } while (s && *s);
}

void cli_pad(const char *s, size_t w)
{
    fputs(cli_tx(s), stdout);
    for (size_t k = cli_width(s); k < w; k++)
        putchar(' ');
}

int cli_exit_for(int code)
{
    switch (code) {
    case CORE_OK:
        return CLI_EXIT_OK;
    case CORE_ERR_USAGE:
        return CLI_EXIT_USAGE;
    case CORE_ERR_INVALID:
    case CORE_ERR_SCRIPT:
    case CORE_ERR_LIMIT:
        return CLI_EXIT_PACK;
    case CORE_ERR_CONFLICT:
        return CLI_EXIT_CONFLICT;
    case CORE_ERR_NOTFOUND:
        return CLI_EXIT_NOTFOUND;
    default:
        return CLI_EXIT_STORE;
    }
}

int cli_fail(const struct core_err *e)
{
    fprintf(stderr, "warpbench: %s\n", e->msg[0] ? cli_tx(e->msg) : core_code_name(e->code));
    return cli_exit_for(e->code);
}

int cli_usage(const struct cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "warpbench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nusage: warpbench %s\n", cmd ? cmd->usage : "[OPTIONS] COMMAND");
    va_end(ap);
    return CLI_EXIT_USAGE;
}

bool cli_take_flag(struct cli_args *a, const char *name, bool want_value, const char **value,
                   bool *missing)
{
    size_t nl = strlen(name);
    for (int i = 0; i < a->argc; i++) {
        const char *arg = a->argv[i];
        if (strcmp(arg, "--") == 0)
            break;
        int used = 0;
        const char *v = NULL;
        if (strcmp(arg, name) == 0) {
            used = 1;
            if (want_value) {
                if (i + 1 < a->argc) {
                    v = a->argv[i + 1];
                    used = 2;
                } else if (missing) {
                    *missing = true;
                }
            }
        } else if (want_value && strncmp(arg, name, nl) == 0 && arg[nl] == '=') {
            used = 1;
            v = arg + nl + 1;
        } else {
            continue;
        }
        if (value)
            *value = v;
        memmove(&a->argv[i], &a->argv[i + used], (size_t)(a->argc - i - used) * sizeof(char *));
        a->argc -= used;
        return true;
    }
    return false;
}

int cli_check_args(const struct cli_command *cmd, struct cli_args *a, int min, int max)
{
    for (int i = 0; i < a->argc; i++) {
        if (strcmp(a->argv[i], "--") == 0) {
            memmove(&a->argv[i], &a->argv[i + 1], (size_t)(a->argc - i - 1) * sizeof(char *));
            a->argc--;
            break;
        }
        if (strncmp(a->argv[i], "--", 2) == 0)
            return cli_usage(cmd, "unknown option \"%s\"", a->argv[i]);
    }
    if (a->argc < min)
        return cli_usage(cmd, "missing argument");
    if (a->argc > max)
        return cli_usage(cmd, "unexpected argument \"%s\"", a->argv[max]);
    return 0;
}

int cli_begin(struct cli_ctx *cx, const struct cli_command *cmd, struct cli_args *a, int min,
              int max, enum cli_need need)
{
    int rc = cli_check_args(cmd, a, min, max);
    if (rc == 0 && need == CLI_NEED_STORE)
        rc = cli_open_store(cx);
    if (rc == 0 && need == CLI_NEED_SESSION)
        rc = cli_open_session(cx);
    return rc;
}

bool cli_parse_int(const char *s, int max, int *out)
{
    if (!s || !*s)
        return false;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 1 || v > max)
        return false;
    *out = (int)v;
    return true;
}

void cli_json_print(struct core_buf *b)
{
    fwrite(b->data ? b->data : "", 1, b->len, stdout);
    fputc('\n', stdout);
    core_buf_fini(b);
}

void cli_json_open(struct core_buf *b, struct core_json *j)
{
    core_buf_init(b);
    core_json_init(j, b);
    core_json_obj_begin(j);
}

void cli_json_close(struct core_buf *b, struct core_json *j)
{
    core_json_obj_end(j);
    cli_json_print(b);
}

void cli_json_sample(struct core_buf *line, const struct core_sample *s)
{
    struct core_json j;
    core_buf_reset(line);
    core_json_init(&j, line);
    core_json_obj_begin(&j);
    core_json_kstr(&j, "type", "sample");
    core_json_kstr(&j, "series", s->series);
    core_json_kint(&j, "step", s->step);
    core_json_knum(&j, "value", s->value);
    core_json_knum(&j, "t", round(s->t * 1e6) / 1e6); /* µs is plenty */
    core_json_obj_end(&j);
    core_buf_putc(line, '\n');
}

bool cli_json_sample_put(struct core_buf *line, const struct core_sample *s)
{
    cli_json_sample(line, s);
    return fwrite(line->data, 1, line->len, stdout) == line->len && !ferror(stdout);
}

int cli_open_store(struct cli_ctx *cx)
{
    if (cx->db)
        return 0;
    struct core_err e = {0};
    if (!cx->db_path) {
        cx->db_path_owned = db_path_default();
        if (!cx->db_path_owned) {
            fprintf(stderr, "warpbench: no store location: set --db PATH, WARPBENCH_DB or HOME\n");
            return CLI_EXIT_USAGE;
        }
        cx->db_path = cx->db_path_owned;
    }
    if (db_open(&cx->db, cx->db_path, &e) != CORE_OK)
        return cli_fail(&e);
    const char *damage = db_damaged(cx->db);
    if (damage) {
        char *to = core_xasprintf("%s.recovered", cx->db_path);
        char *cmd = db_recover_command(cx->db_path, to);
        fprintf(stderr,
                "warpbench: the store %s is damaged (%s).\n"
                "  It is opened read-only: what can be read is shown, nothing is written.\n"
                "  Copy what it still holds into a new store with:\n    %s\n"
                "  then use that one: warpbench --db %s lessons\n",
                cx->db_path, cli_tx(damage), cmd, to);
        free(cmd);
        free(to);
    }
    if (lesson_builtin_sync(cx->db, false, &cx->builtin, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->builtin.action == LESSON_BUILTIN_RESTORED) /* worth saying, even with --json */
        fprintf(stderr,
                "warpbench: restored the built-in course in %s: the stored %s %s was not "
                "built into Warpbench\n",
                cx->db_path, lesson_builtin_id(), cli_tx(cx->builtin.found));
    else if (cx->builtin.action != LESSON_BUILTIN_KEPT && !cx->json)
        fprintf(stderr, "warpbench: %s the built-in course in %s\n",
                cx->builtin.action == LESSON_BUILTIN_IMPORTED ? "imported" : "updated",
                cx->db_path);
    return 0;
}

int cli_open_session(struct cli_ctx *cx)
{
    int rc = cli_open_store(cx);
    if (rc != 0 || cx->session)
        return rc;
    struct core_err e = {0};
    if (lesson_session_new(&cx->session, cx->db, cx->user, &e) != CORE_OK) {
        if (e.code == CORE_ERR_INVALID) /* the name given with --user */
            e.code = CORE_ERR_USAGE;
        return cli_fail(&e);
    }
    return 0;
}

static const char *default_user(void)
{
    const char *u = getenv("WARPBENCH_USER");
    if (u && *u)
        return u;
    u = getenv("USER");
    if (u && *u)
        return u;
    struct passwd *pw = getpwuid(getuid());
    if (pw && pw->pw_name && *pw->pw_name)
        return pw->pw_name;
    return "student";
}

int main(int argc, char **argv)
{
    /* The programming labs' sandboxed runner: a fresh exec of this binary
     * (labs/code/lab_code_child.c), before anything else is set up. */
    if (argc == 2 && strcmp(argv[1], LAB_CODE_CHILD_ARG) == 0)
        lab_code_child_main();
    /* A file size limit (ulimit -f) makes a write fail with EFBIG, which the
     * store reports and a lab run records, instead of killing the process
     * mid-write and leaving a run "running". */
    signal(SIGXFSZ, SIG_IGN);
    struct cli_ctx cx = {0};
    struct cli_args a = {argc - 1, argv + 1};
    const char *v = NULL;
    bool missing = false;
    int rc;

    if (cli_take_flag(&a, "--help", false, NULL, NULL) ||
        cli_take_flag(&a, "-h", false, NULL, NULL)) {
        const struct cli_command *c = a.argc > 0 ? cli_command_find(a.argv[0]) : NULL;
        if (c)
            printf("usage: warpbench %s\n  %s\n", c->usage, c->summary);
        else
            print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (cli_take_flag(&a, "--version", false, NULL, NULL)) {
        printf("warpbench %s (store schema %d)\n", WB_VERSION, DB_SCHEMA_VERSION);
        return CLI_EXIT_OK;
    }
    if (cli_take_flag(&a, "--db", true, &v, &missing))
        cx.db_path = v;
    if (cli_take_flag(&a, "--user", true, &v, &missing))
        cx.user = v;
    cx.json = cli_take_flag(&a, "--json", false, NULL, NULL);
    if (missing)
        return cli_usage(NULL, "--db and --user need a value");
    if (!cx.db_path) {
        const char *env = getenv("WARPBENCH_DB");
        if (env && *env)
            cx.db_path = env;
    }
    if (!cx.user)
        cx.user = default_user();

    if (a.argc == 0 && !cx.json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
        struct cli_args none = {0, NULL};
        rc = cli_cmd_tui(&cx, &none);
        goto out;
    }
    if (a.argc == 0) {
        /* No command and no terminal: show where the student stands. */
        if (!cx.json) {
            print_help(stdout);
            printf("\n");
        }
        struct cli_args none = {0, NULL};
        rc = cli_cmd_lessons(&cx, &none);
        goto out;
    }
    const struct cli_command *cmd = cli_command_find(a.argv[0]);
    if (!cmd) {
        rc = cli_usage(NULL, "unknown command \"%s\" (see warpbench --help)", a.argv[0]);
        goto out;
    }
    a.argc--;
    a.argv++;
    rc = cmd->run(&cx, &a);
out:
    lesson_session_free(cx.session);
    db_close(cx.db);
    free(cx.db_path_owned);
    return rc;
}
