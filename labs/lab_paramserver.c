/*
 * lab_paramserver.c — lab "paramserver": S server shards and W worker
 * processes train logistic (or linear) regression by minibatch SGD in one of
 * four modes — sync (a barrier each step), async (apply on arrival), ssp
 * (bounded staleness) and allreduce (no server: a ring all-reduce of the
 * gradients) — over Unix-domain sockets with an emulated link, so the
 * course's communication arithmetic (pull + push = 2 x 4 B x params at the
 * link's rate, against the compute time) is measured rather than assumed.
 *
 * This file is the master: the lab's definition and parameter checks, the
 * processes and their connections (lab_ps.h says how they are wired), the
 * loop that gathers each worker's step reports and each shard's statistics
 * into live series, fault handling (a dead worker: the others go on, or the
 * ring stops; a dead shard: the lab stops, or with recover=on the shard is
 * restarted from its last checkpoint, which the master keeps in memory; a
 * hung worker or shard — stop_worker/stop_server make one with SIGSTOP — is
 * ended with SIGKILL after the hang timeout and then handled as a dead one,
 * see psm_check_hangs), and the summary figures the lessons grade against.
 *
 * Timing figures leave out each worker's first step (connections warming,
 * the start-up barrier) when there are at least three.
 *
 * Figures (the lesson's table explains them all; the ones that need care):
 *   comm_fraction  (step_ms - compute_ms_mean) / step_ms, measured; waiting
 *                  for a barrier or the staleness bound counts as
 *                  communication, as in the course.
 *   pushpull_mb_s  (sync, async, ssp) the rate one data connection moves a
 *                  pull reply at: the replies' bytes (frames included)
 *                  over their time from the shard starting to send to the
 *                  worker holding the last byte, summed over the timed
 *                  steps, then the mean of the workers. Pushes carry the
 *                  same bytes the other way (uncompressed) but are not
 *                  timed: a send returns once the bytes are in the 4 MiB
 *                  socket buffer, long before the shard has them, which
 *                  would overstate the rate. Held time (barrier, bound) is
 *                  not in it. On an emulated link a reply is delivered no
 *                  earlier than its serialisation plus latency, so the
 *                  figure stays at or below link_mb_s; with link=off it is
 *                  comparable to `warpbench bench paramserver`'s raw
 *                  socketpair rate. Absent in allreduce (see busbw_gbs).
 *
 * Uses the lab framework (lab.h), the communication layer (lab_ps_net.h)
 * and the shard/worker/model code (lab_ps.h).
 */
#include "labs/lab_mpi.h"
#include "labs/lab_ps.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PSM_TICK_S 0.5         /* live rates are computed over this window */
#define PSM_FINAL_MS 60000     /* the shards' final weights */
#define PSM_DIVERGE_WINDOW 5   /* steps the divergence test averages */
#define PSM_DIVERGE_FACTOR 3.0 /* that many times the first step's loss */

enum { CH_RUNNING, CH_DONE, CH_DEAD };

struct psm_child {
    size_t idx; /* in the run's lab_procs */
    pid_t pid;
    struct ps_conn ctl; /* a dup of the procs' descriptor */
    int state;
    bool dropped;  /* a shard dropped it from a sync barrier: the master ended it */
    double heard;  /* core_time_mono of its last message (or its start) */
    double hung_s; /* > 0: silent this long, so the master ended it */
};

struct psm_step {
    double loss, compute, wait, comm;
    int n;
};

struct psm {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    struct ps_cfg cfg;
    int W, S;
    struct psm_child srv[PS_MAX_SERVERS], wrk[PS_MAX_WORKERS];
    /* checkpoints, kept by the master */
    float *ckpt[PS_MAX_SERVERS];
    int64_t ckpt_step[PS_MAX_SERVERS];
    bool has_ckpt[PS_MAX_SERVERS]; /* the shard sent one (else restarts begin from zero) */
    int n_ckpt;
    int restarts, gen[PS_MAX_SERVERS];
    /* steps */
    struct psm_step *agg;
    int64_t reported[PS_MAX_WORKERS];
    int64_t next_emit;
    double *loss_by_step;
    double last_loss[PS_MAX_WORKERS]; /* each worker's latest step's loss */
    bool has_loss[PS_MAX_WORKERS];
    int since_loss_time; /* worker steps reported since loss_time's last point */
    double initial_loss;
    /* per worker, timed steps */
    double sum_step[PS_MAX_WORKERS], sum_compute[PS_MAX_WORKERS], sum_wait[PS_MAX_WORKERS],
        sum_comm[PS_MAX_WORKERS], sum_xfer[PS_MAX_WORKERS];
    uint64_t xfer_bytes[PS_MAX_WORKERS]; /* pull replies' bytes in sum_xfer's time */
    int64_t n_timed[PS_MAX_WORKERS];
    uint64_t hist[PS_HIST];
    int64_t max_gap;
    int64_t updates;
    double t_first, t_last; /* first step's start, last step's end (ps_now) */
    int workers_lost;
    /* live rates */
    double tick_at;
    int64_t tick_updates;
    uint64_t shard_base[PS_MAX_SERVERS]; /* bytes of shards that died, carried on */
    uint64_t shard_bytes[PS_MAX_SERVERS];
    uint64_t tick_bytes[PS_MAX_SERVERS];
    int64_t snap_updates; /* updates when the snapshot series were last sent */
    /* final */
    float *final_w;
    /* transport=mpi: the job's ranks (pid and host of each) */
    struct lab_mpi_rankinfo *ranks;
};

/* ---- parameters ------------------------------------------------------------- */

static int mode_of(const char *s)
{
    return strcmp(s, "async") == 0       ? PS_ASYNC
           : strcmp(s, "ssp") == 0       ? PS_SSP
           : strcmp(s, "allreduce") == 0 ? PS_ALLREDUCE
                                         : PS_SYNC;
}

