/*
 * lab_ps_server.c — one server shard of the parameter-server lab: a process
 * that owns the keys [lo, hi) of the model, answers pulls with its weights
 * and applies pushed gradients, in one of three consistency modes.
 *
 * Threads: one per worker connection (each blocks in lab_net_recv on its worker,
 * so every connection's emulated link runs on its own, as the course's
 * model has it), and the main thread on the master's control channel
 * (checkpoints, statistics every 250 ms, the final weights, exit). Shared
 * state is guarded by one mutex; a condition variable wakes the waiters.
 *
 * sync: pushes of step t are summed in worker order 0, 1, 2, ... (a
 * turnstile: a worker whose turn has not come waits with its message), then
 * w -= lr / n * sum once all n live workers pushed, and pulls of step t + 1
 * are answered. The fixed order makes the result the same bits as the
 * single-process reference. A worker silent for cfg.sync_timeout_ms while
 * the others wait is dropped (its connection shut down) and the master told,
 * so a hung worker cannot stop training.
 * async: each push is applied on arrival, w -= lr / W * g (one round of W
 * pushes moves the weights as far as one sync step); pulls are answered at
 * once with a copy taken under the lock.
 * ssp: as async, but a pull of step t waits while t minus the slowest live
 * worker's clock (steps pushed) is more than the staleness bound.
 *
 * A shard started with `restored` (after the first one died) begins from the
 * master's checkpoint; each worker first says HELLO with the last step it
 * pushed here. In sync the shard waits for every live worker, collects step
 * V = min(last + 1) and workers that had pushed step V to the dead shard
 * push it again; the other modes go on at once.
 *
 * The shard kills itself (SIGKILL) at cfg.kill_server_step when it is
 * cfg.kill_server and was not restored: a real death for the fault test.
 * Likewise it stops itself (SIGSTOP, every thread) at cfg.stop_server_step
 * when it is cfg.stop_server: a real hang; the master notices that its
 * statistics (every 250 ms) stopped coming and ends it after the hang
 * timeout.
 */
#include "labs/paramserver/lab_ps.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct srv;

struct srv_conn {
    struct srv *sv;
    int w;
    struct lab_net_conn c;
    pthread_t th;
    bool started;
    float *snap;    /* async/ssp: the weights sent to this worker */
    float *scratch; /* async/ssp: a decoded compressed push */
    _Atomic uint64_t bytes_in, bytes_out;
    _Atomic uint64_t wire_ns;
};

struct srv {
    const struct ps_cfg *c;
    const struct ps_child *ch;
    int shard;
    int64_t lo, hi;
    size_t n;
    struct lab_net_conn ctl;
    pthread_mutex_t ctl_mu; /* sends on ctl come from every thread */
    double shared_free_at;  /* server_nic=shared: the one outgoing link */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    float *w;
    float *sum;      /* sync: the step being collected */
    int64_t version; /* sync: steps applied; else updates applied */
    int64_t updates;
    bool live[PS_MAX_WORKERS];
    bool finished[PS_MAX_WORKERS];
    bool pushed[PS_MAX_WORKERS];  /* sync: its push of the step being collected is added */
    bool arrived[PS_MAX_WORKERS]; /* sync: ... has arrived (it may wait for its turn) */
    int n_added;
    int64_t clock[PS_MAX_WORKERS]; /* steps pushed here */
    double step_open_at;           /* sync: when the first push of the step arrived */
    /* restored shard */
    bool hello[PS_MAX_WORKERS];
    int64_t hello_last[PS_MAX_WORKERS];
    int64_t dropped[PS_MAX_WORKERS]; /* step + 1 a worker was dropped at, until reported */
    double dropped_after;
    bool welcome_known;
    int64_t welcome_v;
    bool dying;    /* the fault test: the control thread kills the process */
    bool stopping; /* ... or stops it (SIGSTOP); the connections park meanwhile */
    bool stopped;  /* it did so once already */
    int wake_fd;   /* eventfd: a checkpoint is due, or death */
    /* checkpoints */
    float *ckpt, *ckpt_send;
    int64_t ckpt_step;
    bool ckpt_pending;
    int64_t next_ckpt;

