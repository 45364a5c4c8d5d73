/*
 * lab_ps_master.c — the parameter-server lab's master loop: it starts the
 * shards and the workers (local processes, or the ranks of an Open MPI
 * job) with their connections, gathers each worker's step reports and each
 * shard's statistics into the live series, handles a dead or hung child (a
 * worker dropped, a shard restarted from its checkpoint with recover=on, or
 * the run stopped), stops a diverging run, and collects the trained
 * weights.
 *
 * Uses the lab framework (lab_author.h: processes, the run's clock and reports),
 * the communication layer (lab_net.h) and the shard and worker mains
 * (lab_ps.h).
 */
#include "labs/paramserver/lab_ps.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PSM_TICK_S 0.5         /* live rates are computed over this window */
#define PSM_FINAL_MS 60000     /* the shards' final weights */
#define PSM_DIVERGE_WINDOW 5   /* steps the divergence test averages */
#define PSM_DIVERGE_FACTOR 3.0 /* that many times the first step's loss */

/* The run's clock (lab_run's, which tests drive): what a child's silence
 * is measured on. The emulated links keep the real monotonic clock
 * (lab_ps_now), which every process shares. */
static double psm_now(const struct psm *r)
{
    const struct core_clock *k = lab_ctx_clock(r->cx);
    return k->now(k->ctx);
}

/* ---- children -------------------------------------------------------------------- */
/* "shard 2 (pid 1234) was killed by signal 9 (Killed)" after a reap. */
static void describe_end(struct psm *r, const struct psm_child *ch, const char *who, int num,
                         char *buf, size_t n)
{
    if (r->cfg.mpi) {
        /* a rank cannot die and leave the job running (Open MPI ends it
         * all): it left the run at the application level */
        size_t rank = ch->idx;
        bool worker = strcmp(who, "worker") == 0;
        bool injected = num - 1 == (worker ? r->cfg.kill_worker : r->cfg.kill_server);
        snprintf(buf, n, "%s %d (rank %zu, pid %d on %.32s) closed its connections%s", who, num,
                 rank, (int)ch->pid, r->ranks ? r->ranks[rank].host : "?",
                 injected ? " (injected: an MPI rank leaves the run instead of dying)" : "");
        return;
    }
    struct core_err e;
    lab_proc_reap(r->ps, ch->idx, 2000, &e);
    const struct lab_child *lc = &r->ps->v[ch->idx];
    if (!lc->reaped) {
        snprintf(buf, n, "%s %d (pid %d) stopped answering", who, num, (int)ch->pid);
    } else if (WIFSIGNALED(lc->status)) {
        const char *name = strsignal(WTERMSIG(lc->status));
        snprintf(buf, n, "%s %d (pid %d) was killed by signal %d (%s)", who, num, (int)ch->pid,
                 WTERMSIG(lc->status), name ? name : "unknown");
    } else {
        snprintf(buf, n, "%s %d (pid %d) exited with status %d", who, num, (int)ch->pid,
                 WIFEXITED(lc->status) ? WEXITSTATUS(lc->status) : -1);
    }
}

/* Ends a hung or dropped child: SIGKILL, or under MPI the application-level
 * end of its rank (lab_ps_child_hang). */
static void psm_kill(struct psm *r, const struct psm_child *ch, int role, int index)
{
    if (r->cfg.mpi)
        lab_ps_mpi_master_kill(&r->cfg, role, index);
    else
        r->ps->ops->kill(ch->pid, SIGKILL);
}

/* A child started as a rank (transport=mpi): ctl is open already. */
static void as_rank(struct psm *r, struct psm_child *out, int role, int index)
{
    int rank = lab_ps_rank_of(&r->cfg, role, index);
    out->idx = (size_t)rank;
    out->pid = r->ranks ? r->ranks[rank].pid : 0;
    out->state = PSM_CH_RUNNING;
    out->dropped = false;
    out->heard = psm_now(r);
    out->hung_s = 0;
}

static int spawn(struct psm *r, int (*main_fn)(int, void *), struct ps_child *arg,
                 struct psm_child *out, struct core_err *err)
{
    int i = lab_proc_spawn(r->ps, main_fn, arg, err);
    if (i < 0)
        return i;
    out->idx = (size_t)i;
    out->pid = r->ps->v[i].pid;
    out->state = PSM_CH_RUNNING;
    out->dropped = false;
    out->heard = psm_now(r);
    out->hung_s = 0;
    int fd = dup(r->ps->v[i].fd);
    if (fd < 0)
        return core_err_set(err, CORE_ERR_IO, "dup: %s", strerror(errno));
    lab_net_conn_init_local(&out->ctl, fd, NULL, lab_ctx_cancel_flag(r->cx));
    return 0;
}

