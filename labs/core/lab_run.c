/*
 * lab_run.c — running a lab: the run record in the store, the report
 * fan-out to the sinks, batched sample recording, the closing summary, and
 * the clean-up that leaves no child process or shared mapping behind.
 *
 * Samples reach every sink at once (in emit order) and are written to the
 * store in batches: one transaction per LAB_BATCH samples or per
 * LAB_FLUSH_S seconds, whichever comes first, and once more at the end, so
 * recording costs the lab little and a crash loses at most one batch.
 * A store that fails during the run stops the lab (lab_cancelled() turns
 * true) and the run ends "failed" with the store's message.
 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"
#include "labs/core/lab_noise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAB_BATCH 256
#define LAB_FLUSH_S 0.25

struct lab_ctx {
    const struct lab_params *p;
    const struct lab_run_opts *o;
    struct lab_machine machine;
    const struct core_clock *clock;
    struct lab_procs procs;
    double t0;

    /* Series names emitted that are not among the lab's declared ones,
     * owned here so batched samples can point at them. */
    char **extra_series;
    size_t n_extra;

    struct core_sample *batch;
    size_t n_batch;
    double last_flush;
    size_t n_samples;
    size_t n_recorded; /* committed in the store */

    struct lab_summary summary;

    /* noise: repeated measurements, and the CPUs at the start */
    struct lab_repeats *repeats;
    struct lab_cpu_sample cpu_start;

    int64_t run_id; /* 0: not recorded */
    bool store_failed;
    struct core_err store_err;
};

/* ---- summary ------------------------------------------------------------- */

void lab_summary_fini(struct lab_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].key);
        free(s->v[i].label);
        free(s->v[i].unit);
        free(s->v[i].str);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

void lab_summary_json(const struct lab_summary *s, struct core_json *j)
{
    core_json_obj_begin(j);
    for (size_t i = 0; i < s->n; i++) {
        core_json_key(j, s->v[i].key);
        if (s->v[i].str)
            core_json_str(j, s->v[i].str);
        else
            core_json_num(j, s->v[i].num);
    }
    core_json_obj_end(j);
}

const struct lab_figure *lab_summary_find(const struct lab_summary *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return &s->v[i];
    return NULL;
}

/* The figure named key, added at the end when new (a figure set twice keeps
 * its first place and takes the new value). */
static struct lab_figure *figure_slot(struct lab_summary *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0) {
            free(s->v[i].label);
            free(s->v[i].unit);
            free(s->v[i].str);
            s->v[i].label = s->v[i].unit = s->v[i].str = NULL;
            return &s->v[i];
        }
    s->v = core_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    struct lab_figure *f = &s->v[s->n++];
    memset(f, 0, sizeof *f);
    f->key = core_xstrdup(key);
    return f;
}

void lab_result_fini(struct lab_result *r)
{
    if (!r)
        return;
    lab_summary_fini(&r->summary);
    free(r->error);
    memset(r, 0, sizeof *r);
}

/* ---- recording ----------------------------------------------------------- */

/* Writes the pending samples to the store. A failure is kept: the lab is
 * told to stop (lab_cancelled) and the run ends "failed". */
static void flush(struct lab_ctx *cx)
{
    if (cx->n_batch == 0)
        return;
    if (cx->run_id && !cx->store_failed) {
        if (db_labrun_samples(cx->o->db, cx->run_id, cx->batch, cx->n_batch, &cx->store_err) != 0)
            cx->store_failed = true; /* the batch was rolled back: not counted */
        else
            cx->n_recorded += cx->n_batch;
    }
    cx->n_batch = 0;
    cx->last_flush = cx->clock->now(cx->clock->ctx);
}

/* A series name that outlives the call: the lab's declared name when it is
 * one, else an owned copy kept for the run. */
static const char *series_name(struct lab_ctx *cx, const char *series)
{
    const struct lab_def *lab = cx->p->lab;
    for (size_t i = 0; i < lab->n_series; i++)
        if (strcmp(lab->series[i].name, series) == 0)
            return lab->series[i].name;
    for (size_t i = 0; i < cx->n_extra; i++)
        if (strcmp(cx->extra_series[i], series) == 0)
            return cx->extra_series[i];
    cx->extra_series = core_xrealloc(cx->extra_series, (cx->n_extra + 1) * sizeof(char *));
    return cx->extra_series[cx->n_extra++] = core_xstrdup(series);
}

static void machine_json(const struct lab_machine *m, char **out)
{
    struct core_buf b;
    struct core_json j;
    core_buf_init(&b);
    core_json_init(&j, &b);
    lab_machine_json(m, &j);
    *out = core_buf_steal(&b);
}

