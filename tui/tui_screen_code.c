/*
 * tui_screen_code.c — a programming exercise (a `code` question), opened
 * with Enter from its lesson: `s` writes the starter to FUNC.c in the
 * current directory (a new file), `e` opens $EDITOR on it, `r` runs it.
 * A run is `warpbench --json code run QID FILE` in a child process (the
 * CLI's path: compile, sandbox, check, time, record the attempt), so the
 * screen only draws: the child's live lines while it runs (its stdout is
 * one JSON object a line: a "sample" per timed call, then the "result"),
 * then the result (correct, first wrong element, GFLOP/s, GB/s, fraction of
 * the roofline, speedup, score), the latest run's time of every timed call
 * (its "code" lab run in the store), and the history of this question's
 * runs as a chart of the fraction of the roofline against the attempt.
 */
#define _GNU_SOURCE /* pipe2 */
#include "grader/grader.h"
#include "tui/tui_screen.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { A_RUN = 1, A_EDIT, A_START, A_BACK };

#define LOG_LINES 6

struct code {
    char *qid, *pack_id, *question_id, *title, *signature, *starter;
    char file[160];
    /* the run in progress */
    pid_t pid;
    int out_fd, err_fd;
    struct core_buf out, err;
    char *log[LOG_LINES];
    /* the last result */
    bool have;
    bool compiled, correct;
    char *message, *first_wrong;
    double gflops, gbs, fraction, speedup, score, max;
    /* the history: fraction of the roofline per attempt (0 when not correct) */
    double *hx, *hy;
    size_t hn;
    char *calls;  /* the latest attempt's timed calls, "1.2 1.19 ..." ms; NULL when none */
    char *result; /* the run's {"type":"result",...} line, NULL until it came */
};

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? core_xstrdup(s) : NULL;
}

static void log_push(struct code *c, const char *line)
{
    free(c->log[0]);
    memmove(c->log, c->log + 1, sizeof c->log[0] * (LOG_LINES - 1));
    c->log[LOG_LINES - 1] = core_xstrdup(line);
}

static void history_load(struct tui_app *a, struct code *c)
{
    struct db_attempt *at = NULL;
    size_t n = 0;
    struct core_err e;
    free(c->hx);
    free(c->hy);
    c->hx = c->hy = NULL;
    c->hn = 0;
    if (db_attempt_list(a->db, a->user_id, c->pack_id, c->question_id, &at, &n, &e) != CORE_OK)
        return;
    c->hx = core_xcalloc(n ? n : 1, sizeof(double));
    c->hy = core_xcalloc(n ? n : 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        c->hx[c->hn] = (double)(c->hn + 1);
        c->hy[c->hn] = at[i].has_value && isfinite(at[i].value) ? at[i].value : 0;
        c->hn++;
    }
    /* the latest run's calls: its figures name the "code" lab run */
    free(c->calls);
    c->calls = NULL;
    struct core_kv *kv = NULL;
    size_t nk = 0;
    if (n > 0 && at[n - 1].params_json &&
        core_json_parse_flat(at[n - 1].params_json, &kv, &nk, NULL) == CORE_OK) {
        const struct core_kv *run = core_kv_find(kv, nk, "run");
        struct db_labsample *sm = NULL;
        size_t ns = 0;
        if (run && run->is_num &&
            db_labrun_samples_read(a->db, (int64_t)run->num, "call_ms", &sm, &ns, &e) == CORE_OK &&
            ns > 0) {
            struct core_buf b;
            core_buf_init(&b);
            for (size_t i = 0; i < ns; i++)
                core_buf_printf(&b, "%s%.4g", i ? " " : "", sm[i].value);
            c->calls = core_buf_steal(&b);
        }
        db_labsamples_free(sm, ns);
        core_kv_free(kv, nk);
    }
    db_attempts_free(at, n);
}

