/* cli_cmd_lab.c — `warpbench lab list | run | runs | show`: run a lab on
 * this machine with live progress, and look at the runs the store kept.
 *
 * `lab run` prints progress and log lines on stderr and a summary table on
 * stdout; with --json, stdout carries one JSON object per line: a
 * {"type":"sample",...} object per sample as it is measured, then one
 * {"type":"summary",...} object. Ctrl-C (SIGINT), SIGTERM or SIGHUP (the
 * terminal went away) cancels: the lab stops, its workers are killed, the
 * run is stored as "cancelled" and the exit code is 130 (143 for SIGTERM,
 * 129 for SIGHUP). */
#include "cli/cli.h"
#include "labs/lab.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- lab list ------------------------------------------------------------ */

static const char *type_word(enum lab_ptype t)
{
    static const char *const w[] = {"int", "real", "enum", "bool", "text"};
    return (unsigned)t < 5 ? w[t] : "?";
}

static int cmd_list(struct cli_ctx *cx)
{
    size_t n;
    const struct lab_def *const *labs = lab_registry(&n);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_key(&j, "labs");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            const struct lab_def *l = labs[i];
            struct lab_params p;
            lab_params_init(&p, l);
            core_json_obj_begin(&j);
            core_json_kstr(&j, "name", l->name);
            core_json_kstr(&j, "title", l->title);
            core_json_kstr(&j, "summary", l->summary);
            core_json_key(&j, "params");
            core_json_arr_begin(&j);
            for (size_t k = 0; k < p.n; k++) {
                const struct lab_param_def *d = p.v[k].def;
                char text[128], range[160];
                lab_value_text(&p.v[k], text, sizeof text);
                lab_param_range(d, range, sizeof range);
                core_json_obj_begin(&j);
                core_json_kstr(&j, "name", d->name);
                core_json_kstr(&j, "type", type_word(d->type));
                core_json_kstr(&j, "default", text);
                core_json_kstr(&j, "range", range);
                if (d->type == LAB_P_INT || d->type == LAB_P_REAL) {
                    core_json_knum(&j, "min", d->min);
                    core_json_knum(&j, "max", d->max);
                }
                core_json_kstr(&j, "unit", d->unit ? d->unit : "");
                core_json_kstr(&j, "help", d->help ? d->help : "");
                core_json_obj_end(&j);
            }
            core_json_arr_end(&j);
            core_json_key(&j, "series");
            core_json_arr_begin(&j);
            for (size_t k = 0; k < l->n_series; k++) {
                const struct lab_series_def *s = &l->series[k];
                core_json_obj_begin(&j);
                core_json_kstr(&j, "name", s->name);
                core_json_kstr(&j, "label", s->label);
                core_json_kstr(&j, "unit", s->unit);
                core_json_kstr(&j, "chart", s->chart);
                core_json_kstr(&j, "x_label", s->x_label);
                core_json_kbool(&j, "x_log", lab_chart_log_x(l, s->chart));
                core_json_obj_end(&j);
            }
            core_json_arr_end(&j);
            core_json_obj_end(&j);
            lab_params_fini(&p);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < n; i++) {
        const struct lab_def *l = labs[i];
        struct lab_params p;
        lab_params_init(&p, l);
        printf("%s%s — %s\n  %s\n", i ? "\n" : "", l->name, l->title, l->summary);
        for (size_t k = 0; k < p.n; k++) {
            const struct lab_param_def *d = p.v[k].def;
            char text[128], range[160], shown[160];
            lab_value_text(&p.v[k], text, sizeof text);
            lab_param_range(d, range, sizeof range);
            snprintf(shown, sizeof shown, "%s%s%s", text, d->unit && *d->unit ? " " : "",
                     d->unit ? d->unit : "");
            printf("    %-14s ", d->name);
            cli_pad(shown, 12);
            putchar(' ');
            cli_pad(range, 22);
            printf(" %s\n", d->help ? d->help : "");
        }
        lab_params_fini(&p);
    }
    printf("\nrun one with: warpbench lab run NAME [--set NAME=VALUE]...\n");
    return CLI_EXIT_OK;
}