static void close_all(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

/* transport=mpi: the ranks are the children. */
static int psm_start_mpi(struct psm *r, struct core_err *err)
{
    struct lab_net_conn srv_ctl[PS_MAX_SERVERS], wrk_ctl[PS_MAX_WORKERS];
    int rc = lab_ps_mpi_master_start(r->cx, &r->cfg, srv_ctl, wrk_ctl, r->ranks, err);
    if (rc)
        return rc;
    for (int s = 0; s < r->S; s++) {
        lab_net_conn_close(&r->srv[s].ctl);
        r->srv[s].ctl = srv_ctl[s];
        as_rank(r, &r->srv[s], 0, s);
    }
    for (int w = 0; w < r->W; w++) {
        lab_net_conn_close(&r->wrk[w].ctl);
        r->wrk[w].ctl = wrk_ctl[w];
        as_rank(r, &r->wrk[w], 1, w);
    }
    return 0;
}

/* Makes every data socketpair, then starts the shards and the workers. */
int lab_ps_start(struct psm *r, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    if (c->mpi)
        return psm_start_mpi(r, err);
    int W = r->W, S = r->S;
    size_t n_fds = c->mode == PS_ALLREDUCE ? 2 * (size_t)W : 2 * (size_t)W * (size_t)S;
    int *fds = core_xmalloc((n_fds ? n_fds : 1) * sizeof *fds);
    for (size_t i = 0; i < n_fds; i++)
        fds[i] = -1;
    struct ps_child *args = core_xcalloc((size_t)(W + S), sizeof *args);
    int rc = 0;
    /* PS modes: fds[2 (w S + s)] is shard s's end for worker w, +1 the worker's.
     * allreduce: fds[2w] is worker w's end towards w+1 (right), fds[2w+1]
     * worker w+1's end towards w (its left). */
    for (size_t i = 0; i + 1 < n_fds; i += 2) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            rc = core_err_set(err, CORE_ERR_IO, "cannot create a socket pair: %s (%zu made)",
                              strerror(errno), i / 2);
            goto out;
        }
        fds[i] = sv[0];
        fds[i + 1] = sv[1];
    }
    for (int s = 0; s < S; s++) {
        struct ps_child *a = &args[s];
        *a = (struct ps_child){
            .cfg = c, .role = 0, .index = s, .data_fds = fds, .n_data_fds = n_fds};
        for (int w = 0; w < W; w++)
            a->own[w] = fds[2 * ((size_t)w * S + s)];
        rc = spawn(r, lab_ps_server_main, a, &r->srv[s], err);
        if (rc) {
            core_err_prefix(err, "starting shard %d", s + 1);
            goto out;
        }
    }
    for (int w = 0; w < W; w++) {
        struct ps_child *a = &args[S + w];
        *a = (struct ps_child){
            .cfg = c, .role = 1, .index = w, .data_fds = fds, .n_data_fds = n_fds};
        if (c->mode == PS_ALLREDUCE) {
            a->own[0] = W > 1 ? fds[2 * (size_t)((w + W - 1) % W) + 1] : -1; /* left */
            a->own[1] = W > 1 ? fds[2 * (size_t)w] : -1;                     /* right */
        } else {
            for (int s = 0; s < S; s++)
                a->own[s] = fds[2 * ((size_t)w * S + s) + 1];
        }
        rc = spawn(r, lab_ps_worker_main, a, &r->wrk[w], err);
        if (rc) {
            core_err_prefix(err, "starting worker %d", w + 1);
            goto out;
        }
        if (lab_cancelled(r->cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
    }
out:
    close_all(fds, n_fds);
    free(fds);
    free(args);
    return rc;
}

/* A shard died and recover=on: a new one from its checkpoint, and a
 * connection to it for every worker still running. */
static int psm_restart_shard(struct psm *r, int s, const char *how, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    int W = r->W;
    int64_t lo, hi;
    lab_ps_shard_range(c->params, c->servers, s, &lo, &hi);
    size_t n = (size_t)(hi - lo);
    if (!r->ckpt[s]) /* no checkpoint yet: the initial weights, all zero */
        r->ckpt[s] = core_xcalloc(n ? n : 1, sizeof(float));
    int fds[2 * PS_MAX_WORKERS];
    size_t n_fds = 2 * (size_t)W;
    struct ps_child a = {.cfg = c,
                         .role = 0,
                         .index = s,
                         .data_fds = fds,
                         .n_data_fds = n_fds,
                         .restored = true,
                         .restored_step = r->ckpt_step[s],
                         .restored_w = r->ckpt[s]};
    int rc = 0;
    for (size_t i = 0; i < n_fds; i++)
        fds[i] = -1;
    for (int w = 0; w < W; w++) {
        a.own[w] = -1;
        a.clock[w] = r->reported[w];
        a.live[w] = r->wrk[w].state == PSM_CH_RUNNING;
        if (!a.live[w] || c->mpi)
            continue;
        int sp[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
            rc = core_err_set(err, CORE_ERR_IO, "cannot create a socket pair: %s", strerror(errno));
            goto out;
        }
        fds[2 * w] = sp[0];
        fds[2 * w + 1] = sp[1];
        a.own[w] = sp[0];
    }
    if (c->mpi) {
        /* the same rank, started again from the checkpoint */
        rc = lab_ps_mpi_master_restart(r->cx, c, &a, r->gen[s] + 1, n, &r->srv[s].ctl, err);
        if (rc)
            goto out;
        as_rank(r, &r->srv[s], 0, s);
    } else {
        lab_net_conn_close(&r->srv[s].ctl);
        rc = spawn(r, lab_ps_server_main, &a, &r->srv[s], err);
        if (rc) {
            core_err_prefix(err, "restarting shard %d", s + 1);
            goto out;
        }
    }
    r->gen[s]++;
    for (int w = 0; w < W; w++) {
        if (fds[2 * w] >= 0) {
            close(fds[2 * w]);
            fds[2 * w] = -1;
        }
        if (!a.live[w])
            continue;
        struct core_err e;
        /* a worker that died meanwhile is noticed by the main loop; under
         * MPI the generation names the new connection */
        if (lab_net_send(&r->wrk[w].ctl, PS_MSG_RECONNECT, s, r->gen[s], NULL, 0, 5000, &e) == 0 &&
            !c->mpi)
            lab_ps_fd_send(r->wrk[w].ctl.fd, fds[2 * w + 1], &e);
    }
    r->restarts++;
    if (r->has_ckpt[s])
        lab_log(r->cx, LAB_LOG_WARN,
                "%s; recover=on: restarted it (pid %d) from its checkpoint of step %lld — the "
                "updates to its %zu keys since then are lost — and training continues",
                how, (int)r->srv[s].pid, (long long)r->ckpt_step[s], n);
    else
        lab_log(r->cx, LAB_LOG_WARN,
                "%s; recover=on: restarted it (pid %d), but it had sent no checkpoint yet "
                "(every %d steps): its %zu keys start again from zero, and training continues",
                how, (int)r->srv[s].pid, c->checkpoint_every, n);
out:
    close_all(fds, n_fds);
    return rc;
}

/* ---- reports -------------------------------------------------------------------- */

static double elapsed_ms(const struct psm *r)
{
    return lab_ctx_elapsed(r->cx) * 1000.0;
}

static bool step_complete(const struct psm *r, int64_t t)
{
    for (int w = 0; w < r->W; w++)
        if (r->wrk[w].state != PSM_CH_DEAD && r->reported[w] <= t)
            return false;
    return r->agg[t].n > 0;
}

/* Emits every step all living workers have reported; fails the run when
 * the loss diverged. */
static int psm_emit_steps(struct psm *r, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    while (r->next_emit < c->steps && step_complete(r, r->next_emit)) {
        int64_t t = r->next_emit++;
        struct psm_step *a = &r->agg[t];
        double loss = a->loss / a->n;
        r->loss_by_step[t] = loss;
        if (t == 0)
            r->initial_loss = loss;
        lab_emit(r->cx, "loss", t, loss);
        lab_emit(r->cx, "compute_ms", t, 1000 * a->compute / a->n);
        lab_emit(r->cx, "comm_ms", t, 1000 * a->comm / a->n);
        lab_emit(r->cx, "wait_ms", t, 1000 * a->wait / a->n);

        double recent = 0;
        int64_t k0 = t + 1 >= PSM_DIVERGE_WINDOW ? t + 1 - PSM_DIVERGE_WINDOW : 0;
        for (int64_t k = k0; k <= t; k++)
            recent += r->loss_by_step[k];
        recent /= (double)(t - k0 + 1);
        bool blown = t + 1 >= PSM_DIVERGE_WINDOW && r->initial_loss > 0 &&
                     recent > PSM_DIVERGE_FACTOR * r->initial_loss;
        if (!isfinite(loss) || blown)
            return core_err_set(err, CORE_ERR_INVALID,
                                "the loss diverged at step %lld (loss %.4g, mean of the last %d "
                                "steps %.4g; it started at %.4g): the learning rate lr = %g is too "
                                "large for this model — try a smaller one, e.g. lr = %g",
                                (long long)t, loss, (int)(t - k0 + 1), recent, r->initial_loss,
                                c->lr, c->lr / 10);
    }
    return 0;
}

static void psm_step_report(struct psm *r, const struct ps_step_report *rep)
{
    const struct ps_cfg *c = &r->cfg;
    int w = rep->worker, t = rep->step;
    if (w < 0 || w >= r->W || t < 0 || t >= c->steps)
        return;
    struct psm_step *a = &r->agg[t];
    a->loss += rep->loss;
    a->compute += rep->compute_s;
    a->wait += rep->wait_s;
    a->comm += rep->comm_s;
    a->n++;
    if (r->reported[w] < t + 1)
        r->reported[w] = t + 1;
    r->updates++;
    double step_s = rep->t_end - rep->t_begin;
    if (t > 0) { /* the first step connects and warms up */
        char what[48];
        snprintf(what, sizeof what, "compute per step of worker %d", w + 1);
        lab_repeat(r->cx, what, "s", rep->compute_s);
    }
    if (c->steps < 3 || t > 0) {
        r->sum_step[w] += step_s;
        r->sum_compute[w] += rep->compute_s;
        r->sum_wait[w] += rep->wait_s;
        r->sum_comm[w] += rep->comm_s;
        r->sum_xfer[w] += rep->xfer_s;
        r->xfer_bytes[w] += rep->xfer_bytes;
        r->n_timed[w]++;
    }
    if (r->updates == 1 || rep->t_begin < r->t_first)
        r->t_first = rep->t_begin;
    if (rep->t_end > r->t_last)
        r->t_last = rep->t_end;
    if (c->mode != PS_ALLREDUCE) {
        int64_t g = rep->gap < 0 ? 0 : rep->gap;
        r->hist[g < PS_HIST - 1 ? g : PS_HIST - 1]++;
        if (g > r->max_gap)
            r->max_gap = g;
    }
    if (c->trace) {
        lab_emit(r->cx, "trace_pull", (int64_t)t * PS_MAX_WORKERS + w, rep->t_pull_end);
        lab_emit(r->cx, "trace_push", (int64_t)t * PS_MAX_WORKERS + w, rep->t_push_begin);
    }
    /* loss against wall time: after every W worker steps (whichever
     * workers), the mean of each worker's latest loss — not the step
     * means, which in async would wait for the slowest worker to reach each
     * step number */
    r->last_loss[w] = rep->loss;
    r->has_loss[w] = true;
    double sum = 0;
    int n = 0, alive = 0;
    for (int v = 0; v < r->W; v++) {
        if (r->wrk[v].state == PSM_CH_DEAD)
            continue;
        alive++;
        if (r->has_loss[v]) {
            sum += r->last_loss[v];
            n++;
        }
    }
    if (++r->since_loss_time >= alive && n > 0) {
        r->since_loss_time = 0;
        lab_emit(r->cx, "loss_time", (int64_t)llround(elapsed_ms(r)), sum / n);
    }
}

static void psm_shard_stats(struct psm *r, int s, const struct ps_shard_stats *st)
{
    r->shard_bytes[s] = r->shard_base[s] + st->bytes_in + st->bytes_out;
}

/* The snapshot series (lab_def.snapshot: a sample replaces the earlier one
 * at its step): each worker's mean compute, waiting and communication per
 * timed step so far (step = worker number), and the staleness histogram so
 * far (step = staleness, value = worker steps). Sent on the live tick while
 * steps come in, and once more with the summary. */
void lab_ps_emit_snapshots(struct psm *r)
{
    for (int w = 0; w < r->W; w++) {
        if (r->n_timed[w] == 0)
            continue;
        double k = (double)r->n_timed[w];
        lab_emit(r->cx, "worker_compute_ms", w + 1, 1000 * r->sum_compute[w] / k);
        lab_emit(r->cx, "worker_wait_ms", w + 1, 1000 * r->sum_wait[w] / k);
        lab_emit(r->cx, "worker_comm_ms", w + 1, 1000 * r->sum_comm[w] / k);
    }
    if (r->cfg.mode != PS_ALLREDUCE)
        for (int g = 0; g < PS_HIST && g <= r->max_gap; g++)
            lab_emit(r->cx, "staleness", g, (double)r->hist[g]);
    r->snap_updates = r->updates;
}

/* Rates over the last window: updates/s, each shard's MB/s; the snapshot
 * series when steps came in since they were last sent (not on the forced
 * tick at the end: the summary sends them); progress. */
static void psm_tick(struct psm *r, bool force)
{
    double now = lab_ctx_elapsed(r->cx);
    double dt = now - r->tick_at;
    if (!force && dt < PSM_TICK_S)
        return;
    if (dt > 0) {
        int64_t ms = (int64_t)llround(now * 1000);
        lab_emit(r->cx, "updates_per_s", ms, (double)(r->updates - r->tick_updates) / dt);
        for (int s = 0; s < r->S; s++) {
            static const char *const names[PS_MAX_SERVERS] = {"wire_s1", "wire_s2", "wire_s3",
                                                              "wire_s4", "wire_s5", "wire_s6",
                                                              "wire_s7", "wire_s8"};
            uint64_t b = r->shard_bytes[s];
            lab_emit(r->cx, names[s], ms, (double)(b - r->tick_bytes[s]) / dt / 1e6);
            r->tick_bytes[s] = b;
        }
    }
    if (!force && r->updates != r->snap_updates)
        lab_ps_emit_snapshots(r);
    r->tick_at = now;
    r->tick_updates = r->updates;
    int64_t done = 0, total = 0;
    for (int w = 0; w < r->W; w++) {
        done += r->reported[w];
        total += r->wrk[w].state == PSM_CH_DEAD ? r->reported[w] : r->cfg.steps;
    }
    char what[96];
    snprintf(what, sizeof what, "%s: step %lld of %lld", lab_ps_mode_name(r->cfg.mode),
             (long long)r->next_emit, (long long)r->cfg.steps);
    lab_progress(r->cx, total > 0 ? (double)done / (double)total : 0, what);
}

/* ---- the main loop ---------------------------------------------------------------- */

static int living_workers(const struct psm *r)
{
    int n = 0;
    for (int w = 0; w < r->W; w++)
        n += r->wrk[w].state != PSM_CH_DEAD;
    return n;
}

static int running_workers(const struct psm *r)
{
    int n = 0;
    for (int w = 0; w < r->W; w++)
        n += r->wrk[w].state == PSM_CH_RUNNING;
    return n;
}

static int psm_worker_died(struct psm *r, int w, struct core_err *err)
{
    char how[200];
    describe_end(r, &r->wrk[w], "worker", w + 1, how, sizeof how);
    if (r->wrk[w].dropped)
        snprintf(how, sizeof how, "worker %d (pid %d) stopped answering; the master ended it",
                 w + 1, (int)r->wrk[w].pid);
    r->wrk[w].state = PSM_CH_DEAD;
    lab_net_conn_close(&r->wrk[w].ctl);
    r->workers_lost++;
    /* the others may have been held by it (ssp's bound): their hang
     * timeout starts again */
    double now = psm_now(r);
    for (int v = 0; v < r->W; v++)
        r->wrk[v].heard = now;
    if (r->wrk[w].hung_s > 0 && r->cfg.mode != PS_ALLREDUCE && living_workers(r) > 0) {
        lab_log(r->cx, LAB_LOG_WARN,
                "worker %d stopped answering for %.1f s (pid %d, after %lld steps): dropped; the "
                "others go on without it (%d worker%s left)",
                w + 1, r->wrk[w].hung_s, (int)r->wrk[w].pid, (long long)r->reported[w],
                living_workers(r), living_workers(r) == 1 ? "" : "s");
        return psm_emit_steps(r, err);
    }
    if (r->wrk[w].hung_s > 0)
        snprintf(how, sizeof how,
                 "worker %d stopped answering for %.1f s (pid %d; the master ended "
                 "it)",
                 w + 1, r->wrk[w].hung_s, (int)r->wrk[w].pid);
    if (r->cfg.mode == PS_ALLREDUCE)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "%s at step %lld: a ring all-reduce needs every rank, so the lab "
                            "stops (with a parameter server, mode=sync|async|ssp, the others "
                            "would go on)",
                            how, (long long)r->reported[w]);
    if (living_workers(r) == 0)
        return core_err_set(err, CORE_ERR_INTERNAL, "%s: no worker is left", how);
    const char *what = r->cfg.mode == PS_SYNC
                           ? "the shards drop it from the barrier and the others go on"
                           : "the others go on without it";
    lab_log(r->cx, LAB_LOG_WARN, "%s after %lld steps: %s (%d worker%s left)", how,
            (long long)r->reported[w], what, living_workers(r), living_workers(r) == 1 ? "" : "s");
    return psm_emit_steps(r, err);
}