static void *code_enter(struct tui_app *a, const void *arg)
{
    const struct tui_code_arg *ca = arg;
    struct lesson_question_view v;
    struct core_err e = {0};
    if (lesson_question_show(a->sess, ca->qid, 1, &v, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return NULL;
    }
    struct grader_pack *gp = NULL;
    const struct grader_question *gq = NULL;
    if (lesson_session_pack(a->sess, v.q.rev_id, &gp, &e) == CORE_OK)
        gq = grader_pack_question(gp, v.q.id);
    if (!gq || !gq->code) {
        tui_app_msg(a, true, "%s is not a code exercise", ca->qid);
        lesson_question_view_fini(&v);
        return NULL;
    }
    struct code *c = core_xcalloc(1, sizeof *c);
    c->qid = core_xstrdup(ca->qid);
    c->pack_id = core_xstrdup(v.q.pack_id);
    c->question_id = core_xstrdup(v.q.id);
    c->title = core_xstrdup(v.q.title ? v.q.title : v.q.id);
    c->signature = core_xstrdup(gq->code->signature ? gq->code->signature : "");
    c->starter = core_xstrdup(gq->code->starter ? gq->code->starter : "");
    snprintf(c->file, sizeof c->file, "%s.c", gq->code->func);
    c->out_fd = c->err_fd = -1;
    core_buf_init(&c->out);
    core_buf_init(&c->err);
    lesson_question_view_fini(&v);
    history_load(a, c);
    return c;
}

static void stop_run(struct code *c)
{
    if (c->pid > 0) {
        kill(c->pid, SIGTERM);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        c->pid = 0;
    }
    if (c->out_fd >= 0)
        close(c->out_fd);
    if (c->err_fd >= 0)
        close(c->err_fd);
    c->out_fd = c->err_fd = -1;
}

static void code_leave(struct tui_app *a, void *st)
{
    (void)a;
    struct code *c = st;
    stop_run(c);
    free(c->qid);
    free(c->pack_id);
    free(c->question_id);
    free(c->title);
    free(c->signature);
    free(c->starter);
    core_buf_fini(&c->out);
    core_buf_fini(&c->err);
    for (int i = 0; i < LOG_LINES; i++)
        free(c->log[i]);
    free(c->message);
    free(c->first_wrong);
    free(c->hx);
    free(c->hy);
    free(c->calls);
    free(c->result);
    free(c);
}

static void start_run(struct tui_app *a, struct code *c)
{
    if (c->pid > 0)
        return;
    if (access(c->file, R_OK) != 0) {
        tui_app_msg(a, true, "no %s here: press s to write the starter", c->file);
        return;
    }
    int o[2], e[2];
    if (pipe2(o, O_CLOEXEC) != 0)
        return;
    if (pipe2(e, O_CLOEXEC) != 0) {
        close(o[0]);
        close(o[1]);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(o[1], 1);
        dup2(e[1], 2);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        char *argv[] = {"warpbench",
                        "--db",
                        (char *)a->db_path,
                        "--user",
                        (char *)a->user,
                        "--json",
                        "code",
                        "run",
                        c->qid,
                        c->file,
                        NULL};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(o[1]);
    close(e[1]);
    if (pid < 0) {
        close(o[0]);
        close(e[0]);
        tui_app_msg(a, true, "cannot start the run: %s", strerror(errno));
        return;
    }
    fcntl(o[0], F_SETFL, O_NONBLOCK);
    fcntl(e[0], F_SETFL, O_NONBLOCK);
    c->pid = pid;
    c->out_fd = o[0];
    c->err_fd = e[0];
    core_buf_reset(&c->out);
    core_buf_reset(&c->err);
    free(c->result);
    c->result = NULL;
    for (int i = 0; i < LOG_LINES; i++) {
        free(c->log[i]);
        c->log[i] = NULL;
    }
    log_push(c, "compiling and running (the first run also measures this machine's roofline)");
}

/* Appends what *fd holds now to b; closes it (-1) at its end. */
static void read_some(int *fd, struct core_buf *b)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n > 0) {
            core_buf_append(b, buf, (size_t)n);
        } else if (n == 0) {
            close(*fd);
            *fd = -1;
            return;
        } else if (errno != EINTR) {
            return; /* EAGAIN: nothing more yet */
        }
    }
}

/* A complete line of the run's stdout: a timed call's time goes to the
 * log as it comes; the result line is kept (c->result) for finish_run. */