    struct srv_conn conn[PS_MAX_WORKERS];
};

static void srv_log(struct srv *sv, int level, int worker, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void srv_log(struct srv *sv, int level, int worker, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&sv->ctl_mu);
    lab_ps_child_log(&sv->ctl, level, worker, "shard %d: %s", sv->shard + 1, line);
    pthread_mutex_unlock(&sv->ctl_mu);
}

/* ---- state under sv->mu ------------------------------------------------------ */

static bool active(const struct srv *sv, int w)
{
    return sv->live[w] && !sv->finished[w];
}

/* The slowest active worker's clock; INT64_MAX when none is active. */
static int64_t min_clock(const struct srv *sv)
{
    int64_t m = INT64_MAX;
    for (int w = 0; w < sv->c->workers; w++)
        if (active(sv, w) && sv->clock[w] < m)
            m = sv->clock[w];
    return m;
}

/* sync: the worker whose turn it is to add its push (the lowest active one
 * that has not), or -1 when every active worker has. */
static int next_turn(const struct srv *sv)
{
    for (int w = 0; w < sv->c->workers; w++)
        if (active(sv, w) && !sv->pushed[w])
            return w;
    return -1;
}

/* The step (sync) or slowest clock (async, ssp) checkpoints and the kill
 * are counted in. */
static int64_t progress_mark(const struct srv *sv)
{
    if (sv->c->mode == PS_SYNC)
        return sv->version;
    int64_t m = min_clock(sv);
    return m == INT64_MAX ? sv->version : m;
}

/* After an update: take a checkpoint when one is due, and die when this is
 * the shard the fault test kills. */
static void after_update(struct srv *sv)
{
    const struct ps_cfg *c = sv->c;
    int64_t mark = progress_mark(sv);
    if (c->checkpoint_every > 0 && mark >= sv->next_ckpt) {
        memcpy(sv->ckpt, sv->w, sv->n * sizeof *sv->w);
        sv->ckpt_step = mark;
        sv->ckpt_pending = true;
        sv->next_ckpt = (mark / c->checkpoint_every + 1) * c->checkpoint_every;
    }
    if (!sv->ch->restored && c->kill_server == sv->shard && mark >= c->kill_server_step)
        sv->dying = true;
    if (!sv->ch->restored && c->stop_server == sv->shard && mark >= c->stop_server_step &&
        !sv->stopped)
        sv->stopping = true;
    if (sv->ckpt_pending || sv->dying || sv->stopping) {
        uint64_t one = 1;
        if (write(sv->wake_fd, &one, sizeof one) < 0) {
            /* a full counter still wakes the control thread */
        }
    }
}

static void srv_wait(struct srv *sv);

/* The fault test's death (or hang): the control thread sends what
 * checkpoint is due and raises SIGKILL (SIGSTOP); the thread that noticed
 * stops serving meanwhile (in sync no step completes without its worker),
 * so the shard dies or hangs at the step asked for, not a few steps later.
 * Called without the lock. */
static void park_if_dying(struct srv *sv)
{
    pthread_mutex_lock(&sv->mu);
    while (sv->dying || sv->stopping)
        srv_wait(sv);
    pthread_mutex_unlock(&sv->mu);
}

/* sync: applies the step when every active worker has pushed it. */
static void sync_try_apply(struct srv *sv)
{
    if (sv->n_added == 0 || next_turn(sv) >= 0)
        return;
    lab_ps_model_apply(sv->w, sv->sum, sv->n, (float)(sv->c->lr / sv->n_added));
    memset(sv->sum, 0, sv->n * sizeof *sv->sum);
    memset(sv->pushed, 0, sizeof sv->pushed);
    memset(sv->arrived, 0, sizeof sv->arrived);
    sv->updates += sv->n_added;
    sv->n_added = 0;
    sv->version++;
    sv->step_open_at = 0;
    after_update(sv);
}

/* A worker leaves: it died, was dropped, or finished. */
static void srv_drop(struct srv *sv, int w, bool finished)
{
    if (finished)
        sv->finished[w] = true;
    else
        sv->live[w] = false;
    if (sv->c->mode == PS_SYNC)
        sync_try_apply(sv);
    pthread_cond_broadcast(&sv->cv);
}

