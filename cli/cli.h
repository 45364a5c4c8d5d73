/*
 * cli.h — internals of the warpbench command line: the shared context every
 * command receives, the exit codes, and the command table entry type. Each
 * user-visible command lives in its own cli_cmd_<name>.c and is registered
 * in the one table in cli_main.c.
 *
 * Uses lessons (packs, sessions), db (the store) and core.
 */
#ifndef WB_CLI_H
#define WB_CLI_H

#include "core/core.h"
#include "db/db.h"
#include "lessons/lesson.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes (documented in `warpbench --help` and the README). */
enum cli_exit {
    CLI_EXIT_OK = 0,         /* success; for `answer`: full marks */
    CLI_EXIT_WRONG = 1,      /* `answer`: graded, not full marks; `class import`: imported,
                                with grades that disagree or runs that are implausible */
    CLI_EXIT_USAGE = 2,      /* bad command line */
    CLI_EXIT_UNREADABLE = 3, /* `answer`: the answer could not be read (nothing scored) */
    CLI_EXIT_PACK = 4,       /* a pack or grader script is invalid or failed */
    CLI_EXIT_NOTFOUND = 5,   /* no such lesson, question or pack */
    CLI_EXIT_STORE = 6,      /* the store, a file, or Warpbench itself failed */
    CLI_EXIT_CONFLICT = 7,   /* the request conflicts with what is stored or exists (a pack
                                version imported with other content, a pack id reserved for
                                the built-in course, a file a lab or an export would write
                                that exists or is a link, FIFO or device, a store made by a
                                newer Warpbench) */
    CLI_EXIT_LAB_FAILED = 8, /* `lab run`: the lab ran and failed (a worker died, a check of
                                its results failed); the run is stored as "failed" */
    CLI_EXIT_NO_LAB_RUN = 9, /* `answer`: the question is graded against your own lab run and you
                                have none yet (nothing recorded; run the lab first) */
    CLI_EXIT_CANCELLED =
        130 /* `lab run` cancelled by Ctrl-C (SIGINT); 143 for SIGTERM, 129 for SIGHUP */
};

/* Global options and lazily opened resources. */
struct cli_ctx {
    const char *db_path; /* --db, else WARPBENCH_DB, else the default */
    const char *user;    /* --user, else WARPBENCH_USER, else $USER, else "student" */
    bool json;           /* --json: machine-readable output on stdout */
    char *db_path_owned;
    struct db *db;
    struct lesson_session *session;
    struct lesson_builtin_report builtin; /* what opening the store did to the course */
};

/* Positional arguments and command flags after the global ones are taken. */
struct cli_args {
    int argc;
    char **argv;
};

struct cli_command {
    const char *name;
    const char *usage;   /* "answer QID ANSWER [--variant N]" */
    const char *summary; /* one line for --help */
    int (*run)(struct cli_ctx *cx, struct cli_args *a);
};

/* Opens the store (creating it and importing the built-in pack on first
 * use). Prints the error and returns an exit code on failure, else 0. */
int cli_open_store(struct cli_ctx *cx);

/* Also opens the study session for cx->user. */
int cli_open_session(struct cli_ctx *cx);

/* Text made safe for a terminal (core_text_escape): control characters
 * other than newline and tab (ESC, CR, BEL, DEL), C1 codes, U+2028/9 and
 * the bidirectional controls are shown escaped ("^[", "<U+202E>") instead
 * of being sent, so a pack or a student's file cannot clear the screen,
 * set the window title, write the clipboard or reorder a line. Returns s
 * itself when it is clean, else a copy that lives until 16 more calls;
 * NULL gives "". */
const char *cli_tx(const char *s);
/* cli_tx for text that must stay on its line (a name, an answer, a reason
 * in a report): newlines and tabs are escaped too ("^J"), so the text
 * cannot print a line of its own. */
const char *cli_tx1(const char *s);

/* Display width of UTF-8 text, one column per character (the CLI's tables
 * hold no wide characters). */
size_t cli_width(const char *s);
/* Prints s (through cli_tx) to stdout padded with spaces to w columns. */
void cli_pad(const char *s, size_t w);
/* Prints text (through cli_tx) to stdout with `indent` before every line,
 * so a multi-line feedback ("Covered: ...\nMissing: ...") keeps its
 * indentation; ends with a newline. */
void cli_print_indented(const char *indent, const char *text);

/* Sets the current user's student id (`init --student-id`, `pack import
 * --student-id`); needs the session. Prints the error: returns an exit
 * code. */
int cli_set_student_id(struct cli_ctx *cx, const char *sid);

/* ---- the class subcommands (cli_cmd_class*.c) ---- */

/* The class store a subcommand works on. */
struct class_cx {
    struct db *cs;
    char *path;
};
/* A class subcommand's words (min..max after its flags were taken), then
 * the session and the class store (--class PATH, else $WARPBENCH_CLASS,
 * else class.db beside the store). Prints any error: returns an exit code. */