/* ---- reporting, for labs ------------------------------------------------- */

void lab_emit(struct lab_ctx *cx, const char *series, int64_t step, double value)
{
    if (!series || !*series)
        return;
    double now = cx->clock->now(cx->clock->ctx);
    struct core_sample s = {series_name(cx, series), (long long)step, value, now - cx->t0};
    for (size_t i = 0; i < cx->o->n_sinks; i++)
        if (cx->o->sinks[i].sample)
            cx->o->sinks[i].sample(cx->o->sinks[i].ud, &s);
    cx->n_samples++;
    if (!cx->run_id)
        return;
    cx->batch[cx->n_batch++] = s;
    if (cx->n_batch == LAB_BATCH || now - cx->last_flush >= LAB_FLUSH_S)
        flush(cx);
}

static void send_log(struct lab_ctx *cx, enum lab_log_level level, const char *line)
{
    for (size_t i = 0; i < cx->o->n_sinks; i++)
        if (cx->o->sinks[i].log)
            cx->o->sinks[i].log(cx->o->sinks[i].ud, level, line);
}

void lab_log(struct lab_ctx *cx, enum lab_log_level level, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    send_log(cx, level, line);
}

void lab_progress(struct lab_ctx *cx, double fraction, const char *what)
{
    if (!(fraction >= 0))
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    for (size_t i = 0; i < cx->o->n_sinks; i++)
        if (cx->o->sinks[i].progress)
            cx->o->sinks[i].progress(cx->o->sinks[i].ud, fraction, what ? what : "");
}

void lab_figure_num(struct lab_ctx *cx, const char *key, double v, const char *unit,
                    const char *label)
{
    struct lab_figure *f = figure_slot(&cx->summary, key);
    f->num = v;
    f->unit = core_xstrdup(unit ? unit : "");
    f->label = core_xstrdup(label ? label : key);
}

void lab_figure_str(struct lab_ctx *cx, const char *key, const char *s, const char *label)
{
    struct lab_figure *f = figure_slot(&cx->summary, key);
    f->num = NAN;
    f->str = core_xstrdup(s ? s : "");
    f->unit = core_xstrdup("");
    f->label = core_xstrdup(label ? label : key);
}

void lab_repeat(struct lab_ctx *cx, const char *what, const char *unit, double value)
{
    lab_repeats_add(cx->repeats, what, unit, value);
}

void lab_repeat_range(struct lab_ctx *cx, const char *what, const char *unit, double min,
                      double median, double max, int n)
{
    lab_repeats_range(cx->repeats, what, unit, min, median, max, n);
}

/* The noise figures (lab.h): how busy the machine was since cpu_start and
 * the widest spread of the repeated measurements. */
static void noise_figures(struct lab_ctx *cx)
{
    struct lab_cpu_sample end;
    lab_cpu_sample_take(&end);
    struct lab_noise n = {0};
    long hz = sysconf(_SC_CLK_TCK);
    lab_noise_cpu(&cx->cpu_start, &end, hz > 0 ? (double)hz : 100.0, &n);
    double la[1];
    n.loadavg = getloadavg(la, 1) == 1 ? la[0] : NAN;
    n.cores = cx->machine.cores_online;
    n.cpus = end.cpus > 0 ? end.cpus : n.cores;
    lab_repeats_widest(cx->repeats, &n);
    lab_noise_assess(&n);
    lab_figure_num(cx, "noisy", n.noisy ? 1 : 0, "yes/no",
                   "measured under load or with a wide spread");
    lab_figure_str(cx, "noise", n.text, "noise");
    if (isfinite(n.other_cpu))
        lab_figure_num(cx, "load_other_pct", 100 * n.other_cpu, "%",
                       "CPU used by other programs during the run");
    if (isfinite(n.loadavg))
        lab_figure_num(cx, "load_avg", n.loadavg, "", "load average (1 minute) at the end");
    lab_figure_num(cx, "load_cpus", n.cpus, "", "CPUs the run could use");
    if (isfinite(n.steal))
        lab_figure_num(cx, "steal_pct", 100 * n.steal, "%", "CPU stolen by the hypervisor");
    if (isfinite(n.spread)) {
        lab_figure_num(cx, "spread_pct", 100 * n.spread, "%",
                       "widest spread of a repeated measurement (of its median)");
        char what[256];
        snprintf(what, sizeof what, "%s: %.4g / %.4g / %.4g%s%s (%s / median / %s of %d)",
                 n.spread_what, n.spread_min, n.spread_med, n.spread_max,
                 n.spread_unit[0] ? " " : "", n.spread_unit, n.spread_trimmed ? "p10" : "min",
                 n.spread_trimmed ? "p90" : "max", n.spread_n);
        lab_figure_str(cx, "spread_of", what, "widest spread");
    }
}