/* sync: drops the workers that have not pushed the open step within the
 * time limit (called by a waiting thread, under the lock). */
static void sync_check_timeout(struct srv *sv)
{
    if (sv->step_open_at <= 0 || sv->c->sync_timeout_ms <= 0)
        return;
    double late = core_time_mono() - sv->step_open_at;
    if (late * 1000 < sv->c->sync_timeout_ms)
        return;
    for (int w = 0; w < sv->c->workers; w++) {
        if (!active(sv, w) || sv->arrived[w])
            continue;
        sv->live[w] = false;
        lab_net_conn_shutdown(&sv->conn[w].c); /* its thread sees the end at once */
        sv->dropped[w] = sv->version + 1;      /* the control thread tells the master */
        sv->dropped_after = late;
    }
    sync_try_apply(sv);
    pthread_cond_broadcast(&sv->cv);
}

/* Waits on the condition for at most 50 ms. */
static void srv_wait(struct srv *sv)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&sv->cv, &sv->mu, &ts);
}

/* ---- one worker's connection ---------------------------------------------------- */

static void conn_count(struct srv_conn *sc)
{
    atomic_store(&sc->bytes_in, sc->c.st.bytes_recv);
    atomic_store(&sc->bytes_out, sc->c.st.bytes_sent);
    atomic_store(&sc->wire_ns, (uint64_t)(sc->c.st.wire_s * 1e9));
}

static int answer_pull(struct srv_conn *sc, int64_t t, struct core_err *err)
{
    struct srv *sv = sc->sv;
    const struct ps_cfg *c = sv->c;
    double t_in = core_time_mono();
    pthread_mutex_lock(&sv->mu);
    for (;;) {
        if (!sv->live[sc->w])
            break;
        if (c->mode == PS_SYNC) {
            if (sv->version >= t)
                break;
            sync_check_timeout(sv);
            if (sv->version >= t || !sv->live[sc->w])
                break;
        } else if (c->mode == PS_SSP) {
            int64_t m = min_clock(sv);
            if (m == INT64_MAX || t - m <= c->staleness)
                break;
        } else {
            break;
        }
        srv_wait(sv);
    }
    if (!sv->live[sc->w]) {
        pthread_mutex_unlock(&sv->mu);
        return core_err_set(err, CORE_ERR_IO, "dropped");
    }
    int64_t m = min_clock(sv);
    struct ps_pull_hdr h = {sv->version, m == INT64_MAX || t < m ? 0 : t - m,
                            core_time_mono() - t_in, 0};
    const float *src = sv->w;
    if (c->mode != PS_SYNC) {
        memcpy(sc->snap, sv->w, sv->n * sizeof *sv->w);
        src = sc->snap;
    }
    pthread_mutex_unlock(&sv->mu);
    h.t_sent = lab_ps_now(c);
    /* sync sends the live weights: none changes before this worker pushes */
    struct lab_net_part parts[2] = {{&h, sizeof h}, {src, sv->n * sizeof *src}};
    return lab_net_send(&sc->c, PS_MSG_WEIGHTS, h.version, 0, parts, 2, -1, err);
}

/* Adds an (encoded) gradient into acc. */
static int decode_add(const struct srv *sv, const struct lab_net_msg *m, float *acc,
                      struct core_err *err)
{
    switch (sv->c->comp) {
    case PS_COMP_TOPK:
        return lab_ps_topk_decode_add(m->data, m->len, acc, sv->n, err);
    case PS_COMP_Q8:
        return lab_ps_q8_decode_add(m->data, m->len, acc, sv->n, err);
    default:
        if (m->len != sv->n * sizeof(float))
            return core_err_set(err, CORE_ERR_INVALID, "a push of %llu bytes, expected %zu",
                                (unsigned long long)m->len, sv->n * sizeof(float));
        const float *g = m->data;
        for (size_t i = 0; i < sv->n; i++)
            acc[i] += g[i];
        return 0;
    }
}