/* ---- lab run: the terminal sink ----------------------------------------- */

static atomic_int run_cancel;
static volatile sig_atomic_t run_signal;
static volatile sig_atomic_t run_note_fd = -1; /* the run's closing note (lab_run_opts) */

#define MAX_SHOWN 4

struct term_sink {
    bool json;
    bool tty;         /* stderr is a terminal: one progress line redrawn in place */
    bool line_open;   /* a progress line is on screen and needs clearing */
    double last_draw; /* monotonic seconds */
    int last_decile;  /* non-terminal progress: the last tenth printed (-1: none yet) */
    const char *lab;
    struct core_buf line;
    /* Latest value of the first few series, for the progress line. */
    const char *names[MAX_SHOWN];
    double values[MAX_SHOWN];
    size_t n_shown;
    char what[96];
    double fraction;
    char note[400]; /* the run's LAB_LOG_NOTE (what ran instead and why), "" none */
};

static void clear_line(struct term_sink *t)
{
    if (t->line_open) {
        fputs("\r\033[K", stderr);
        t->line_open = false;
    }
}

static void draw_progress(struct term_sink *t, bool force)
{
    double now = core_time_mono();
    if (t->tty) {
        if (!force && now - t->last_draw < 0.1)
            return;
        t->last_draw = now;
        fprintf(stderr, "\r\033[K[%3.0f%%] %s", t->fraction * 100, cli_tx(t->what));
        for (size_t i = 0; i < t->n_shown; i++)
            fprintf(stderr, "  %s=%.4g", t->names[i], t->values[i]);
        t->line_open = true;
        fflush(stderr);
        return;
    }
    int decile = (int)floor(t->fraction * 10 + 1e-9);
    if (decile <= t->last_decile)
        return;
    t->last_decile = decile;
    fprintf(stderr, "%s: [%3.0f%%] %s\n", t->lab, t->fraction * 100, cli_tx(t->what));
}

static void sink_sample(void *ud, const struct core_sample *s)
{
    struct term_sink *t = ud;
    if (t->json) {
        if (!cli_json_sample_put(&t->line, s) && !run_signal) {
            /* The reader went away (`| head`): stop the run as a cancel. */
            run_signal = SIGPIPE;
            atomic_store(&run_cancel, 1);
        }
    }
    size_t i = 0;
    while (i < t->n_shown && strcmp(t->names[i], s->series) != 0)
        i++;
    if (i == t->n_shown) {
        if (t->n_shown == MAX_SHOWN)
            return;
        t->names[t->n_shown++] = s->series; /* lives as long as the run */
    }
    t->values[i] = s->value;
}

static void sink_log(void *ud, enum lab_log_level level, const char *line)
{
    struct term_sink *t = ud;
    clear_line(t);
    if (level == LAB_LOG_NOTE && !t->note[0])
        snprintf(t->note, sizeof t->note, "%s", line);
    fprintf(stderr, "%s: %s%s\n", t->lab,
            level == LAB_LOG_ERROR                           ? "error: "
            : level == LAB_LOG_WARN || level == LAB_LOG_NOTE ? "warning: "
                                                             : "",
            cli_tx(line));
    if (t->tty && t->what[0])
        draw_progress(t, true);
}

static void sink_progress(void *ud, double fraction, const char *what)
{
    struct term_sink *t = ud;
    t->fraction = fraction;
    snprintf(t->what, sizeof t->what, "%s", what);
    draw_progress(t, fraction >= 1);
}

/* ---- lab run: signals ---------------------------------------------------- */

/* The closing note a second signal leaves (see db_labrun_note_fd). */
static void write_note(int sig)
{
    int fd = run_note_fd;
    if (fd < 0)
        return;
    static const char sigint[] = "cancelled\ncancelled by a second Ctrl-C: Warpbench quit at "
                                 "once, without waiting for the lab to stop\n";
    static const char other[] = "cancelled\ncancelled by a second signal (SIGTERM or SIGHUP): "
                                "Warpbench quit at once, without waiting for the lab to stop\n";
    const char *note = sig == SIGINT ? sigint : other;
    size_t n = sig == SIGINT ? sizeof sigint - 1 : sizeof other - 1;
    if (ftruncate(fd, 0) == 0) {
        ssize_t w = pwrite(fd, note, n, 0);
        (void)w;
    }
}