static int psm_shard_died(struct psm *r, int s, struct core_err *err)
{
    char how[200];
    describe_end(r, &r->srv[s], "server shard", s + 1, how, sizeof how);
    if (r->srv[s].hung_s > 0)
        snprintf(how, sizeof how,
                 "server shard %d stopped answering for %.1f s (pid %d; the master ended it)",
                 s + 1, r->srv[s].hung_s, (int)r->srv[s].pid);
    r->shard_base[s] = r->shard_bytes[s];
    r->srv[s].state = PSM_CH_DEAD;
    int64_t at = r->next_emit;
    if (!r->cfg.recover) {
        if (r->cfg.checkpoint_every > 0)
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "%s at step %lld: the workers cannot pull or push its keys, so the "
                                "lab stops. Its last checkpoint is of step %lld: run with --set "
                                "recover=on to restart the shard from it",
                                how, (long long)at, (long long)r->ckpt_step[s]);
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "%s at step %lld: the workers cannot pull or push its keys, so the lab "
                            "stops. Set checkpoint_every and recover=on to restart it from a "
                            "checkpoint",
                            how, (long long)at);
    }
    char line[300];
    snprintf(line, sizeof line, "%s at step %lld", how, (long long)at);
    /* the workers waited on it: their hang timeout starts again */
    double now = psm_now(r);
    for (int w = 0; w < r->W; w++)
        r->wrk[w].heard = now;
    return psm_restart_shard(r, s, line, err);
}