static void out_line(struct code *c, const char *line)
{
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (core_json_parse_flat(line, &kv, &n, NULL) != CORE_OK)
        return;
    const struct core_kv *type = core_kv_find(kv, n, "type");
    const struct core_kv *series = core_kv_find(kv, n, "series");
    const struct core_kv *step = core_kv_find(kv, n, "step");
    const struct core_kv *value = core_kv_find(kv, n, "value");
    if (type && type->str && strcmp(type->str, "sample") == 0 && series && series->str &&
        strcmp(series->str, "call_ms") == 0 && step && step->is_num && value && value->is_num) {
        char msg[96];
        snprintf(msg, sizeof msg, "  call %.0f: %.3f ms", step->num, value->num);
        log_push(c, msg);
    } else if (type && type->str && strcmp(type->str, "result") == 0) {
        set_str(&c->result, line);
    }
    core_kv_free(kv, n);
}

/* Reads what the run wrote so far; true at its end (both pipes closed). */
static bool drain(struct code *c)
{
    if (c->out_fd >= 0)
        read_some(&c->out_fd, &c->out);
    if (c->err_fd >= 0)
        read_some(&c->err_fd, &c->err);
    /* complete stdout lines: samples to the log, the result kept */
    char *onl;
    while (c->out.data && (onl = memchr(c->out.data, '\n', c->out.len))) {
        *onl = '\0';
        out_line(c, c->out.data);
        size_t used = (size_t)(onl - c->out.data) + 1;
        memmove(c->out.data, onl + 1, c->out.len - used);
        c->out.len -= used;
        c->out.data[c->out.len] = '\0';
    }
    /* complete stderr lines into the log */
    char *nl;
    while (c->err.data && (nl = memchr(c->err.data, '\n', c->err.len))) {
        *nl = '\0';
        log_push(c, c->err.data);
        size_t used = (size_t)(nl - c->err.data) + 1;
        memmove(c->err.data, nl + 1, c->err.len - used);
        c->err.len -= used;
        c->err.data[c->err.len] = '\0';
    }
    return c->out_fd < 0 && c->err_fd < 0;
}

static double num(const struct core_kv *kv, size_t n, const char *key)
{
    const struct core_kv *f = core_kv_find(kv, n, key);
    return f && f->is_num ? f->num : NAN;
}