/* "42 s", "3.5 minutes", "7.4 days". */
static void format_duration(double s, char *buf, size_t n)
{
    if (s < 120)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, n, "%.1f minutes", s / 60);
    else if (s < 2 * 86400.0)
        snprintf(buf, n, "%.1f hours", s / 3600);
    else
        snprintf(buf, n, "%.1f days", s / 86400);
}

/* "125 B", "3.2 kB", "40 MB" (then `per`). */
static void format_bytes(double b, const char *per, char *buf, size_t n)
{
    if (b < 1e3)
        snprintf(buf, n, "%.3g B%s", b, per);
    else if (b < 1e6)
        snprintf(buf, n, "%.3g kB%s", b / 1e3, per);
    else
        snprintf(buf, n, "%.3g MB%s", b / 1e6, per);
}

/* transport=mpi: the build has it, and the workers fit the job's ranks
 * (rank 0, the shards, then the workers): when `workers` is not set it is
 * what the ranks leave, else the two must agree. */
static int psm_cfg_mpi(const struct lab_params *p, struct ps_cfg *c, struct core_err *err)
{
    c->mpi = lab_params_use_mpi(p);
    if (!c->mpi)
        return 0;
    if (!lab_mpi_built())
        return core_err_set(err, CORE_ERR_INVALID,
                            "transport=mpi: this build has no Open MPI (install libopenmpi-dev "
                            "and openmpi-bin, then configure with -DWB_MPI=ON)");
    int ranks = 0;
    int rc = lab_mpi_ranks_given(p, &ranks, err);
    if (rc || ranks == 0)
        return rc;
    int fixed = 1 + c->servers;
    if (!lab_param_user_set(p, "workers")) {
        if (ranks - fixed < 1 || ranks - fixed > PS_MAX_WORKERS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "transport=mpi with %d ranks: rank 0 is the master and %d %s, "
                                "which leaves %d worker%s (1 to %d)",
                                ranks, c->servers,
                                c->servers == 1 ? "rank is the server shard"
                                                : "ranks are the server shards",
                                ranks - fixed, ranks - fixed == 1 ? "" : "s", PS_MAX_WORKERS);
        c->workers = ranks - fixed;
    } else if (fixed + c->workers != ranks) {
        return core_err_set(err, CORE_ERR_INVALID,
                            "transport=mpi: workers = %d and %d server shard%s take %d ranks with "
                            "the master, but the job has %d: leave 'workers' out (it is then what "
                            "the ranks leave) or change the number of ranks",
                            c->workers, c->servers, c->servers == 1 ? "" : "s", fixed + c->workers,
                            ranks);
    }
    return 0;
}

/* Reads and cross-checks every parameter into cfg (t0 and the timeout are
 * left for the run). */