int cli_class_begin(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd, int min,
                    int max, const char *class_path, struct class_cx *c);
void cli_class_close(struct class_cx *c);
/* class flags [--all] | clear FLAG --why TEXT | roster FILE.csv (cli_cmd_class_flags.c) */
int cli_class_flags(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                    const char *class_path);
int cli_class_clear(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                    const char *class_path);
int cli_class_roster(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                     const char *class_path);
int cli_class_regrade(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                      const char *class_path);

/* `bench code [--n KIB]` (cli_cmd_bench_code.c). */
int cli_bench_code(struct cli_ctx *cx, int kib);
/* `code` (cli_cmd_code.c). */
/* lesson_code_rerun_fn for `class import`: the programming labs' harness
 * on this machine, ud the cli_ctx (its store holds this machine's roofline). */
int cli_code_rerun(void *ud, const char *pack_id, const char *qid, const struct grader_question *gq,
                   const char *student, const char *user, const char *code,
                   struct grader_result *res, double *gflops, struct core_err *err);
int cli_cmd_code(struct cli_ctx *cx, struct cli_args *a);

/* Maps a core error code to an exit code. */
int cli_exit_for(int code);

/* Prints "warpbench: <msg>" to stderr and returns cli_exit_for(e->code). */
int cli_fail(const struct core_err *e);

/* Prints a usage error for `cmd` and returns CLI_EXIT_USAGE. */
int cli_usage(const struct cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Removes the flag `name` (and its value when want_value) from a->argv.
 * Returns true when present; *value gets the value (borrowed). A missing
 * value sets *missing. */
bool cli_take_flag(struct cli_args *a, const char *name, bool want_value, const char **value,
                   bool *missing);

/* Checks that only positional arguments remain (a "--" ends options and is
 * dropped) and that there are between min and max of them. Returns 0, or
 * prints a usage error and returns CLI_EXIT_USAGE. */
int cli_check_args(const struct cli_command *cmd, struct cli_args *a, int min, int max);

/* What a command needs opened before it runs. */
enum cli_need { CLI_NEED_NOTHING, CLI_NEED_STORE, CLI_NEED_SESSION };

/* The start of every command: cli_check_args, then opens what `need` says.
 * Returns 0, or the exit code to return (the error is already printed). */
int cli_begin(struct cli_ctx *cx, const struct cli_command *cmd, struct cli_args *a, int min,
              int max, enum cli_need need);

/* Parses a positive int flag value; false when not a number in [1, max]. */
bool cli_parse_int(const char *s, int max, int *out);

/* Writes a JSON document plus newline to stdout and frees the buffer. */
void cli_json_print(struct core_buf *b);

/* Starts a JSON object document in b (initialised here) through j. */
void cli_json_open(struct core_buf *b, struct core_json *j);
/* Ends the object, prints it and frees b. */
void cli_json_close(struct core_buf *b, struct core_json *j);

/* Formats s as the sample line of `lab run --json`, newline included, into
 * line (reset first; caller-owned): {"type":"sample","series",...,"step",
 * ...,"value",...,"t",... (rounded to the microsecond)}. */
void cli_json_sample(struct core_buf *line, const struct core_sample *s);
/* cli_json_sample written to stdout at once. False when the write failed
 * (the reader went away: `| head`), which the run treats as a cancel. */
bool cli_json_sample_put(struct core_buf *line, const struct core_sample *s);

/* A design answer's evidence under key "claims": one object per rubric
 * concept, in order: {"concept", "points", "earned", "status", "how",
 * "clause", "subject", "relation", "object"} (null for a text the grader
 * did not find; README "Design answers' evidence"). */
void cli_json_claims(struct core_json *j, const struct grader_claim_evidence *c, size_t n);

/* The command table lookups (for help). */
const struct cli_command *cli_command_find(const char *name);

/* Commands. */
int cli_cmd_init(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_lessons(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_show(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_question(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_answer(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_giveup(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_exam(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_progress(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_mistakes(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_search(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_formulas(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_pack(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_bench(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_selfassess(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_calc(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_lab(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_tui(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_submit(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_class(struct cli_ctx *cx, struct cli_args *a);
int cli_cmd_feedback(struct cli_ctx *cx, struct cli_args *a);

/* `bench class`: a class of `students` students submits and is imported
 * (cli_cmd_bench_class.c). Returns an exit code. */
int cli_bench_class(struct cli_ctx *cx, int students);

/* The instructor's reviews of the session user's answers (in pack, or
 * all): printed as a section of `progress`, or with j as its "reviews"
 * JSON array (cli_cmd_feedback.c). */
void cli_reviews_print(struct cli_ctx *cx, const char *pack, struct core_json *j);
/* The official grades feedback files brought (db_official_list), for
 * progress: as JSON under key "official" (j non-NULL), or printed. */
void cli_officials_print(struct cli_ctx *cx, const char *pack, struct core_json *j);

#endif /* WB_CLI_H */