static int psm_child_msg(struct psm *r, bool is_srv, int k, const struct lab_net_msg *m,
                         struct core_err *err)
{
    const char *txt = m->data;
    int len = m->len > 400 ? 400 : (int)m->len;
    switch (m->type) {
    case PS_MSG_STEP:
        if (!is_srv && m->len == sizeof(struct ps_step_report)) {
            struct ps_step_report rep;
            memcpy(&rep, m->data, sizeof rep);
            psm_step_report(r, &rep);
            return psm_emit_steps(r, err);
        }
        break;
    case PS_MSG_DONE:
        if (!is_srv)
            r->wrk[k].state = PSM_CH_DONE;
        return psm_emit_steps(r, err);
    case PS_MSG_LOG:
        lab_log(r->cx,
                m->a == LAB_LOG_ERROR  ? LAB_LOG_ERROR
                : m->a == LAB_LOG_WARN ? LAB_LOG_WARN
                                       : LAB_LOG_INFO,
                "%.*s", len, txt);
        if (is_srv && m->a == LAB_LOG_WARN && m->b >= 0 && m->b < r->W &&
            r->wrk[m->b].state == PSM_CH_RUNNING && !r->wrk[m->b].dropped) {
            /* dropped from a sync barrier: make it so everywhere */
            r->wrk[m->b].dropped = true;
            psm_kill(r, &r->wrk[m->b], 1, (int)m->b);
        }
        return 0;
    case PS_MSG_ERROR:
        return core_err_set(err, CORE_ERR_INTERNAL, "%.*s", len, txt);
    case PS_MSG_STATS:
        if (is_srv && m->len == sizeof(struct ps_shard_stats)) {
            struct ps_shard_stats st;
            memcpy(&st, m->data, sizeof st);
            psm_shard_stats(r, k, &st);
        }
        return 0;
    case PS_MSG_CKPT:
        if (is_srv) {
            int64_t lo, hi;
            lab_ps_shard_range(r->cfg.params, r->cfg.servers, k, &lo, &hi);
            size_t n = (size_t)(hi - lo);
            if (m->len != n * sizeof(float))
                break;
            if (!r->ckpt[k])
                r->ckpt[k] = core_xmalloc((n ? n : 1) * sizeof(float));
            memcpy(r->ckpt[k], m->data, m->len);
            r->ckpt_step[k] = m->a;
            r->has_ckpt[k] = true;
            if (r->n_ckpt++ == 0)
                lab_log(r->cx, LAB_LOG_INFO,
                        "checkpoints: every %d steps each shard sends its weights to the master "
                        "(shard 1: step %lld, %.2f MB)",
                        r->cfg.checkpoint_every, (long long)m->a, (double)m->len / 1e6);
        }
        return 0;
    default:
        break;
    }
    return core_err_set(err, CORE_ERR_INTERNAL, "unexpected message %u from %s %d", m->type,
                        is_srv ? "shard" : "worker", k + 1);
}