static int take_push(struct srv_conn *sc, const struct lab_net_msg *m, struct core_err *err)
{
    struct srv *sv = sc->sv;
    const struct ps_cfg *c = sv->c;
    int w = sc->w;
    int64_t t = m->a;
    int rc = 0;
    if (c->mode == PS_SYNC) {
        pthread_mutex_lock(&sv->mu);
        if (!sv->live[w] || t != sv->version || sv->pushed[w]) {
            /* a push the shard does not collect (a step already given up) */
            pthread_mutex_unlock(&sv->mu);
            return 0;
        }
        if (sv->step_open_at <= 0)
            sv->step_open_at = core_time_mono();
        sv->arrived[w] = true;
        while (sv->live[w] && next_turn(sv) != w) {
            sync_check_timeout(sv);
            if (sv->live[w] && next_turn(sv) != w)
                srv_wait(sv);
        }
        if (sv->live[w]) {
            rc = decode_add(sv, m, sv->sum, err);
            sv->pushed[w] = true;
            sv->n_added++;
            if (sv->clock[w] < t + 1)
                sv->clock[w] = t + 1;
            sync_try_apply(sv);
            pthread_cond_broadcast(&sv->cv);
        }
        pthread_mutex_unlock(&sv->mu);
        return rc;
    }
    const float *g = m->data;
    if (c->comp != PS_COMP_NONE) {
        memset(sc->scratch, 0, sv->n * sizeof *sc->scratch);
        rc = decode_add(sv, m, sc->scratch, err);
        if (rc)
            return rc;
        g = sc->scratch;
    } else if (m->len != sv->n * sizeof(float)) {
        return core_err_set(err, CORE_ERR_INVALID, "a push of %llu bytes, expected %zu",
                            (unsigned long long)m->len, sv->n * sizeof(float));
    }
    pthread_mutex_lock(&sv->mu);
    if (sv->live[w]) {
        lab_ps_model_apply(sv->w, g, sv->n, (float)(c->lr / c->workers));
        sv->version++;
        sv->updates++;
        if (sv->clock[w] < t + 1)
            sv->clock[w] = t + 1;
        after_update(sv);
        pthread_cond_broadcast(&sv->cv);
    }
    pthread_mutex_unlock(&sv->mu);
    return 0;
}

/* A restarted shard: the worker's HELLO, then (sync) the step to collect. */
static int greet(struct srv_conn *sc, struct core_err *err)
{
    struct srv *sv = sc->sv;
    struct lab_net_msg m;
    int rc = lab_net_recv(&sc->c, &m, -1, err);
    if (rc)
        return rc;
    if (m.type != PS_MSG_HELLO)
        return core_err_set(err, CORE_ERR_IO, "expected HELLO, got message %u", m.type);
    pthread_mutex_lock(&sv->mu);
    sv->hello[sc->w] = true;
    sv->hello_last[sc->w] = m.a;
    if (sv->clock[sc->w] < m.a + 1)
        sv->clock[sc->w] = m.a + 1;
    pthread_cond_broadcast(&sv->cv);
    double t0 = core_time_mono();
    while (sv->c->mode == PS_SYNC && !sv->welcome_known && sv->live[sc->w]) {
        bool all = true;
        int64_t v = INT64_MAX;
        for (int w = 0; w < sv->c->workers; w++) {
            if (!active(sv, w))
                continue;
            if (!sv->hello[w])
                all = false;
            else if (sv->hello_last[w] + 1 < v)
                v = sv->hello_last[w] + 1;
        }
        if (all) {
            sv->welcome_known = true;
            sv->welcome_v = v == INT64_MAX ? sv->version : v;
            sv->version = sv->welcome_v;
            pthread_cond_broadcast(&sv->cv);
            break;
        }
        if (sv->c->sync_timeout_ms > 0 && (core_time_mono() - t0) * 1000 > sv->c->sync_timeout_ms)
            for (int w = 0; w < sv->c->workers; w++)
                if (active(sv, w) && !sv->hello[w]) {
                    sv->live[w] = false;
                    lab_net_conn_shutdown(&sv->conn[w].c);
                    sv->dropped[w] = sv->version + 1;
                    sv->dropped_after = core_time_mono() - t0;
                }
        srv_wait(sv);
    }
    int64_t v = sv->c->mode == PS_SYNC ? sv->welcome_v : sv->version;
    bool ok = sv->live[sc->w];
    pthread_mutex_unlock(&sv->mu);
    if (!ok)
        return core_err_set(err, CORE_ERR_IO, "dropped");
    return lab_net_send(&sc->c, PS_MSG_WELCOME, v, 0, NULL, 0, -1, err);
}