bool lab_cancelled(const struct lab_ctx *cx)
{
    return cx->store_failed || (cx->o->cancel && atomic_load(cx->o->cancel) != 0);
}

const struct lab_params *lab_ctx_params(const struct lab_ctx *cx)
{
    return cx->p;
}

const struct lab_machine *lab_ctx_machine(const struct lab_ctx *cx)
{
    return &cx->machine;
}

const struct core_clock *lab_ctx_clock(const struct lab_ctx *cx)
{
    return cx->clock;
}

const struct lab_proc_ops *lab_ctx_proc(const struct lab_ctx *cx)
{
    return cx->procs.ops;
}

struct lab_procs *lab_ctx_procs(struct lab_ctx *cx)
{
    return &cx->procs;
}

atomic_int *lab_ctx_cancel_flag(struct lab_ctx *cx)
{
    return cx->o->cancel;
}

const void *lab_ctx_arg(const struct lab_ctx *cx)
{
    return cx->o->arg;
}

double lab_ctx_elapsed(const struct lab_ctx *cx)
{
    return cx->clock->now(cx->clock->ctx) - cx->t0;
}

void lab_ctx_set_hosts(struct lab_ctx *cx, int n_hosts, const char *hosts, const char *interconnect)
{
    cx->machine.n_hosts = n_hosts;
    snprintf(cx->machine.hosts, sizeof cx->machine.hosts, "%s", hosts ? hosts : "");
    snprintf(cx->machine.interconnect, sizeof cx->machine.interconnect, "%s",
             interconnect ? interconnect : "");
    lab_mpi_relay_note_hosts(&cx->machine); /* rank 0 of a relayed job: to the front end */
    if (!cx->run_id || cx->store_failed)
        return;
    char *mj = NULL;
    machine_json(&cx->machine, &mj);
    if (db_labrun_set_machine(cx->o->db, cx->run_id, mj, &cx->store_err) != 0)
        cx->store_failed = true;
    free(mj);
}

bool lab_sleep(struct lab_ctx *cx, double secs)
{
    /* Short slices, so a cancel is seen within LAB_CANCEL_SLICE_S. */
    double end = cx->clock->now(cx->clock->ctx) + secs;
    for (;;) {
        if (lab_cancelled(cx))
            return false;
        double left = end - cx->clock->now(cx->clock->ctx);
        if (left <= 0)
            return true;
        cx->clock->sleep(cx->clock->ctx, left < 0.05 ? left : 0.05);
    }
}

/* ---- running ------------------------------------------------------------- */

static void params_json(const struct lab_params *p, char **out)
{
    struct core_buf b;
    struct core_json j;
    core_buf_init(&b);
    core_json_init(&j, &b);
    lab_params_json(p, &j);
    *out = core_buf_steal(&b);
}