/* Whether child ch has said nothing for `secs` up to `now`: the master
 * last read from it that long ago, and nothing of it waits unread (a
 * master behind on its reads must not take a child that spoke for a
 * silent one). */
static bool psm_silent(struct psm_child *ch, double now, double secs)
{
    if (now - ch->heard < secs)
        return false;
    struct lab_net_conn *cs = &ch->ctl;
    struct core_err e;
    return lab_net_wait_any(&cs, 1, 0, &e) != 0;
}

/* The hang timeout (cfg.sync_timeout_ms): a shard whose statistics (every
 * 250 ms) stopped coming for half of it is ended and handled as a dead one
 * (the lab stops, or recover=on restarts it) — half, so that a worker
 * waiting on the hung shard is not itself taken for hung by another
 * shard's sync barrier, whose clock runs the whole timeout and may have
 * started at about the same time; in async and ssp, the slowest running
 * worker silent that long is ended and the others go on (a worker held by
 * the staleness bound is ahead of it, so it is never the one); in
 * allreduce, when no rank has reported for that long the ring is stuck and
 * the lab stops. Sync workers are the shards' business (their barrier
 * drops a silent worker after the same time). */
static int psm_check_hangs(struct psm *r, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    double lim = c->sync_timeout_ms / 1000.0, now = psm_now(r);
    if (lim <= 0)
        return 0;
    for (int s = 0; s < r->S; s++) {
        struct psm_child *ch = &r->srv[s];
        if (ch->state != PSM_CH_RUNNING || !psm_silent(ch, now, lim / 2))
            continue;
        ch->hung_s = now - ch->heard;
        psm_kill(r, ch, 0, s);
        int rc = psm_shard_died(r, s, err);
        if (rc)
            return rc;
        now = psm_now(r);
    }
    if (c->mode == PS_SYNC)
        return 0;
    int64_t slowest = INT64_MAX;
    bool all_silent = true;
    for (int w = 0; w < r->W; w++)
        if (r->wrk[w].state == PSM_CH_RUNNING) {
            if (r->reported[w] < slowest)
                slowest = r->reported[w];
            all_silent &= psm_silent(&r->wrk[w], now, lim);
        }
    if (slowest == INT64_MAX)
        return 0;
    if (c->mode == PS_ALLREDUCE) {
        if (!all_silent)
            return 0;
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "no worker finished a step for %.1f s (the slowest had done %lld): a "
                            "rank of the ring stopped answering, and a ring all-reduce needs "
                            "every rank, so the lab stops",
                            lim, (long long)slowest);
    }
    for (int w = 0; w < r->W; w++) {
        struct psm_child *ch = &r->wrk[w];
        if (ch->state != PSM_CH_RUNNING || r->reported[w] != slowest || !psm_silent(ch, now, lim))
            continue;
        ch->hung_s = now - ch->heard;
        psm_kill(r, ch, 1, w);
        int rc = psm_worker_died(r, w, err);
        if (rc)
            return rc;
    }
    return 0;
}