static int psm_cfg(const struct lab_params *p, struct ps_cfg *c, struct core_err *err)
{
    memset(c, 0, sizeof *c);
    c->mode = mode_of(lab_param_str(p, "mode"));
    c->model = strcmp(lab_param_str(p, "model"), "linear") == 0 ? PS_LINEAR : PS_LOGISTIC;
    c->workers = (int)lab_param_num(p, "workers");
    c->servers = (int)lab_param_num(p, "servers");
    c->params = (int64_t)lab_param_num(p, "params");
    c->hot = c->params < PS_HOT ? (int)c->params : PS_HOT;
    c->nnz = ps_model_nnz(c->params, lab_param_num(p, "sparsity"));
    c->batch = (int)lab_param_num(p, "batch");
    c->steps = (int64_t)lab_param_num(p, "steps");
    c->lr = lab_param_num(p, "lr");
    c->compute_s = lab_param_num(p, "compute_ms") / 1000.0;
    c->link.latency_s = lab_param_num(p, "latency_ms") / 1000.0;
    c->staleness = (int)lab_param_num(p, "staleness");
    c->checkpoint_every = (int)lab_param_num(p, "checkpoint_every");
    c->recover = lab_param_num(p, "recover") != 0;
    c->trace = lab_param_num(p, "trace") != 0;
    c->seed = (uint64_t)lab_param_num(p, "seed");
    c->server_nic_shared = strcmp(lab_param_str(p, "server_nic"), "shared") == 0;
    if (c->mode == PS_ALLREDUCE)
        c->servers = 0;
    int rc = psm_cfg_mpi(p, c, err);
    if (rc)
        return rc;

    rc = ps_link_parse(lab_param_str(p, "link"), &c->link.bytes_per_s, err);
    if (rc)
        return core_err_prefix(err, "parameter 'link'");
    rc = lab_param_straggler(p, c->workers, &c->straggler, err);
    if (rc == 0)
        rc = ps_compress_parse(lab_param_str(p, "compress"), &c->comp, &c->topk_frac, err);
    if (rc == 0)
        rc = ps_kill_parse(lab_param_str(p, "kill_worker"), "kill_worker", c->workers, c->steps,
                           &c->kill_worker, &c->kill_worker_step, err);
    if (rc == 0)
        rc = ps_kill_parse(lab_param_str(p, "kill_server"), "kill_server",
                           c->mode == PS_ALLREDUCE ? PS_MAX_SERVERS : c->servers, c->steps,
                           &c->kill_server, &c->kill_server_step, err);
    if (rc == 0)
        rc = ps_kill_parse(lab_param_str(p, "stop_worker"), "stop_worker", c->workers, c->steps,
                           &c->stop_worker, &c->stop_worker_step, err);
    if (rc == 0)
        rc = ps_kill_parse(lab_param_str(p, "stop_server"), "stop_server",
                           c->mode == PS_ALLREDUCE ? PS_MAX_SERVERS : c->servers, c->steps,
                           &c->stop_server, &c->stop_server_step, err);
    if (rc)
        return rc;

    if (c->kill_worker >= 0 && c->workers == 1)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kill_worker with workers = 1 leaves no worker to go on training: "
                            "set workers to 2 or more");
    if (c->stop_worker >= 0 && c->workers == 1)
        return core_err_set(err, CORE_ERR_INVALID,
                            "stop_worker with workers = 1 leaves no worker to go on training "
                            "once the hung one is dropped: set workers to 2 or more");

    if (c->mode == PS_ALLREDUCE) {
        if (lab_param_user_set(p, "servers"))
            return core_err_set(err, CORE_ERR_INVALID,
                                "mode=allreduce has no parameter server: the workers sum their "
                                "gradients among themselves with a ring all-reduce, so 'servers' "
                                "does not apply (leave it out, or pick mode=sync|async|ssp)");
        if (c->comp != PS_COMP_NONE)
            return core_err_set(
                err, CORE_ERR_INVALID,
                "'compress' applies to pushes to a parameter server; mode=allreduce "
                "sums dense gradients (use compress=none)");
        if (c->kill_server >= 0 || c->stop_server >= 0)
            return core_err_set(err, CORE_ERR_INVALID,
                                "'%s' needs a server: mode=allreduce has none",
                                c->kill_server >= 0 ? "kill_server" : "stop_server");
    } else {
        if (c->servers > c->params)
            return core_err_set(err, CORE_ERR_INVALID,
                                "servers = %d is more than params = %lld: every shard needs at "
                                "least one key",
                                c->servers, (long long)c->params);
        if ((int64_t)c->workers * c->servers > PS_MAX_CONNS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "workers x servers = %d connections; at most %d (each worker "
                                "talks to every shard)",
                                c->workers * c->servers, PS_MAX_CONNS);
    }
    double link_s = ps_step_link_s(c);
    if (link_s > PS_MAX_STEP_LINK_S) {
        /* (kept under the 255 characters of an error message) */
        char took[32], rate[32], head[160];
        format_duration(link_s, took, sizeof took);
        char slice[32];
        format_bytes(c->link.bytes_per_s, "/s", rate, sizeof rate);
        format_bytes(4.0 * ceil((double)c->params / (c->servers > 0 ? c->servers : 1)), "", slice,
                     sizeof slice);
        snprintf(head, sizeof head, "parameter 'link' = %.16s (%s) is too slow for params = %lld",
                 lab_param_str(p, "link"), rate, (long long)c->params);
        if (c->mode == PS_ALLREDUCE)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: a ring all-reduce over %d workers takes about %s per step, "
                                "over the %.0f s allowed; raise 'link' or lower 'params'",
                                head, c->workers, took, PS_MAX_STEP_LINK_S);
        if (c->server_nic_shared)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s with server_nic=shared: %d workers' pulls queue on a shard's "
                                "link, about %s per step, over the %.0f s allowed; raise 'link', "
                                "lower 'params' or use server_nic=per_link",
                                head, c->workers, took, PS_MAX_STEP_LINK_S);
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: a step's pull and push (%s each way per connection) take "
                            "about %s on the link, over the %.0f s allowed; raise 'link', lower "
                            "'params' or add 'servers'",
                            head, slice, took, PS_MAX_STEP_LINK_S);
    }
    if (c->recover && c->mode != PS_ALLREDUCE && c->checkpoint_every == 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "recover=on restarts a dead shard from its last checkpoint: set "
                            "checkpoint_every above 0");
    double work = (double)c->batch * (double)c->nnz;
    if (work > PS_MAX_NNZ_WORK)
        return core_err_set(err, CORE_ERR_INVALID,
                            "batch x non-zero features per example = %d x %lld = %.3g per worker "
                            "step, over the %.0g this lab allows (each step would take seconds of "
                            "CPU): lower 'batch' or raise 'sparsity'",
                            c->batch, (long long)c->nnz, work, PS_MAX_NNZ_WORK);

    /* Memory: each worker keeps weights, gradient, the connections' two
     * message buffers (x2 more with top-k's residual); the shards their
     * slices, sums, checkpoints and each connection's buffers; the master
     * checkpoints and the final weights. */
    double P = 4.0 * (double)c->params, Wd = c->workers;
    double need = Wd * P * (4 + (c->comp == PS_COMP_TOPK ? 2 : 0)) +
                  (c->mode != PS_ALLREDUCE ? Wd * P * (c->mode == PS_SYNC ? 2 : 4) + 4 * P : 0) +
                  3 * P;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    double mem = pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
    if (mem > 0 && need > mem / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "params = %lld with workers = %d needs about %.0f MiB of memory, more "
                            "than half of this machine's %.0f MiB: lower 'params' or 'workers'",
                            (long long)c->params, c->workers, need / 1048576.0, mem / 1048576.0);
    return 0;
}

static int psm_check(const struct lab_params *p, struct core_err *err)
{
    struct ps_cfg c;
    return psm_cfg(p, &c, err);
}

/* ---- children -------------------------------------------------------------------- */

static const char *mode_name(int m)
{
    static const char *const names[] = {"sync", "async", "ssp", "allreduce"};
    return names[m];
}

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
 * end of its rank (ps_child_hang). */
static void psm_kill(struct psm *r, const struct psm_child *ch, int role, int index)
{
    if (r->cfg.mpi)
        ps_mpi_master_kill(&r->cfg, role, index);
    else
        r->ps->ops->kill(ch->pid, SIGKILL);
}