int lab_run(const struct lab_params *p, const struct lab_run_opts *o, struct lab_result *out,
            struct core_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->status, sizeof out->status, "failed");
    if (!p || !p->lab || !p->lab->run)
        return core_err_set(err, CORE_ERR_INTERNAL, "lab_run: no lab to run");
    static const struct lab_run_opts no_opts = {0};
    if (!o)
        o = &no_opts;
    /* a run over MPI: `workers` as the ranks give it; a run from a file:
     * what the file holds (lab_def.resolve). Recorded so. */
    struct lab_params resolved;
    lab_params_resolve(p, &resolved);
    p = &resolved;

    struct lab_ctx *cx = core_xcalloc(1, sizeof *cx);
    char *pj = NULL, *mj = NULL;
    int rc = 0;
    cx->p = p;
    cx->o = o;
    cx->clock = o->clock ? o->clock : core_clock_real();
    if (o->machine)
        cx->machine = *o->machine;
    else
        lab_machine_probe(&cx->machine);
    lab_procs_init(&cx->procs, o->proc ? o->proc : &lab_proc_real);

    if (o->db) {
        params_json(p, &pj);
        machine_json(&cx->machine, &mj);
        rc = db_labrun_begin(o->db, o->user_id, p->lab->name, pj, mj, &cx->run_id, err);
        if (rc != 0)
            goto out;
        cx->batch = core_xcalloc(LAB_BATCH, sizeof *cx->batch);
        if (o->note_fd)
            *o->note_fd = db_labrun_note_fd(o->db, cx->run_id);
    }
    cx->repeats = lab_repeats_new();
    lab_cpu_sample_take(&cx->cpu_start);
    cx->t0 = cx->clock->now(cx->clock->ctx);
    cx->last_flush = cx->t0;

    struct core_err lerr = {0};
    int lrc = p->lab->run(cx, &lerr);

    /* Whatever the lab left running or mapped goes now, before the run is
     * closed, so "cancelled" in the store means nothing is left behind. */
    lab_procs_fini(&cx->procs);
    flush(cx);
    noise_figures(cx); /* after the reaping: the workers' CPU time is ours */

    const char *status;
    bool asked = o->cancel && atomic_load(o->cancel) != 0;
    if (cx->store_failed) {
        /* Whatever SQLite called it (a full disk is an I/O error there),
         * the store failed: CORE_ERR_STORE, so front ends say so. */
        status = "failed";
        lerr = cx->store_err;
        lerr.code = lrc = CORE_ERR_STORE;
        core_err_prefix(&lerr, "recording the run");
    } else if (lrc == 0) {
        status = "done";
    } else if (lrc == CORE_ERR_CANCELLED || asked) {
        /* A cancel asked for while the lab failed is still a cancel: a
         * signal sent to the whole process group (SIGTERM, a terminal's
         * SIGHUP) also kills the workers, and the lab may see one die before
         * it sees the flag. */
        status = "cancelled";
        double secs = cx->clock->now(cx->clock->ctx) - cx->t0;
        if (lrc != CORE_ERR_CANCELLED && lerr.msg[0]) {
            char why[sizeof lerr.msg];
            snprintf(why, sizeof why, "%s", lerr.msg);
            core_err_set(&lerr, CORE_ERR_CANCELLED, "cancelled after %.1f s (meanwhile: %s)", secs,
                         why);
        } else if (!lerr.msg[0] || strcmp(lerr.msg, "cancelled") == 0) {
            core_err_set(&lerr, CORE_ERR_CANCELLED, "cancelled after %.1f s", secs);
        }
        lerr.code = lrc = CORE_ERR_CANCELLED;
    } else {
        status = "failed";
        if (!lerr.msg[0])
            core_err_set(&lerr, lrc, "the lab failed (%s)", core_code_name(lrc));
    }
    if (lrc != 0)
        send_log(cx, lrc == CORE_ERR_CANCELLED ? LAB_LOG_WARN : LAB_LOG_ERROR, lerr.msg);
    for (size_t i = 0; i < o->n_sinks; i++)
        if (o->sinks[i].summary)
            o->sinks[i].summary(o->sinks[i].ud, &cx->summary);

    if (cx->run_id) {
        struct core_buf b;
        struct core_json j;
        core_buf_init(&b);
        core_json_init(&j, &b);
        lab_summary_json(&cx->summary, &j);
        struct core_err e2 = {0};
        if (o->note_fd) /* from here on the run is closed here, not by a note */
            *o->note_fd = -1;
        /* The end is recorded even when the store failed mid-run: a closed
         * "failed" run is better than one left "running" (a full disk gets
         * the space set aside at the start; see db_labrun_finish). */
        if (db_labrun_finish(o->db, cx->run_id, status, b.data, lrc ? lerr.msg : NULL, &e2) != 0 &&
            lrc == 0) {
            lerr = e2;
            lerr.code = lrc = CORE_ERR_STORE;
            core_err_prefix(&lerr, "recording the run");
            status = "failed";
        }
        core_buf_fini(&b);
    }

    snprintf(out->status, sizeof out->status, "%s", status);
    out->run_id = cx->run_id;
    out->n_samples = cx->n_samples;
    out->n_recorded = cx->n_recorded;
    out->summary = cx->summary;
    memset(&cx->summary, 0, sizeof cx->summary);
    if (lrc != 0)
        out->error = core_xstrdup(lerr.msg);
    rc = lrc;
    if (rc != 0 && err)
        *err = lerr;
out:
    lab_procs_fini(&cx->procs);
    lab_summary_fini(&cx->summary);
    lab_repeats_free(cx->repeats);
    for (size_t i = 0; i < cx->n_extra; i++)
        free(cx->extra_series[i]);
    free(cx->extra_series);
    free(cx->batch);
    free(cx);
    free(pj);
    free(mj);
    lab_params_fini(&resolved);
    return rc;
}

void lab_params_resolve(const struct lab_params *in, struct lab_params *out)
{
    lab_mpi_params_resolve(in, out); /* a copy, with MPI's workers */
    if (in->lab->resolve)
        in->lab->resolve(out);
}