static void *conn_main(void *arg)
{
    struct srv_conn *sc = arg;
    struct srv *sv = sc->sv;
    struct core_err e;
    core_err_clear(&e);
    bool bye = false;
    int rc = 0;
    if (sv->ch->restored)
        rc = greet(sc, &e);
    while (rc == 0) {
        struct lab_net_msg m;
        rc = lab_net_recv(&sc->c, &m, -1, &e);
        if (rc)
            break;
        if (m.type == PS_MSG_PULL) {
            rc = answer_pull(sc, m.a, &e);
        } else if (m.type == PS_MSG_PUSH) {
            rc = take_push(sc, &m, &e);
            if (rc)
                srv_log(sv, LAB_LOG_ERROR, sc->w, "bad push from worker %d: %s", sc->w + 1, e.msg);
            park_if_dying(sv);
        } else if (m.type == PS_MSG_BYE) {
            bye = true;
            break;
        } else {
            srv_log(sv, LAB_LOG_ERROR, sc->w, "unexpected message %u from worker %d", m.type,
                    sc->w + 1);
            rc = CORE_ERR_IO;
        }
        conn_count(sc);
    }
    conn_count(sc);
    pthread_mutex_lock(&sv->mu);
    srv_drop(sv, sc->w, bye);
    pthread_mutex_unlock(&sv->mu);
    return NULL;
}

/* ---- the control channel ------------------------------------------------------- */

static void stats_fill(struct srv *sv, struct ps_shard_stats *st)
{
    memset(st, 0, sizeof *st);
    st->shard = sv->shard;
    pthread_mutex_lock(&sv->mu);
    st->version = sv->version;
    st->updates = sv->updates;
    for (int w = 0; w < sv->c->workers; w++)
        st->live_workers += active(sv, w);
    pthread_mutex_unlock(&sv->mu);
    uint64_t wire_ns = 0;
    for (int w = 0; w < sv->c->workers; w++) {
        st->bytes_in += atomic_load(&sv->conn[w].bytes_in);
        st->bytes_out += atomic_load(&sv->conn[w].bytes_out);
        wire_ns += atomic_load(&sv->conn[w].wire_ns);
    }
    st->wire_s = (double)wire_ns * 1e-9;
}

static int ctl_send(struct srv *sv, uint32_t type, int64_t a, const struct lab_net_part *parts,
                    size_t n, struct core_err *err)
{
    pthread_mutex_lock(&sv->ctl_mu);
    int rc = lab_net_send(&sv->ctl, type, a, sv->shard, parts, n, 60000, err);
    pthread_mutex_unlock(&sv->ctl_mu);
    return rc;
}