int lab_ps_loop(struct psm *r, struct core_err *err)
{
    struct lab_net_conn *cs[PS_MAX_SERVERS + PS_MAX_WORKERS];
    int who[PS_MAX_SERVERS + PS_MAX_WORKERS];
    while (running_workers(r) > 0) {
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        size_t n = 0;
        for (int s = 0; s < r->S; s++)
            if (r->srv[s].state == PSM_CH_RUNNING) {
                cs[n] = &r->srv[s].ctl;
                who[n++] = s;
            }
        for (int w = 0; w < r->W; w++)
            if (r->wrk[w].state == PSM_CH_RUNNING) {
                cs[n] = &r->wrk[w].ctl;
                who[n++] = PS_MAX_SERVERS + w;
            }
        struct core_err e;
        core_err_clear(&e);
        int i = lab_net_wait_any(cs, n, 50, &e);
        psm_tick(r, false);
        int hr = psm_check_hangs(r, err);
        if (hr)
            return hr;
        if (i == CORE_ERR_LIMIT)
            continue;
        if (i == CORE_ERR_CANCELLED)
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        if (i < 0)
            return core_err_set(err, i, "%s", e.msg);
        bool is_srv = who[i] < PS_MAX_SERVERS;
        int k = is_srv ? who[i] : who[i] - PS_MAX_SERVERS;
        (is_srv ? &r->srv[k] : &r->wrk[k])->heard = psm_now(r);
        struct lab_net_msg m;
        int rc = lab_net_recv(cs[i], &m, 10000, &e);
        if (rc == CORE_ERR_CANCELLED)
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        if (rc)
            rc = is_srv ? psm_shard_died(r, k, err) : psm_worker_died(r, k, err);
        else
            rc = psm_child_msg(r, is_srv, k, &m, err);
        if (rc)
            return rc;
    }
    psm_tick(r, true);
    return psm_emit_steps(r, err);
}