/* A child started as a rank (transport=mpi): ctl is open already. */
static void as_rank(struct psm *r, struct psm_child *out, int role, int index)
{
    int rank = ps_rank_of(&r->cfg, role, index);
    out->idx = (size_t)rank;
    out->pid = r->ranks ? r->ranks[rank].pid : 0;
    out->state = CH_RUNNING;
    out->dropped = false;
    out->heard = core_time_mono();
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
    out->state = CH_RUNNING;
    out->dropped = false;
    out->heard = core_time_mono();
    out->hung_s = 0;
    int fd = dup(r->ps->v[i].fd);
    if (fd < 0)
        return core_err_set(err, CORE_ERR_IO, "dup: %s", strerror(errno));
    ps_conn_init_local(&out->ctl, fd, NULL, lab_ctx_cancel_flag(r->cx));
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
    struct ps_conn srv_ctl[PS_MAX_SERVERS], wrk_ctl[PS_MAX_WORKERS];
    int rc = ps_mpi_master_start(r->cx, &r->cfg, srv_ctl, wrk_ctl, r->ranks, err);
    if (rc)
        return rc;
    for (int s = 0; s < r->S; s++) {
        ps_conn_close(&r->srv[s].ctl);
        r->srv[s].ctl = srv_ctl[s];
        as_rank(r, &r->srv[s], 0, s);
    }
    for (int w = 0; w < r->W; w++) {
        ps_conn_close(&r->wrk[w].ctl);
        r->wrk[w].ctl = wrk_ctl[w];
        as_rank(r, &r->wrk[w], 1, w);
    }
    return 0;
}

/* Makes every data socketpair, then starts the shards and the workers. */
static int psm_start(struct psm *r, struct core_err *err)
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
        rc = spawn(r, ps_server_main, a, &r->srv[s], err);
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
        rc = spawn(r, ps_worker_main, a, &r->wrk[w], err);
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
    ps_shard_range(c->params, c->servers, s, &lo, &hi);
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
        a.live[w] = r->wrk[w].state == CH_RUNNING;
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
        rc = ps_mpi_master_restart(r->cx, c, &a, r->gen[s] + 1, n, &r->srv[s].ctl, err);
        if (rc)
            goto out;
        as_rank(r, &r->srv[s], 0, s);
    } else {
        ps_conn_close(&r->srv[s].ctl);
        rc = spawn(r, ps_server_main, &a, &r->srv[s], err);
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
        if (ps_send(&r->wrk[w].ctl, PS_MSG_RECONNECT, s, r->gen[s], NULL, 0, 5000, &e) == 0 &&
            !c->mpi)
            ps_fd_send(r->wrk[w].ctl.fd, fds[2 * w + 1], &e);
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
        if (r->wrk[w].state != CH_DEAD && r->reported[w] <= t)
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
        if (r->wrk[v].state == CH_DEAD)
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
static void psm_emit_snapshots(struct psm *r)
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
        psm_emit_snapshots(r);
    r->tick_at = now;
    r->tick_updates = r->updates;
    int64_t done = 0, total = 0;
    for (int w = 0; w < r->W; w++) {
        done += r->reported[w];
        total += r->wrk[w].state == CH_DEAD ? r->reported[w] : r->cfg.steps;
    }
    char what[96];
    snprintf(what, sizeof what, "%s: step %lld of %lld", mode_name(r->cfg.mode),
             (long long)r->next_emit, (long long)r->cfg.steps);
    lab_progress(r->cx, total > 0 ? (double)done / (double)total : 0, what);
}

/* ---- the main loop ---------------------------------------------------------------- */

static int living_workers(const struct psm *r)
{
    int n = 0;
    for (int w = 0; w < r->W; w++)
        n += r->wrk[w].state != CH_DEAD;
    return n;
}

static int running_workers(const struct psm *r)
{
    int n = 0;
    for (int w = 0; w < r->W; w++)
        n += r->wrk[w].state == CH_RUNNING;
    return n;
}

static int psm_worker_died(struct psm *r, int w, struct core_err *err)
{
    char how[200];
    describe_end(r, &r->wrk[w], "worker", w + 1, how, sizeof how);
    if (r->wrk[w].dropped)
        snprintf(how, sizeof how, "worker %d (pid %d) stopped answering; the master ended it",
                 w + 1, (int)r->wrk[w].pid);
    r->wrk[w].state = CH_DEAD;
    ps_conn_close(&r->wrk[w].ctl);
    r->workers_lost++;
    /* the others may have been held by it (ssp's bound): their hang
     * timeout starts again */
    double now = core_time_mono();
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
    r->srv[s].state = CH_DEAD;
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
    double now = core_time_mono();
    for (int w = 0; w < r->W; w++)
        r->wrk[w].heard = now;
    return psm_restart_shard(r, s, line, err);
}