/* The first Ctrl-C (or SIGTERM, SIGHUP) cancels cleanly; a second one, for a lab
 * that does not stop, ends the process at once (the workers die with it,
 * through PR_SET_PDEATHSIG). The run is then closed as "cancelled" by the
 * next warpbench that opens the store, from the note written here. */
static volatile sig_atomic_t run_mpi_rank0; /* rank 0 of an Open MPI job */

static void on_signal(int sig)
{
    if (sig == SIGTERM && run_mpi_rank0) {
        /* mpirun ends the job (a rank died, or it was stopped): the run
         * fails with that reason, it is not the user's cancel */
        lab_mpi_note_term();
        return;
    }
    if (atomic_load(&run_cancel) && run_signal != SIGPIPE) {
        write_note(sig);
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    static const char msg[] = "\nwarpbench: cancelling the run (again to quit at once)\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    run_signal = sig;
    atomic_store(&run_cancel, 1);
}

/* ---- lab run ------------------------------------------------------------- */

static void print_figures(const struct lab_summary *s)
{
    size_t w = 8;
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i].key) > w)
            w = strlen(s->v[i].key);
    for (size_t i = 0; i < s->n; i++) {
        const struct lab_figure *f = &s->v[i];
        char val[160];
        if (f->str)
            snprintf(val, sizeof val, "%s", cli_tx(f->str));
        else if (f->unit && strcmp(f->unit, "yes/no") == 0)
            snprintf(val, sizeof val, "%s", f->num != 0 ? "yes" : "no");
        else
            snprintf(val, sizeof val, "%.6g%s%s", f->num, f->unit && *f->unit ? " " : "",
                     f->unit ? f->unit : "");
        printf("  %-*s  ", (int)w, f->key);
        cli_pad(val, 24); /* units such as "×" are one column, more bytes */
        printf(" %s\n", f->label && strcmp(f->label, f->key) != 0 ? cli_tx(f->label) : "");
    }
}

static void summary_json_line(const struct lab_params *p, const struct lab_result *r,
                              double elapsed, const char *note)
{
    struct core_buf b;
    struct core_json j;
    cli_json_open(&b, &j);
    core_json_kstr(&j, "type", "summary");
    if (r->run_id)
        core_json_kint(&j, "run", (long long)r->run_id);
    else
        core_json_kstr(&j, "run", NULL);
    core_json_kstr(&j, "lab", p->lab->name);
    core_json_kstr(&j, "status", r->status);
    core_json_kstr(&j, "error", r->error);
    core_json_kint(&j, "samples", (long long)r->n_samples);
    if (r->run_id)
        core_json_kint(&j, "samples_recorded", (long long)r->n_recorded);
    else
        core_json_kstr(&j, "samples_recorded", NULL);
    core_json_knum(&j, "elapsed_s", elapsed);
    core_json_key(&j, "params");
    lab_params_json(p, &j);
    core_json_key(&j, "figures");
    lab_summary_json(&r->summary, &j);
    const struct lab_figure *noisy = lab_summary_find(&r->summary, "noisy");
    const struct lab_figure *noise = lab_summary_find(&r->summary, "noise");
    core_json_kbool(&j, "noisy", noisy && noisy->num != 0);
    core_json_kstr(&j, "noise", noise ? noise->str : NULL);
    core_json_kstr(&j, "note", note && *note ? note : NULL);
    cli_json_close(&b, &j);
}

/* A run measured under load or with a wide spread says so, and how to run
 * it again (its --set flags as given). */
static void print_noise(const struct lab_def *lab, const struct lab_summary *s,
                        const struct core_strlist *sets)
{
    const struct lab_figure *noisy = lab_summary_find(s, "noisy");
    const struct lab_figure *noise = lab_summary_find(s, "noise");
    if (!noisy || noisy->num == 0 || !noise || !noise->str)
        return;
    printf("warning: %s\n", cli_tx(noise->str));
    printf("  these numbers may be off: run it again on a quieter machine:\n"
           "  warpbench lab run %s",
           lab->name);
    for (size_t i = 0; i < sets->n; i++)
        printf(" --set %s", cli_tx(sets->items[i]));
    printf("\n");
}

