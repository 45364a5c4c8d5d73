/*
 * tui_screen_lab_live.c — a lab run on a thread of its own, for the lab
 * screen: the only pthread code of the TUI.
 *
 * The lab runs with its own store handle (a sqlite handle is not shared
 * across threads). Its sink appends to a mutex-protected `struct
 * tui_lab_live` (a snapshot series, lab_def.snapshot, keeps the latest
 * value per step instead); the UI thread copies what is new into the
 * screen's model on each 10 Hz tick (tui_lab_live_sync), so drawing never
 * waits for the lab. Cancelling sets the run's atomic flag; joining waits
 * for the thread, and lab_run() has then reaped every child process.
 */
#include "labs/lab.h"
#include "tui/tui_screen.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_KEEP 200

/* What the lab thread shares with the UI thread; everything below `mu` is
 * guarded by it. */
struct tui_lab_live {
    pthread_mutex_t mu;
    atomic_int cancel;
    const struct lab_params *params; /* read-only while running */
    const char *db_path;
    int64_t user_id;
    unsigned version;
    struct tui_lab_series *series;
    size_t n_series;
    char *logs[LOG_KEEP];
    size_t n_logs;
    unsigned long logs_total; /* lines ever logged */
    double progress;
    char what[128];
    struct tui_lab_fig *figs;
    size_t n_figs;
    char *note;  /* the first LAB_LOG_NOTE */
    char *noise; /* the summary's "noise" when its "noisy" is 1 */
    bool finished;
    int rc;
    long long run_id;
    char status[16];
    char error[CORE_ERR_MSG];
    /* The UI thread's own, outside the lock: */
    pthread_t thread;
    bool joined;   /* the thread was joined (or never started) */
    unsigned seen; /* the version last copied into the model */
};

static struct tui_lab_series *live_series(struct tui_lab_live *lv, const char *name)
{
    for (size_t i = 0; i < lv->n_series; i++)
        if (strcmp(lv->series[i].name, name) == 0)
            return &lv->series[i];
    /* A series the definition did not list: a chart of its own. */
    lv->series = core_xrealloc(lv->series, (lv->n_series + 1) * sizeof *lv->series);
    struct tui_lab_series *s = &lv->series[lv->n_series++];
    *s = (struct tui_lab_series){.name = core_xstrdup(name),
                                 .label = core_xstrdup(name),
                                 .unit = core_xstrdup(""),
                                 .chart = core_xstrdup(name),
                                 .x_label = core_xstrdup("step")};
    return s;
}