/* The trained weights: every shard's slice (PS modes) or worker copy. */
int lab_ps_final(struct psm *r, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    r->final_w = core_xcalloc((size_t)c->params, sizeof(float));
    if (c->mode == PS_ALLREDUCE) {
        for (int w = 0; w < r->W; w++) {
            if (r->wrk[w].state != PSM_CH_DONE)
                continue;
            struct lab_net_msg m;
            int rc = lab_net_send(&r->wrk[w].ctl, PS_MSG_FINAL, 0, 0, NULL, 0, 5000, err);
            if (rc == 0)
                rc = lab_net_recv(&r->wrk[w].ctl, &m, PSM_FINAL_MS, err);
            if (rc)
                return core_err_prefix(err, "reading worker %d's weights", w + 1);
            if (m.type != PS_MSG_FINAL || m.len != (uint64_t)c->params * sizeof(float))
                return core_err_set(err, CORE_ERR_INTERNAL, "worker %d sent no weights", w + 1);
            memcpy(r->final_w, m.data, m.len);
            return 0;
        }
        return 0;
    }
    for (int s = 0; s < r->S; s++) {
        if (r->srv[s].state != PSM_CH_RUNNING)
            continue;
        int rc = lab_net_send(&r->srv[s].ctl, PS_MSG_FINAL, 0, 0, NULL, 0, 5000, err);
        for (;;) {
            struct lab_net_msg m;
            if (rc == 0)
                rc = lab_net_recv(&r->srv[s].ctl, &m, PSM_FINAL_MS, err);
            if (rc)
                return core_err_prefix(err, "reading shard %d's weights", s + 1);
            if (m.type != PS_MSG_FINAL) {
                rc = psm_child_msg(r, true, s, &m, err);
                continue;
            }
            int64_t lo, hi;
            lab_ps_shard_range(c->params, c->servers, s, &lo, &hi);
            size_t n = (size_t)(hi - lo);
            if (m.len != sizeof(struct ps_shard_stats) + n * sizeof(float))
                return core_err_set(err, CORE_ERR_INTERNAL, "shard %d sent %llu bytes of weights",
                                    s + 1, (unsigned long long)m.len);
            struct ps_shard_stats st;
            memcpy(&st, m.data, sizeof st);
            psm_shard_stats(r, s, &st);
            memcpy(r->final_w + lo, (const char *)m.data + sizeof st, n * sizeof(float));
            break;
        }
    }
    return 0;
}

void lab_ps_stop_children(struct psm *r)
{
    struct core_err e;
    for (int s = 0; s < r->S; s++)
        if (r->srv[s].state != PSM_CH_DEAD && r->srv[s].ctl.fd >= 0)
            lab_net_send(&r->srv[s].ctl, PS_MSG_EXIT, 0, 0, NULL, 0, 200, &e);
    for (int w = 0; w < r->W; w++)
        if (r->wrk[w].state != PSM_CH_DEAD && r->wrk[w].ctl.fd >= 0)
            lab_net_send(&r->wrk[w].ctl, PS_MSG_EXIT, 0, 0, NULL, 0, 200, &e);
    for (size_t i = 0; i < r->ps->n; i++)
        if (!r->ps->v[i].reaped)
            lab_proc_reap(r->ps, i, 2000, &e);
    /* (ranks: rank 0's END, at the end of the run, lets them go) */
}