static int cmd_run(struct cli_ctx *cx, const struct cli_command *cmd, struct cli_args *a)
{
    struct core_strlist sets;
    core_strlist_init(&sets);
    const char *v = NULL;
    bool missing = false;
    while (cli_take_flag(a, "--set", true, &v, &missing) && !missing)
        core_strlist_push(&sets, v);
    if (missing) {
        core_strlist_fini(&sets);
        return cli_usage(cmd, "--set needs NAME=VALUE");
    }
    int rc = cli_check_args(cmd, a, 2, 2);
    if (rc != 0) {
        core_strlist_fini(&sets);
        return rc;
    }
    const struct lab_def *lab = lab_find(a->argv[1]);
    if (!lab) {
        size_t n;
        const struct lab_def *const *labs = lab_registry(&n);
        fprintf(stderr, "warpbench: no lab \"%s\" (have:", cli_tx(a->argv[1]));
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", labs[i]->name);
        fprintf(stderr, "; see warpbench lab list)\n");
        core_strlist_fini(&sets);
        return CLI_EXIT_NOTFOUND;
    }

    struct core_err e = {0};
    struct lab_params p;
    struct lab_result r = {0};
    struct term_sink t = {
        .json = cx->json, .tty = isatty(STDERR_FILENO) == 1, .last_decile = -1, .lab = lab->name};
    struct sigaction sa, old_int, old_term, old_hup, old_pipe;
    bool handlers = false;
    lab_params_init(&p, lab);
    core_buf_init(&t.line);
    for (size_t i = 0; i < sets.n && rc == 0; i++)
        if (lab_params_assign(&p, sets.items[i], &e) != 0)
            rc = cli_usage(cmd, "%s", cli_tx(e.msg));
    if (rc == 0 && lab_params_check(&p, &e) != 0)
        /* a path the lab would write exists (or is a link, FIFO, device):
         * refused like an export target that exists */
        rc = e.code == CORE_ERR_CONFLICT ? cli_fail(&e) : cli_usage(cmd, "%s", cli_tx(e.msg));
    bool mpi = rc == 0 && lab_mpi_params_use(&p) && lab_mpi_env_rank() >= 0;
    if (mpi && lab_mpi_env_rank() > 0) {
        /* a shard or worker rank of an Open MPI job: rank 0 records */
        if (lab_mpi_rank_run(&p, &e) != 0) {
            fprintf(stderr, "warpbench (rank %d): %s\n", lab_mpi_env_rank(), cli_tx(e.msg));
            rc = CLI_EXIT_LAB_FAILED;
        }
        goto out;
    }
    bool relayed = mpi && lab_mpi_relayed();
    if (rc == 0 && !relayed)
        rc = cli_open_session(cx);
    if (rc != 0)
        goto out;

    if (cx->json)
        setvbuf(stdout, NULL, _IOLBF, 0); /* a reader sees each sample as it comes */
    atomic_store(&run_cancel, 0);
    run_signal = 0;
    run_note_fd = -1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sa.sa_handler = SIG_IGN; /* a closed stdout is seen by fwrite, not by dying */
    sigaction(SIGPIPE, &sa, &old_pipe);
    handlers = true;

    run_mpi_rank0 = mpi;
    struct lab_sink sink = {sink_sample, sink_log, sink_progress, NULL, &t};
    if (relayed) /* rank 0 of a job a front end started: it records */
        lab_mpi_relay_sink_init(&sink, stdout);
    struct lab_run_opts o = {.db = relayed ? NULL : cx->db,
                             .user_id = relayed ? 0 : lesson_session_user_id(cx->session),
                             .sinks = &sink,
                             .n_sinks = 1,
                             .cancel = &run_cancel,
                             .note_fd = &run_note_fd};
    double t0 = core_time_mono();
    int lrc = lab_run(&p, &o, &r, &e);
    double elapsed = core_time_mono() - t0;
    run_mpi_rank0 = 0;
    if (relayed) {
        lab_mpi_relay_sink_end(&sink, r.status, r.error);
        lab_mpi_relay_sink_fini(&sink);
        rc = lrc == 0 ? CLI_EXIT_OK : CLI_EXIT_LAB_FAILED;
        goto out;
    }
    clear_line(&t);
    if (lrc != 0 && !r.run_id && strcmp(r.status, "failed") == 0 && !r.error) {
        rc = cli_fail(&e); /* nothing ran: the store could not start the record */
        goto out;
    }

    if (cx->json) {
        /* the parameters as recorded (a file's n and d, MPI's workers) */
        struct lab_params rp;
        lab_params_resolve(&p, &rp);
        summary_json_line(&rp, &r, elapsed, t.note);
        lab_params_fini(&rp);
    } else {
        printf("%s: %s in %.2f s", lab->name, r.status, elapsed);
        if (r.run_id && r.n_recorded < r.n_samples)
            /* only what the store committed: the rest was measured, shown
             * and lost with the store's failure */
            printf(" — run %lld, %zu samples recorded (of %zu measured)\n", (long long)r.run_id,
                   r.n_recorded, r.n_samples);
        else if (r.run_id)
            printf(" — run %lld, %zu samples recorded\n", (long long)r.run_id, r.n_recorded);
        else
            printf(", %zu samples\n", r.n_samples);
        if (t.note[0])
            printf("  note: %s\n", cli_tx(t.note));
        if (r.error && lrc != CORE_ERR_CANCELLED)
            printf("  error: %s\n", cli_tx(r.error));
        print_figures(&r.summary);
        print_noise(lab, &r.summary, &sets);
        if (r.run_id && strcmp(r.status, "done") == 0)
            printf("questions linked to %s now use this run (see warpbench lab show %lld)\n",
                   lab->name, (long long)r.run_id);
    }
    fflush(stdout);
    if (lrc == 0)
        rc = CLI_EXIT_OK;
    else if (lrc == CORE_ERR_CANCELLED)
        rc = run_signal == SIGTERM || run_signal == SIGHUP || run_signal == SIGPIPE
                 ? 128 + run_signal
                 : CLI_EXIT_CANCELLED;
    else if (lrc == CORE_ERR_STORE)
        rc = CLI_EXIT_STORE;
    else
        rc = CLI_EXIT_LAB_FAILED;
out:
    if (handlers) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        sigaction(SIGPIPE, &old_pipe, NULL);
    }
    lab_result_fini(&r);
    lab_params_fini(&p);
    core_buf_fini(&t.line);
    core_strlist_fini(&sets);
    return rc;
}