static void finish_run(struct tui_app *a, struct code *c)
{
    int st = 0;
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
        ;
    c->pid = 0;
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (!c->result || core_json_parse_flat(c->result, &kv, &n, NULL) != CORE_OK) {
        tui_app_msg(a, true, "the run failed (exit %d): %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                    c->log[LOG_LINES - 1] ? c->log[LOG_LINES - 1] : "no output");
        return;
    }
    c->have = true;
    c->compiled = num(kv, n, "compiled") == 1;
    c->correct = num(kv, n, "correct") == 1;
    const struct core_kv *m = core_kv_find(kv, n, "message");
    set_str(&c->message, m ? m->str : NULL);
    m = core_kv_find(kv, n, "first_wrong");
    set_str(&c->first_wrong, m ? m->str : NULL);
    c->gflops = num(kv, n, "gflops");
    c->gbs = num(kv, n, "gbs");
    c->fraction = num(kv, n, "roofline_fraction");
    c->speedup = num(kv, n, "speedup");
    c->score = num(kv, n, "score");
    c->max = num(kv, n, "max");
    core_kv_free(kv, n);
    history_load(a, c);
}

static void code_tick(struct tui_app *a, void *st)
{
    struct code *c = st;
    if (c->pid > 0 && drain(c))
        finish_run(a, c);
}

static int code_interval(const void *st)
{
    const struct code *c = st;
    return c->pid > 0 ? 100 : -1;
}

static void edit(struct tui_app *a, struct code *c)
{
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    if (access(c->file, R_OK) != 0) {
        tui_app_msg(a, true, "no %s here: press s to write the starter", c->file);
        return;
    }
    int rc = tui_term_run_editor(ed, c->file);
    if (rc != 0)
        tui_app_msg(a, true, "%s exited with status %d", ed, rc);
}

static void code_action(struct tui_app *a, void *st, int action)
{
    struct code *c = st;
    struct core_err e = {0};
    switch (action) {
    case A_RUN:
        start_run(a, c);
        break;
    case A_EDIT:
        edit(a, c);
        break;
    case A_START:
        if (core_file_create(c->file, c->starter, strlen(c->starter), false, NULL, &e) != CORE_OK)
            tui_app_msg(a, true, "%s", e.msg);
        else
            tui_app_msg(a, false, "wrote %s: press e to edit it, r to run it", c->file);
        break;
    case A_BACK:
        if (c->pid > 0)
            stop_run(c);
        tui_app_pop(a);
        break;
    }
}

static const struct tui_binding keys[] = {
    {'r', 0, A_RUN, "r", "run", "compile, check and time your file (recorded as an attempt)"},
    {'e', 0, A_EDIT, "e", "edit", "open $EDITOR on your file"},
    {'s', 0, A_START, "s", "starter", "write the starter file (never replaces one)"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"},
};

static struct tui_keymap code_keys(const void *st)
{
    (void)st;
    return TUI_KEYMAP(keys);
}

static const char *code_title(const void *st)
{
    const struct code *c = st;
    return c->title;
}

static void code_draw(struct tui_app *a, void *st, struct tui_canvas *cv, struct tui_rect r,
                      struct tui_cursor *cur)
{
    (void)a;
    (void)cur;
    struct code *c = st;
    struct tui_style plain = {0}, bold = {TUI_A_BOLD, TUI_C_ACCENT}, muted = {0, TUI_C_MUTED},
                     good = {TUI_A_BOLD, TUI_C_GOOD}, bad = {TUI_A_BOLD, TUI_C_BAD},
                     code = {0, TUI_C_CODE};
    int y = r.y, x = r.x + 1, w = r.w - 2;
    tui_canvas_put(cv, y++, x, c->signature, code, w);
    tui_canvas_printf(cv, y++, x, muted, w, "file %s (in the directory warpbench started in)",
                      c->file);
    y++;
    if (c->pid > 0) {
        tui_canvas_put(cv, y++, x, "running...", bold, w);
    } else if (c->have && !c->compiled) {
        tui_canvas_put(cv, y++, x, "does not compile", bad, w);
        tui_canvas_put(cv, y++, x, c->message ? c->message : "", plain, w);
    } else if (c->have && !c->correct) {
        tui_canvas_put(cv, y++, x, "NOT CORRECT", bad, w);
        tui_canvas_put(cv, y++, x, c->message ? c->message : "", plain, w);
    } else if (c->have) {
        tui_canvas_put(cv, y++, x, "correct", good, w);
        tui_canvas_printf(cv, y++, x, plain, w,
                          "%.4g GFLOP/s  %.4g GB/s  %.1f%% of the roofline  %.2fx the naive "
                          "reference",
                          c->gflops, c->gbs, 100 * c->fraction, c->speedup);
    } else {
        tui_canvas_put(cv, y++, x, "not run yet: s writes the starter, e edits, r runs", muted, w);
    }
    if (c->have && c->pid <= 0)
        tui_canvas_printf(cv, y++, x, bold, w, "score %.3g / %.3g", c->score, c->max);
    if (c->pid <= 0 && c->calls)
        tui_canvas_printf(cv, y++, x, muted, w, "latest run, each timed call (ms): %s", c->calls);
    y++;
    for (int i = 0; i < LOG_LINES && y < r.y + r.h; i++)
        if (c->log[i])
            tui_canvas_put(cv, y++, x, c->log[i], muted, w);
    int ch_h = r.y + r.h - y - 1;
    if (ch_h >= 6) {
        struct tui_series s = {.label = "fraction of the roofline",
                               .x = c->hx,
                               .y = c->hy,
                               .n = c->hn,
                               .color = TUI_C_S1};
        struct tui_chart ch = {.title = "your runs: fraction of this machine's roofline",
                               .x_label = "attempt",
                               .y_unit = "",
                               .s = &s,
                               .n_series = 1,
                               .y_from_zero = true,
                               .x_int = true};
        tui_chart_draw(cv, (struct tui_rect){y + 1, r.x, ch_h, r.w}, &ch, false);
    }
}

const struct tui_screen tui_screen_code = {
    .name = "code",
    .enter = code_enter,
    .leave = code_leave,
    .on_action = code_action,
    .tick = code_tick,
    .interval_ms = code_interval,
    .keymap = code_keys,
    .title = code_title,
    .draw = code_draw,
};