static void sink_sample(void *ud, const struct core_sample *smp)
{
    struct tui_lab_live *lv = ud;
    pthread_mutex_lock(&lv->mu);
    tui_lab_series_add(live_series(lv, smp->series), (double)smp->step, smp->value);
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void live_log(struct tui_lab_live *lv, const char *line)
{
    if (lv->n_logs == LOG_KEEP) {
        free(lv->logs[0]);
        memmove(lv->logs, lv->logs + 1, (LOG_KEEP - 1) * sizeof *lv->logs);
        lv->n_logs--;
    }
    lv->logs[lv->n_logs++] = core_xstrdup(line);
    lv->logs_total++;
    lv->version++;
}

static void sink_log(void *ud, enum lab_log_level level, const char *line)
{
    struct tui_lab_live *lv = ud;
    char *l = core_xasprintf("%s%s",
                             level == LAB_LOG_ERROR                           ? "error: "
                             : level == LAB_LOG_WARN || level == LAB_LOG_NOTE ? "warning: "
                                                                              : "",
                             line);
    pthread_mutex_lock(&lv->mu);
    live_log(lv, l);
    if (level == LAB_LOG_NOTE && !lv->note)
        lv->note = core_xstrdup(line);
    pthread_mutex_unlock(&lv->mu);
    free(l);
}

static void sink_progress(void *ud, double fraction, const char *what)
{
    struct tui_lab_live *lv = ud;
    pthread_mutex_lock(&lv->mu);
    lv->progress = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    snprintf(lv->what, sizeof lv->what, "%s", what ? what : "");
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void sink_summary(void *ud, const struct lab_summary *s)
{
    struct tui_lab_live *lv = ud;
    struct tui_lab_fig *f = core_xcalloc(s->n ? s->n : 1, sizeof *f);
    for (size_t i = 0; i < s->n; i++) {
        const struct lab_figure *g = &s->v[i];
        f[i].label = core_xstrdup(g->label && g->label[0] ? g->label : g->key);
        if (g->str) {
            f[i].value = core_xstrdup(g->str);
        } else {
            char v[64];
            tui_num_format(g->num, g->unit, v, sizeof v);
            f[i].value = core_xstrdup(v);
        }
    }
    const struct lab_figure *noisy = lab_summary_find(s, "noisy");
    const struct lab_figure *noise = lab_summary_find(s, "noise");
    pthread_mutex_lock(&lv->mu);
    tui_lab_figs_free(lv->figs, lv->n_figs);
    lv->figs = f;
    lv->n_figs = s->n;
    free(lv->noise);
    lv->noise = noisy && noisy->num == 1 && noise && noise->str ? core_xstrdup(noise->str) : NULL;
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void *lab_thread(void *arg)
{
    struct tui_lab_live *lv = arg;
    struct core_err e = {0};
    struct db *db = NULL;
    struct lab_result res = {0};
    int rc = db_open(&db, lv->db_path, &e);
    if (rc == CORE_OK) {
        struct lab_sink sink = {sink_sample, sink_log, sink_progress, sink_summary, lv};
        struct lab_run_opts o = {
            .db = db, .user_id = lv->user_id, .sinks = &sink, .n_sinks = 1, .cancel = &lv->cancel};
        rc = lab_run(lv->params, &o, &res, &e);
    }
    pthread_mutex_lock(&lv->mu);
    lv->finished = true;
    lv->rc = rc;
    snprintf(lv->status, sizeof lv->status, "%s",
             res.status[0]              ? res.status
             : rc == CORE_ERR_CANCELLED ? "cancelled"
                                        : "failed");
    const char *why = res.error ? res.error : rc ? e.msg : "";
    core_err_fit(why, strlen(why), lv->error, sizeof lv->error); /* long paths shortened */
    lv->run_id = res.run_id;
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
    lab_result_fini(&res);
    db_close(db);
    return NULL;
}

void tui_lab_live_free(struct tui_lab_live *lv)
{
    if (!lv)
        return;
    if (!lv->joined) {
        atomic_store(&lv->cancel, 1);
        pthread_join(lv->thread, NULL);
    }
    tui_lab_series_free(lv->series, lv->n_series);
    for (size_t i = 0; i < lv->n_logs; i++)
        free(lv->logs[i]);
    tui_lab_figs_free(lv->figs, lv->n_figs);
    free(lv->note);
    free(lv->noise);
    pthread_mutex_destroy(&lv->mu);
    free(lv);
}

struct tui_lab_live *tui_lab_live_start(const struct lab_def *def, const struct lab_params *params,
                                        const char *db_path, int64_t user_id)
{
    struct tui_lab_live *lv = core_xcalloc(1, sizeof *lv);
    pthread_mutex_init(&lv->mu, NULL);
    atomic_init(&lv->cancel, 0);
    lv->params = params;
    lv->db_path = db_path;
    lv->user_id = user_id;
    lv->joined = true;
    /* The definition's series first, so charts keep their order. */
    for (size_t i = 0; i < def->n_series; i++) {
        const struct lab_series_def *d = &def->series[i];
        struct tui_lab_series *s = live_series(lv, d->name);
        free(s->label);
        free(s->unit);
        free(s->chart);
        free(s->x_label);
        s->label = core_xstrdup(d->label ? d->label : d->name);
        s->unit = core_xstrdup(d->unit ? d->unit : "");
        s->chart = core_xstrdup(d->chart ? d->chart : d->name);
        s->x_label = core_xstrdup(d->x_label ? d->x_label : "step");
        s->snapshot = lab_series_snapshot(def, d->name);
        const struct lab_chart_def *cd = lab_chart_find(def, s->chart);
        free(s->chart_title);
        s->chart_title = cd && cd->title ? core_xstrdup(cd->title) : NULL;
        s->x_log = cd && cd->x_log;
    }
    /* The lab thread must not take the terminal's signals (resize, Ctrl-C
     * from outside, SIGTERM): block them there, so they reach this thread. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&lv->thread, NULL, lab_thread, lv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        tui_lab_live_free(lv);
        return NULL;
    }
    lv->joined = false;
    return lv;
}

bool tui_lab_live_sync(struct tui_lab_live *lv, struct tui_lab_model *m)
{
    pthread_mutex_lock(&lv->mu);
    if (lv->version != lv->seen) {
        lv->seen = lv->version;
        for (size_t i = m->n_series; i < lv->n_series; i++)
            tui_lab_model_add_series(m, &lv->series[i]);
        for (size_t i = 0; i < lv->n_series; i++)
            tui_lab_series_sync(&m->series[i], &lv->series[i]);
        tui_lab_model_set_logs(m, lv->logs, lv->n_logs);
        m->progress = lv->progress;
        free(m->progress_what);
        m->progress_what = core_xstrdup(lv->what);
        if (lv->note && !m->note)
            m->note = core_xstrdup(lv->note);
        free(m->noise);
        m->noise = lv->noise ? core_xstrdup(lv->noise) : NULL;
        m->run_id = lv->run_id;
        if (lv->n_figs != m->n_figs || lv->finished)
            tui_lab_model_set_figs(m, lv->figs, lv->n_figs);
    }
    bool finished = lv->finished;
    pthread_mutex_unlock(&lv->mu);
    return finished;
}

void tui_lab_live_cancel(struct tui_lab_live *lv)
{
    atomic_store(&lv->cancel, 1);
}

void tui_lab_live_join(struct tui_lab_live *lv, struct tui_lab_model *m)
{
    if (!lv->joined) {
        pthread_join(lv->thread, NULL);
        lv->joined = true;
    }
    lv->seen = lv->version - 1; /* force a last copy */
    tui_lab_live_sync(lv, m);
    free(m->status);
    if (strcmp(lv->status, "done") == 0)
        m->status = core_xstrdup("done");
    else if (strcmp(lv->status, "cancelled") == 0)
        m->status = core_xstrdup("cancelled");
    else
        m->status = core_xasprintf("failed: %s", lv->error);
}