/* ---- lab runs / lab show ------------------------------------------------- */

static double run_duration(const struct db_labrun *r)
{
    return core_time_from_iso(r->ended_at) - core_time_from_iso(r->started_at);
}

/* The run's key figure: the first one of its summary, as "key = value". */
static void key_figure(const struct db_labrun *r, char *buf, size_t size)
{
    buf[0] = '\0';
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (!r->summary_json || core_json_parse_flat(r->summary_json, &kv, &n, NULL) != 0)
        return;
    if (n > 0) {
        if (kv[0].is_num)
            snprintf(buf, size, "%s = %.4g", kv[0].key, kv[0].num);
        else
            snprintf(buf, size, "%s = %s", kv[0].key, kv[0].str ? kv[0].str : "");
    }
    core_kv_free(kv, n);
}

static int cmd_runs(struct cli_ctx *cx, const struct cli_command *cmd, struct cli_args *a)
{
    const char *lv = NULL;
    bool missing = false;
    int limit = 20;
    if (cli_take_flag(a, "--limit", true, &lv, &missing) || missing)
        if (missing || !cli_parse_int(lv, 1000000, &limit))
            return cli_usage(cmd, "--limit needs a number of runs");
    int rc = cli_begin(cx, cmd, a, 1, 2, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    const char *lab = a->argc > 1 ? a->argv[1] : NULL;
    struct core_err e = {0};
    struct db_labrun *runs = NULL;
    size_t n = 0;
    if (db_labrun_list(cx->db, lesson_session_user_id(cx->session), lab, (size_t)limit, &runs, &n,
                       &e) != 0)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_key(&j, "runs");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "run", (long long)runs[i].id);
            core_json_kstr(&j, "lab", runs[i].lab);
            core_json_kstr(&j, "status", runs[i].status);
            core_json_kstr(&j, "started_at", runs[i].started_at);
            core_json_kstr(&j, "ended_at", runs[i].ended_at);
            core_json_knum(&j, "duration_s", run_duration(&runs[i]));
            core_json_kstr(&j, "error", runs[i].error);
            char kf[160];
            key_figure(&runs[i], kf, sizeof kf);
            core_json_kstr(&j, "key_figure", kf);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else if (n == 0) {
        printf("no lab runs%s%s yet: try warpbench lab run selftest\n", lab ? " of " : "",
               lab ? cli_tx(lab) : "");
    } else {
        printf("%6s  %-12s %-10s %-20s %9s  %s\n", "run", "lab", "status", "started (UTC)",
               "duration", "key figure");
        for (size_t i = 0; i < n; i++) {
            char started[20] = "";
            if (runs[i].started_at)
                snprintf(started, sizeof started, "%.10s %.8s", runs[i].started_at,
                         strlen(runs[i].started_at) > 11 ? runs[i].started_at + 11 : "");
            char dur[24] = "-";
            double d = run_duration(&runs[i]);
            if (isfinite(d))
                snprintf(dur, sizeof dur, "%.1f s", d);
            char kf[160];
            key_figure(&runs[i], kf, sizeof kf);
            printf("%6lld  %-12s %-10s %-20s %9s  %s\n", (long long)runs[i].id, cli_tx(runs[i].lab),
                   runs[i].status, started, dur, cli_tx(kf));
        }
        if (n == (size_t)limit)
            printf("(the latest %d; --limit N shows more)\n", limit);
    }
    db_labruns_free(runs, n);
    return CLI_EXIT_OK;
}