/* Serves the master until it says EXIT or goes away. */
static int control_loop(struct srv *sv)
{
    struct core_err e;
    double next_stats = 0;
    float *final_w = NULL;
    bool final_sent = false; /* after the final weights the master reads nothing more */
    int rc = 0;
    for (;;) {
        struct lab_net_conn *ctl = &sv->ctl;
        int ready = lab_net_wait_any_fd(&ctl, 1, sv->wake_fd, 50, &e);
        if (ready < 0 && ready != CORE_ERR_LIMIT) {
            rc = 1;
            break;
        }
        if (ready == 1) {
            uint64_t v;
            if (read(sv->wake_fd, &v, sizeof v) < 0) {
                /* drained already */
            }
        }
        if (ready == 0) {
            struct lab_net_msg m;
            if (lab_net_recv(&sv->ctl, &m, 5000, &e) != 0)
                break; /* the master is gone: so are we */
            if (m.type == PS_MSG_EXIT)
                break;
            if (m.type == PS_MSG_FINAL) {
                if (!final_w)
                    final_w = core_xmalloc((sv->n ? sv->n : 1) * sizeof *final_w);
                /* every worker said BYE (or died) after its last push: once
                 * their threads are through, every update is applied */
                pthread_mutex_lock(&sv->mu);
                /* (a last push may still be on the emulated link: up to a
                 * step's link time and its latency) */
                double until =
                    core_time_mono() + 30 + lab_ps_step_link_s(sv->c) + 2 * sv->c->link.latency_s;
                for (;;) {
                    bool busy = false;
                    for (int w = 0; w < sv->c->workers; w++)
                        busy |= active(sv, w);
                    if (!busy || core_time_mono() > until)
                        break;
                    srv_wait(sv);
                }
                memcpy(final_w, sv->w, sv->n * sizeof *final_w);
                int64_t version = sv->version;
                pthread_mutex_unlock(&sv->mu);
                struct ps_shard_stats st;
                stats_fill(sv, &st);
                struct lab_net_part parts[2] = {{&st, sizeof st},
                                                {final_w, sv->n * sizeof *final_w}};
                if (ctl_send(sv, PS_MSG_FINAL, version, parts, 2, &e) != 0)
                    break;
                final_sent = true;
            }
        }
        if (final_sent)
            continue;
        bool send_ckpt = false, dying, stopping;
        int64_t step = 0, dropped[PS_MAX_WORKERS];
        double after;
        pthread_mutex_lock(&sv->mu);
        dying = sv->dying;
        stopping = sv->stopping;
        if (stopping)
            sv->stopped = true;
        memcpy(dropped, sv->dropped, sizeof dropped);
        memset(sv->dropped, 0, sizeof sv->dropped);
        after = sv->dropped_after;
        if (sv->ckpt_pending) {
            float *t = sv->ckpt_send;
            sv->ckpt_send = sv->ckpt;
            sv->ckpt = t;
            sv->ckpt_pending = false;
            step = sv->ckpt_step;
            send_ckpt = true;
        }
        pthread_mutex_unlock(&sv->mu);
        for (int w = 0; w < sv->c->workers; w++)
            if (dropped[w])
                srv_log(sv, LAB_LOG_WARN, w,
                        "worker %d did not push step %lld within %.1f s: dropped from the barrier",
                        w + 1, (long long)(dropped[w] - 1), after);
        if (send_ckpt) {
            struct lab_net_part part = {sv->ckpt_send, sv->n * sizeof *sv->ckpt_send};
            if (ctl_send(sv, PS_MSG_CKPT, step, &part, 1, &e) != 0)
                break;
        }
        if (dying) {
            lab_ps_child_die(sv->ch); /* local: SIGKILL; mpi: the rank leaves the run */
            pthread_mutex_lock(&sv->mu);
            sv->dying = false; /* the parked threads go on, on dead connections */
            pthread_cond_broadcast(&sv->cv);
            pthread_mutex_unlock(&sv->mu);
            break;
        }
        if (stopping) {
            lab_ps_child_hang(
                sv->ch); /* local: SIGSTOP, every thread, until the master's SIGKILL */
            pthread_mutex_lock(&sv->mu);
            sv->stopping = false;
            pthread_cond_broadcast(&sv->cv);
            pthread_mutex_unlock(&sv->mu);
        }
        double now = core_time_mono();
        if (now >= next_stats) {
            struct ps_shard_stats st;
            stats_fill(sv, &st);
            struct lab_net_part part = {&st, sizeof st};
            if (ctl_send(sv, PS_MSG_STATS, st.version, &part, 1, &e) != 0)
                break;
            next_stats = now + 0.25;
        }
    }
    free(final_w);
    return rc;
}

/* transport=mpi: joins the connection threads (each ends once its
 * connection does: the control loop is over, so shut them all down) and
 * frees the shard; buffers a send given up may still read are freed after
 * MPI ends. */