static int psm_child_msg(struct psm *r, bool is_srv, int k, const struct ps_msg *m,
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
            r->wrk[k].state = CH_DONE;
        return psm_emit_steps(r, err);
    case PS_MSG_LOG:
        lab_log(r->cx,
                m->a == LAB_LOG_ERROR  ? LAB_LOG_ERROR
                : m->a == LAB_LOG_WARN ? LAB_LOG_WARN
                                       : LAB_LOG_INFO,
                "%.*s", len, txt);
        if (is_srv && m->a == LAB_LOG_WARN && m->b >= 0 && m->b < r->W &&
            r->wrk[m->b].state == CH_RUNNING && !r->wrk[m->b].dropped) {
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
            ps_shard_range(r->cfg.params, r->cfg.servers, k, &lo, &hi);
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
    double lim = c->sync_timeout_ms / 1000.0, now = core_time_mono();
    if (lim <= 0)
        return 0;
    for (int s = 0; s < r->S; s++) {
        struct psm_child *ch = &r->srv[s];
        if (ch->state != CH_RUNNING || now - ch->heard < lim / 2)
            continue;
        ch->hung_s = now - ch->heard;
        psm_kill(r, ch, 0, s);
        int rc = psm_shard_died(r, s, err);
        if (rc)
            return rc;
        now = core_time_mono();
    }
    if (c->mode == PS_SYNC)
        return 0;
    int64_t slowest = INT64_MAX;
    bool all_silent = true;
    for (int w = 0; w < r->W; w++)
        if (r->wrk[w].state == CH_RUNNING) {
            if (r->reported[w] < slowest)
                slowest = r->reported[w];
            all_silent &= now - r->wrk[w].heard >= lim;
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
        if (ch->state != CH_RUNNING || r->reported[w] != slowest || now - ch->heard < lim)
            continue;
        ch->hung_s = now - ch->heard;
        psm_kill(r, ch, 1, w);
        int rc = psm_worker_died(r, w, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int psm_loop(struct psm *r, struct core_err *err)
{
    struct ps_conn *cs[PS_MAX_SERVERS + PS_MAX_WORKERS];
    int who[PS_MAX_SERVERS + PS_MAX_WORKERS];
    while (running_workers(r) > 0) {
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        size_t n = 0;
        for (int s = 0; s < r->S; s++)
            if (r->srv[s].state == CH_RUNNING) {
                cs[n] = &r->srv[s].ctl;
                who[n++] = s;
            }
        for (int w = 0; w < r->W; w++)
            if (r->wrk[w].state == CH_RUNNING) {
                cs[n] = &r->wrk[w].ctl;
                who[n++] = PS_MAX_SERVERS + w;
            }
        struct core_err e;
        core_err_clear(&e);
        int i = ps_wait_any(cs, n, 50, &e);
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
        (is_srv ? &r->srv[k] : &r->wrk[k])->heard = core_time_mono();
        struct ps_msg m;
        int rc = ps_recv(cs[i], &m, 10000, &e);
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
static int psm_final(struct psm *r, struct core_err *err)
{
    const struct ps_cfg *c = &r->cfg;
    r->final_w = core_xcalloc((size_t)c->params, sizeof(float));
    if (c->mode == PS_ALLREDUCE) {
        for (int w = 0; w < r->W; w++) {
            if (r->wrk[w].state != CH_DONE)
                continue;
            struct ps_msg m;
            int rc = ps_send(&r->wrk[w].ctl, PS_MSG_FINAL, 0, 0, NULL, 0, 5000, err);
            if (rc == 0)
                rc = ps_recv(&r->wrk[w].ctl, &m, PSM_FINAL_MS, err);
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
        if (r->srv[s].state != CH_RUNNING)
            continue;
        int rc = ps_send(&r->srv[s].ctl, PS_MSG_FINAL, 0, 0, NULL, 0, 5000, err);
        for (;;) {
            struct ps_msg m;
            if (rc == 0)
                rc = ps_recv(&r->srv[s].ctl, &m, PSM_FINAL_MS, err);
            if (rc)
                return core_err_prefix(err, "reading shard %d's weights", s + 1);
            if (m.type != PS_MSG_FINAL) {
                rc = psm_child_msg(r, true, s, &m, err);
                continue;
            }
            int64_t lo, hi;
            ps_shard_range(c->params, c->servers, s, &lo, &hi);
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

static void psm_stop_children(struct psm *r)
{
    struct core_err e;
    for (int s = 0; s < r->S; s++)
        if (r->srv[s].state != CH_DEAD && r->srv[s].ctl.fd >= 0)
            ps_send(&r->srv[s].ctl, PS_MSG_EXIT, 0, 0, NULL, 0, 200, &e);
    for (int w = 0; w < r->W; w++)
        if (r->wrk[w].state != CH_DEAD && r->wrk[w].ctl.fd >= 0)
            ps_send(&r->wrk[w].ctl, PS_MSG_EXIT, 0, 0, NULL, 0, 200, &e);
    for (size_t i = 0; i < r->ps->n; i++)
        if (!r->ps->v[i].reaped)
            lab_proc_reap(r->ps, i, 2000, &e);
    /* (ranks: rank 0's END, at the end of the run, lets them go) */
}

/* ---- the summary --------------------------------------------------------------------- */

static void psm_summary(struct psm *r)
{
    struct lab_ctx *cx = r->cx;
    const struct ps_cfg *c = &r->cfg;
    double step = 0, comp = 0, wait = 0, comm = 0, mbps = 0;
    int nw = 0, nb = 0;
    for (int w = 0; w < r->W; w++) {
        if (r->n_timed[w] == 0)
            continue;
        double k = (double)r->n_timed[w];
        step += r->sum_step[w] / k;
        comp += r->sum_compute[w] / k;
        wait += r->sum_wait[w] / k;
        comm += r->sum_comm[w] / k;
        nw++;
        if (r->sum_xfer[w] > 0 && r->xfer_bytes[w] > 0) {
            mbps += (double)r->xfer_bytes[w] / r->sum_xfer[w] / 1e6;
            nb++;
        }
    }
    if (nw == 0)
        return;
    step = 1000 * step / nw;
    comp = 1000 * comp / nw;
    wait = 1000 * wait / nw;
    double comm_ms = step - comp;
    double frac = step > 0 ? comm_ms / step : 0;

    lab_figure_num(cx, "comm_fraction", frac, "",
                   "communication fraction (step - compute) / step, measured");
    lab_figure_str(cx, "mode", mode_name(c->mode), "consistency mode");
    lab_figure_num(cx, "step_ms", step, "ms", "mean wall time of one worker step");
    lab_figure_num(cx, "compute_ms_mean", comp, "ms", "measured compute per step");
    lab_figure_num(cx, "comm_ms", comm_ms, "ms", "step minus compute: communication and waiting");
    if (c->link.bytes_per_s > 0) {
        double t = c->mode == PS_ALLREDUCE
                       ? ps_predict_ring_s(c->params, c->workers, c->link.bytes_per_s)
                       : ps_predict_comm_s(c->params, c->link.bytes_per_s);
        double cms = c->compute_s * 1000;
        lab_figure_num(cx, "predicted_comm_ms", 1000 * t, "ms",
                       c->mode == PS_ALLREDUCE ? "course model: 2(W-1)/W x 4 B x params / link"
                                               : "course model: 2 x 4 B x params / link");
        lab_figure_num(cx, "predicted_comm_fraction", t * 1000 / (t * 1000 + cms), "",
                       "course model: t_comm / (t_comm + compute_ms)");
        lab_figure_num(cx, "link_mb_s", c->link.bytes_per_s / 1e6, "MB/s",
                       "emulated link, each direction of each connection");
    }
    int64_t n_loss = r->next_emit;
    if (n_loss > 0) {
        int64_t k = n_loss / 10 > 1 ? n_loss / 10 : 1;
        double fin = 0;
        for (int64_t t = n_loss - k; t < n_loss; t++)
            fin += r->loss_by_step[t];
        lab_figure_num(cx, "final_loss", fin / (double)k, "",
                       "mean training loss over the last tenth of the steps");
        lab_figure_num(cx, "initial_loss", r->initial_loss, "", "training loss at step 0");
    }
    double train_s = r->t_last - r->t_first;
    if (train_s > 0) {
        /* the sum of the workers' own rates: what they deliver together
         * while all run (a fast async worker that finished early does not
         * count as idle until the straggler ends) */
        double ups = 0;
        for (int w = 0; w < r->W; w++)
            if (r->n_timed[w] > 0 && r->sum_step[w] > 0)
                ups += (double)r->n_timed[w] / r->sum_step[w];
        lab_figure_num(cx, "updates_per_s", ups, "/s",
                       "gradient updates per second, all workers (sum of their step rates)");
        lab_figure_num(cx, "samples_per_s", ups * c->batch, "/s", "examples trained per second");
        if (r->S > 0) {
            double sum = 0;
            for (int s = 0; s < r->S; s++)
                sum += (double)r->shard_bytes[s];
            lab_figure_num(cx, "wire_mb_s", sum / r->S / train_s / 1e6, "MB/s",
                           "bytes on the wire per second per server shard (in + out), mean");
        }
    }
    if (c->mode == PS_ASYNC || c->mode == PS_SSP)
        lab_figure_num(cx, "max_staleness", (double)r->max_gap, "steps",
                       "largest gap between a worker's step and the slowest worker's");
    if (c->mode == PS_ALLREDUCE && comm > 0) {
        double ar_s = comm / nw;
        double algbw = 4.0 * (double)c->params / ar_s / 1e9;
        lab_figure_num(cx, "allreduce_ms", 1000 * ar_s, "ms", "mean time of one all-reduce");
        lab_figure_num(cx, "algbw_gbs", algbw, "GB/s",
                       "algorithm bandwidth: gradient bytes / time");
        lab_figure_num(cx, "busbw_gbs", ps_busbw(algbw, c->workers), "GB/s",
                       "bus bandwidth (nccl-tests): algbw x 2(W-1)/W");
    }
    lab_figure_num(cx, "wait_ms_mean", wait, "ms",
                   "per worker step, time held by a barrier or the staleness bound");
    if (nb > 0)
        lab_figure_num(cx, "pushpull_mb_s", mbps / nb, "MB/s",
                       "transfer rate of one connection: pull replies' bytes / their time "
                       "from the shard's send to the worker's last byte");
    int64_t done = 0;
    for (int w = 0; w < r->W; w++)
        done = r->reported[w] > done ? r->reported[w] : done;
    lab_figure_num(cx, "steps_done", (double)done, "", "steps completed");
    lab_figure_num(cx, "workers", c->workers, "", "workers started");
    lab_figure_num(cx, "servers", r->S, "", "server shards");
    lab_figure_num(cx, "params", (double)c->params, "", "model parameters");
    lab_figure_num(cx, "workers_lost", r->workers_lost, "", "workers that died");
    if (r->S > 0) {
        lab_figure_num(cx, "shard_restarts", r->restarts, "", "shards restarted from a checkpoint");
        lab_figure_num(cx, "checkpoints", r->n_ckpt, "", "checkpoints the master received");
    }
    if (r->final_w) {
        char fnv[17];
        double l2 = 0;
        for (int64_t i = 0; i < c->params; i++)
            l2 += (double)r->final_w[i] * r->final_w[i];
        ps_weights_fnv(r->final_w, (size_t)c->params, fnv);
        lab_figure_str(cx, "weights_fnv", fnv, "FNV-1a of the final weights' bytes");
        lab_figure_num(cx, "weights_norm", sqrt(l2), "", "L2 norm of the final weights");
    }
    psm_emit_snapshots(r);
    lab_log(cx, LAB_LOG_INFO,
            "%s: %.1f ms per step = %.1f compute + %.1f communication (%.0f %%)%s",
            mode_name(c->mode), step, comp, comm_ms, 100 * frac,
            c->link.bytes_per_s > 0 ? ""
            : c->mpi                ? "; link=off: the network's own speed (Open MPI)"
                                    : "; link=off: the sockets' own speed");
}

/* ---- the run -------------------------------------------------------------------------- */

static int psm_run(struct lab_ctx *cx, struct core_err *err)
{
    struct psm *r = core_xcalloc(1, sizeof *r);
    bool relayed = false, mpi_up = false;
    int rc = psm_cfg(lab_ctx_params(cx), &r->cfg, err);
    if (rc)
        goto out;
    struct ps_cfg *c = &r->cfg;
    r->cx = cx;
    r->ps = lab_ctx_procs(cx);
    for (int i = 0; i < PS_MAX_SERVERS; i++)
        ps_conn_init_local(&r->srv[i].ctl, -1, NULL, NULL);
    for (int i = 0; i < PS_MAX_WORKERS; i++)
        ps_conn_init_local(&r->wrk[i].ctl, -1, NULL, NULL);
    if (c->mpi && lab_mpi_env_rank() < 0) {
        /* a front end: Open MPI's mpirun runs the job, rank 0 reports here */
        relayed = true;
        rc = lab_mpi_launch(cx, 1 + c->servers + c->workers, err);
        goto out;
    }
    if (c->mpi) {
        rc = lab_mpi_init(err);
        if (rc)
            goto out;
        mpi_up = true;
        r->ranks = core_xcalloc((size_t)lab_mpi_size(), sizeof *r->ranks);
    }
    r->W = c->workers;
    r->S = c->servers;
    r->agg = core_xcalloc((size_t)c->steps, sizeof *r->agg);
    r->loss_by_step = core_xcalloc((size_t)c->steps, sizeof *r->loss_by_step);

    /* the hang timeout: a silent worker (dropped from a sync barrier, or the
     * slowest in async/ssp) or shard is ended after 5 s plus twenty of the
     * expected steps, unless hang_timeout_ms says otherwise */
    double comm = ps_step_link_s(c); /* server_nic=shared: the queue of replies too */
    double expect = c->compute_s * c->straggler.factor + comm + 4 * c->link.latency_s +
                    (double)c->batch * (double)c->nnz * 2e-8;
    c->sync_timeout_ms = (int)(1000 * lab_hang_limit_s(expect)); /* the shared rule */
    double hang_ms = lab_param_num(lab_ctx_params(cx), "hang_timeout_ms");
    if (hang_ms > 0)
        c->sync_timeout_ms = (int)hang_ms;

    if (lab_param_user_set(lab_ctx_params(cx), "staleness") && c->mode != PS_SSP)
        lab_log(cx, LAB_LOG_WARN, "staleness = %d applies to mode=ssp only; mode=%s ignores it",
                c->staleness, mode_name(c->mode));
    if (c->mode == PS_ALLREDUCE) {
        static const char *const shard_only[] = {"checkpoint_every", "recover", "server_nic"};
        for (size_t i = 0; i < sizeof shard_only / sizeof shard_only[0]; i++) {
            if (lab_param_user_set(lab_ctx_params(cx), shard_only[i]))
                lab_log(cx, LAB_LOG_WARN,
                        "%s applies to server shards; mode=allreduce has none and ignores it",
                        shard_only[i]);
        }
    }
    const struct lab_machine *mach = lab_ctx_machine(cx);
    lab_log(cx, LAB_LOG_INFO,
            "%s: %d workers, %d server shard%s, %lld parameters (%lld non-zero features per "
            "example), link %s, compute %.0f ms per step",
            mode_name(c->mode), c->workers, r->S, r->S == 1 ? "" : "s", (long long)c->params,
            (long long)c->nnz, lab_param_str(lab_ctx_params(cx), "link"), c->compute_s * 1000);
    if (mach->cores_online > 0 && c->compute_s == 0 && c->workers + r->S > mach->cores_online)
        lab_log(cx, LAB_LOG_INFO,
                "%d processes share %d cores: with compute_ms = 0 they compete for the CPU",
                c->workers + r->S, mach->cores_online);
    if (c->mode == PS_ALLREDUCE && c->workers == 1)
        lab_log(cx, LAB_LOG_INFO, "one worker: nothing to all-reduce (bus bandwidth 0)");

    lab_progress(cx, 0, "starting the processes");
    c->t0 = core_time_mono();
    rc = psm_start(r, err);
    if (rc)
        goto out;
    rc = psm_loop(r, err);
    if (rc)
        goto out;
    rc = psm_final(r, err);
    if (rc)
        goto out;
    lab_progress(cx, 1, "done");
    if (c->kill_server >= 0 && r->restarts == 0)
        lab_log(cx, LAB_LOG_WARN,
                "kill_server = %d@%d did not fire: shard %d counts steps by the slowest worker "
                "still training (mode=%s), and that never reached step %d (the others had "
                "finished or died)",
                c->kill_server + 1, c->kill_server_step, c->kill_server + 1, mode_name(c->mode),
                c->kill_server_step);
    psm_summary(r);
out:
    if (rc && rc != CORE_ERR_CANCELLED && r->next_emit > 0 && r->cx)
        psm_summary(r); /* what was measured before it stopped */
    if (rc == 0 && !relayed)
        psm_stop_children(r); /* otherwise lab_run kills them: a cancel must be quick */
    if (rc && lab_mpi_term_noted())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "Open MPI ended the job (rank 0 had SIGTERM from mpirun): another rank "
                          "died or mpirun was stopped; mpirun's own message names the rank");
    for (int i = 0; i < PS_MAX_SERVERS; i++) {
        ps_conn_close(&r->srv[i].ctl);
        free(r->ckpt[i]);
    }
    for (int i = 0; i < PS_MAX_WORKERS; i++)
        ps_conn_close(&r->wrk[i].ctl);
    if (mpi_up && !lab_mpi_term_noted()) {
        lab_mpi_end_all(); /* every rank lets go, whatever state it is in */
        lab_mpi_finish();
    } /* (else Open MPI is ending the job: record the run while it can) */
    free(r->agg);
    free(r->loss_by_step);
    free(r->final_w);
    free(r->ranks);
    free(r);
    return rc;
}

/* ---- the definition ----------------------------------------------------------------------- */

static const struct lab_param_def psm_params[] = {
    {"mode", LAB_P_ENUM, "sync", NULL, 0, 0, "sync|async|ssp|allreduce", "",
     "sync: barrier each step; async: apply on arrival; ssp: bounded staleness; allreduce: ring"},
    {"workers", LAB_P_INT, "4", NULL, 1, PS_MAX_WORKERS, NULL, "", "worker processes"},
    {"servers", LAB_P_INT, "1", NULL, 1, PS_MAX_SERVERS, NULL, "",
     "server shards (keys split by range; not with allreduce)"},
    {"params", LAB_P_INT, "100000", NULL, 10, 10000000, NULL, "", "model parameters (floats)"},
    {"sparsity", LAB_P_REAL, "0.999", NULL, 0, 0.9999, NULL, "",
     "fraction of zero features per example (0: dense)"},
    {"batch", LAB_P_INT, "32", NULL, 1, 4096, NULL, "", "examples per worker step"},
    {"lr", LAB_P_REAL, "0.5", NULL, 1e-6, 1000, NULL, "", "learning rate of SGD"},
    {"steps", LAB_P_INT, "100", NULL, 1, 100000, NULL, "", "training steps per worker"},
    {"staleness", LAB_P_INT, "2", NULL, 0, 1000, NULL, "steps",
     "ssp: how many steps a worker may run ahead of the slowest"},
    {"compute_ms", LAB_P_REAL, "10", NULL, 0, 10000, NULL, "ms",
     "extra compute per step (emulates a bigger model; a sleep)"},
    {"link", LAB_P_STR, "1Gbps", NULL, 0, 0, NULL, "",
     "emulated link per connection: off, 100Mbps, 1Gbps, 10Gbps, ..."},
    {"latency_ms", LAB_P_REAL, "0", NULL, 0, 1000, NULL, "ms", "one-way latency of the link"},
    {"straggler", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "W:FACTOR: worker W (from 1) computes FACTOR times as long, 1 to 1000 (e.g. 2:3)"},
    {"compress", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "pushes: none, q8 (8-bit) or topk:F (largest fraction F, error feedback)"},
    {"checkpoint_every", LAB_P_INT, "10", NULL, 0, 100000, NULL, "steps",
     "shards send the master a checkpoint this often (0: never)"},
    {"seed", LAB_P_INT, "1", NULL, 0, 2147483647, NULL, "", "seed of the synthetic data"},
    {"model", LAB_P_ENUM, "logistic", NULL, 0, 0, "logistic|linear", "",
     "logistic or linear regression"},
    {"server_nic", LAB_P_ENUM, "per_link", NULL, 0, 0, "per_link|shared", "",
     "shared: a shard's replies share one outgoing link (its NIC)"},
    {"kill_worker", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP kills worker N at that step (SIGKILL)"},
    {"kill_server", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP kills server shard N at that step (SIGKILL)"},
    {"stop_worker", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP stops worker N at that step (SIGSTOP: a hang)"},
    {"stop_server", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP stops server shard N at that step (SIGSTOP: a hang)"},
    {"hang_timeout_ms", LAB_P_REAL, "0", NULL, 0, 3600000, NULL, "ms",
     "a worker silent this long, or a shard half as long, is ended (0: 5 s + 20 steps)"},
    {"recover", LAB_P_BOOL, "off", NULL, 0, 0, NULL, "",
     "restart a dead or hung shard from its last checkpoint and go on"},
    {"trace", LAB_P_BOOL, "off", NULL, 0, 0, NULL, "",
     "also emit each worker's step clocks (trace_pull, trace_push)"},
    {"transport", LAB_P_ENUM, "local", NULL, 0, 0, "local|mpi", "",
     "local: processes on this machine; mpi: ranks of an Open MPI job"},
    {"hosts", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across hosts: NAME:SLOTS,... (Warpbench runs mpirun)"},
    {"hostfile", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across the hosts of an Open MPI hostfile"},
};

static const struct lab_series_def psm_series[] = {
    {"loss", "training loss (mean of the workers)", "", "loss vs steps", "step"},
    {"loss_time", "training loss (each worker's latest, mean)", "", "loss vs wall time",
     "wall time (ms)"},
    {"compute_ms", "compute per step", "ms", "time per step", "step"},
    {"comm_ms", "communication per step", "ms", "time per step", "step"},
    {"wait_ms", "held by barrier/staleness", "ms", "time per step", "step"},
    {"updates_per_s", "gradient updates per second", "/s", "updates per second", "wall time (ms)"},
    {"wire_s1", "shard 1", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s2", "shard 2", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s3", "shard 3", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s4", "shard 4", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s5", "shard 5", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s6", "shard 6", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s7", "shard 7", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s8", "shard 8", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"staleness", "worker steps with this staleness", "", "staleness histogram",
     "staleness (steps)"},
    {"worker_compute_ms", "compute per step", "ms", "per worker", "worker"},
    {"worker_comm_ms", "communication per step", "ms", "per worker", "worker"},
    {"worker_wait_ms", "held per step", "ms", "per worker", "worker"},
};

/* Re-sent while the run goes on; front ends keep the latest per step. */
static const char *const psm_snapshot[] = {"staleness", "worker_compute_ms", "worker_comm_ms",
                                           "worker_wait_ms", NULL};

/* lab_def.mpi_workers: rank 0 and the shards take theirs (allreduce: none). */
static int psm_mpi_workers(const struct lab_params *p, int ranks)
{
    bool ring = strcmp(lab_param_str(p, "mode"), "allreduce") == 0;
    return ranks - 1 - (ring ? 0 : (int)lab_param_num(p, "servers"));
}

const struct lab_def lab_paramserver = {
    .name = "paramserver",
    .title = "Parameter server and all-reduce SGD",
    .summary = "sync/async/ssp SGD over server shards and worker processes on an emulated link, "
               "ring all-reduce to compare; stragglers, compression, faults",
    .params = psm_params,
    .n_params = sizeof psm_params / sizeof psm_params[0],
    .series = psm_series,
    .n_series = sizeof psm_series / sizeof psm_series[0],
    .check = psm_check,
    .run = psm_run,
    .snapshot = psm_snapshot,
    .mpi_workers = psm_mpi_workers,
    .rank = ps_mpi_rank_main,
};