/* Writes a stored flat JSON object back as a JSON value (or null). */
static void json_flat(struct core_json *j, const char *text)
{
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (!text || core_json_parse_flat(text, &kv, &n, NULL) != 0) {
        core_json_null(j);
        return;
    }
    core_json_obj_begin(j);
    for (size_t i = 0; i < n; i++) {
        if (kv[i].is_num)
            core_json_knum(j, kv[i].key, kv[i].num);
        else
            core_json_kstr(j, kv[i].key, kv[i].str);
    }
    core_json_obj_end(j);
    core_kv_free(kv, n);
}

static void print_flat(const char *title, const char *text)
{
    struct core_kv *kv = NULL;
    size_t n = 0;
    printf("%s:\n", title);
    if (!text || core_json_parse_flat(text, &kv, &n, NULL) != 0 || n == 0) {
        printf("  (none)\n");
        core_kv_free(kv, n);
        return;
    }
    size_t w = 8;
    for (size_t i = 0; i < n; i++)
        if (strlen(kv[i].key) > w)
            w = strlen(kv[i].key);
    for (size_t i = 0; i < n; i++) {
        if (kv[i].is_num)
            printf("  %-*s  %.10g\n", (int)w, cli_tx(kv[i].key), kv[i].num);
        else
            printf("  %-*s  %s\n", (int)w, cli_tx(kv[i].key), cli_tx(kv[i].str));
    }
    core_kv_free(kv, n);
}