static void srv_free(struct srv *sv)
{
    pthread_mutex_lock(&sv->mu);
    sv->dying = sv->stopping = false;
    for (int w = 0; w < sv->c->workers; w++)
        sv->live[w] = false; /* a thread held by the barrier or the bound lets go */
    pthread_cond_broadcast(&sv->cv);
    pthread_mutex_unlock(&sv->mu);
    for (int w = 0; w < sv->c->workers; w++) {
        struct srv_conn *sc = &sv->conn[w];
        lab_net_conn_shutdown(&sc->c);
        if (sc->started)
            pthread_join(sc->th, NULL);
        lab_net_conn_close(&sc->c);
        lab_mpi_defer_free(sc->snap);
        free(sc->scratch);
    }
    lab_net_conn_close(&sv->ctl);
    if (sv->wake_fd >= 0)
        close(sv->wake_fd);
    lab_mpi_defer_free(sv->w);
    free(sv->sum);
    lab_mpi_defer_free(sv->ckpt);
    lab_mpi_defer_free(sv->ckpt_send);
    pthread_mutex_destroy(&sv->mu);
    pthread_mutex_destroy(&sv->ctl_mu);
    pthread_cond_destroy(&sv->cv);
    free(sv);
}

int lab_ps_server_main(int ctl_fd, void *arg)
{
    const struct ps_child *ch = arg;
    const struct ps_cfg *c = ch->cfg;
    int W = c->workers;
    lab_ps_child_close_others(ch, W);

    struct srv *sv = core_xcalloc(1, sizeof *sv);
    sv->c = c;
    sv->ch = ch;
    sv->shard = ch->index;
    lab_ps_shard_range(c->params, c->servers, ch->index, &sv->lo, &sv->hi);
    sv->n = (size_t)(sv->hi - sv->lo);
    pthread_mutex_init(&sv->mu, NULL);
    pthread_mutex_init(&sv->ctl_mu, NULL);
    pthread_cond_init(&sv->cv, NULL);
    lab_ps_child_ctl(ch, ctl_fd, &sv->ctl);
    sv->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (sv->wake_fd < 0)
        return 1;
    sv->w = core_xcalloc(sv->n ? sv->n : 1, sizeof *sv->w);
    sv->sum = core_xcalloc(sv->n ? sv->n : 1, sizeof *sv->sum);
    if (c->checkpoint_every > 0) {
        sv->ckpt = core_xcalloc(sv->n ? sv->n : 1, sizeof *sv->ckpt);
        sv->ckpt_send = core_xcalloc(sv->n ? sv->n : 1, sizeof *sv->ckpt_send);
    }
    for (int w = 0; w < W; w++) {
        sv->live[w] = ch->restored ? ch->live[w] : true;
        sv->clock[w] = ch->restored ? ch->clock[w] : 0;
    }
    if (ch->restored) {
        memcpy(sv->w, ch->restored_w, sv->n * sizeof *sv->w);
        sv->version = ch->restored_step;
    }
    sv->next_ckpt = c->checkpoint_every > 0
                        ? (progress_mark(sv) / c->checkpoint_every + 1) * c->checkpoint_every
                        : INT64_MAX;

    int rc = 0;
    for (int w = 0; w < W; w++) {
        struct srv_conn *sc = &sv->conn[w];
        sc->sv = sv;
        sc->w = w;
        lab_ps_child_conn(ch, w, &c->link, &sc->c);
        if (c->server_nic_shared)
            lab_net_conn_share_link(&sc->c, &sv->shared_free_at);
        if (!sv->live[w] || ch->own[w] < 0)
            continue;
        if (c->mode != PS_SYNC) {
            sc->snap = core_xmalloc((sv->n ? sv->n : 1) * sizeof *sc->snap);
            sc->scratch = core_xmalloc((sv->n ? sv->n : 1) * sizeof *sc->scratch);
        }
        if (pthread_create(&sc->th, NULL, conn_main, sc) != 0) {
            struct core_err e;
            lab_net_send(&sv->ctl, PS_MSG_ERROR, 0, sv->shard,
                         &(struct lab_net_part){"cannot start a thread", 21}, 1, 1000, &e);
            rc = 1;
            goto out;
        }
        sc->started = true;
    }
    rc = control_loop(sv);
out:
    /* Exiting ends the connection threads with the process: nothing they
     * hold needs cleaning up beyond what the kernel does. A rank goes on
     * (a restart, or the job's end): its threads end on their connections
     * (finished, dropped, or dead with the rank) and it frees the shard. */
    fflush(NULL);
    if (ch->mpi)
        srv_free(sv);
    return rc;
}