static int cmd_show(struct cli_ctx *cx, const struct cli_command *cmd, struct cli_args *a)
{
    const char *series = NULL;
    bool missing = false;
    if (cli_take_flag(a, "--series", true, &series, &missing) && missing)
        return cli_usage(cmd, "--series needs a series name");
    int rc = cli_check_args(cmd, a, 2, 2);
    if (rc != 0)
        return rc;
    int id;
    if (!cli_parse_int(a->argv[1], 2147483647, &id))
        return cli_usage(cmd, "RUN is a run number (see warpbench lab runs), not \"%s\"",
                         cli_tx(a->argv[1]));
    rc = cli_open_session(cx);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct db_labrun r = {0};
    char **names = NULL;
    int64_t *counts = NULL;
    size_t n_series = 0, n_samples = 0;
    struct db_labsample *samples = NULL;
    if (db_labrun_get(cx->db, id, &r, &e) != 0 ||
        (r.user_id != lesson_session_user_id(cx->session) &&
         core_err_set(&e, CORE_ERR_NOTFOUND, "no lab run %d", id))) {
        rc = cli_fail(&e);
        goto out;
    }
    if (db_labrun_series(cx->db, r.id, &names, &counts, &n_series, &e) != 0 ||
        (series && db_labrun_samples_read(cx->db, r.id, series, &samples, &n_samples, &e) != 0)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "run", (long long)r.id);
        core_json_kstr(&j, "lab", r.lab);
        core_json_kstr(&j, "status", r.status);
        core_json_kstr(&j, "started_at", r.started_at);
        core_json_kstr(&j, "ended_at", r.ended_at);
        core_json_knum(&j, "duration_s", run_duration(&r));
        core_json_kstr(&j, "error", r.error);
        core_json_key(&j, "params");
        json_flat(&j, r.params_json);
        core_json_key(&j, "machine");
        json_flat(&j, r.machine_json);
        core_json_key(&j, "summary");
        json_flat(&j, r.summary_json);
        core_json_key(&j, "series");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n_series; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "name", names[i]);
            core_json_kint(&j, "samples", (long long)counts[i]);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        if (series) {
            core_json_key(&j, "samples");
            core_json_arr_begin(&j);
            for (size_t i = 0; i < n_samples; i++) {
                core_json_obj_begin(&j);
                core_json_kint(&j, "step", (long long)samples[i].step);
                core_json_knum(&j, "value", samples[i].value);
                core_json_knum(&j, "t", samples[i].t);
                core_json_obj_end(&j);
            }
            core_json_arr_end(&j);
        }
        cli_json_close(&b, &j);
    } else {
        printf("run %lld: %s — %s\n", (long long)r.id, cli_tx(r.lab), r.status);
        double d = run_duration(&r);
        printf("  started %s", r.started_at ? r.started_at : "?");
        if (r.ended_at)
            printf(", ended %s (%.2f s)", r.ended_at, d);
        printf("\n");
        if (r.error)
            printf("  why it stopped: %s\n", cli_tx(r.error));
        print_flat("parameters", r.params_json);
        print_flat("machine", r.machine_json);
        print_flat("summary", r.summary_json);
        printf("series:\n");
        if (n_series == 0)
            printf("  (no samples)\n");
        for (size_t i = 0; i < n_series; i++)
            printf("  %-20s %lld samples\n", cli_tx(names[i]), (long long)counts[i]);
        if (series) {
            printf("samples of %s:\n  %10s  %14s  %10s\n", cli_tx(series), "step", "value",
                   "t (s)");
            for (size_t i = 0; i < n_samples; i++)
                printf("  %10lld  %14.6g  %10.4f\n", (long long)samples[i].step, samples[i].value,
                       samples[i].t);
        }
    }
    rc = CLI_EXIT_OK;
out:
    for (size_t i = 0; i < n_series; i++)
        free(names[i]);
    free(names);
    free(counts);
    db_labsamples_free(samples, n_samples);
    db_labrun_fini(&r);
    return rc;
}

int cli_cmd_lab(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("lab");
    const char *sub = a->argc > 0 ? a->argv[0] : "";
    if (strcmp(sub, "list") == 0) {
        int rc = cli_check_args(cmd, a, 1, 1);
        return rc ? rc : cmd_list(cx);
    }
    if (strcmp(sub, "run") == 0)
        return cmd_run(cx, cmd, a);
    if (strcmp(sub, "runs") == 0)
        return cmd_runs(cx, cmd, a);
    if (strcmp(sub, "show") == 0)
        return cmd_show(cx, cmd, a);
    if (!*sub)
        return cli_usage(cmd, "which lab command: list, run, runs or show?");
    return cli_usage(cmd, "unknown lab command \"%s\"", cli_tx(sub));
}
