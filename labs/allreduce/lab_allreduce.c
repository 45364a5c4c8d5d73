/*
 * lab_allreduce.c — lab "allreduce": ring against tree all-reduce over a
 * message-size sweep (4 KiB .. 256 MiB by default, a log axis), measured
 * against the course's alpha-beta model, and — run over Open MPI
 * (transport=mpi) — against Open MPI's own MPI_Allreduce and an MPI
 * ping-pong on the same ranks and sizes.
 *
 * W worker processes (local: forked, with socketpairs; mpi: ranks 1..W,
 * rank 0 the master) hold M bytes of floats each. For every size the master
 * asks each worker to run, in the same order: the ring all-reduce of the
 * parameter-server lab (lab_net_ring_allreduce), the binomial tree all-reduce
 * (lab_net_tree_allreduce), a ping-pong between workers 1 and 2 over the ring's
 * link (our transport's point-to-point: half the round trip), and under MPI
 * MPI_Allreduce and MPI_Send/MPI_Recv ping-pong. The first operation of
 * each kind sums known integers and is checked element by element (every
 * rank must hold the exact sum); the timed repetitions then sum zeros. A
 * collective's time is the slowest worker's mean; the ping-pong's is
 * worker 1's.
 *
 * The model. From the ping-pong the master fits alpha (latency) and B
 * (bandwidth): t(M) = alpha + M/B, B from the slope between the two largest
 * sizes or the best rate seen (the higher), alpha from the smallest. The course's formulas: ring
 * 2(p-1)/p M/B, tree 2 log2(p) (alpha + M/B); and the ring with its latency too, 2(p-1) alpha +
 * 2(p-1)/p M/B, which is what makes the tree win below a crossover size:
 * M* = (p-1-L) alpha B / (L - (p-1)/p), L = ceil(log2 p).
 *
 * Bus bandwidth (nccl-tests): busbw = algbw x 2(p-1)/p, algbw = M / t.
 *
 * Uses the lab framework, the communication layer (lab_net.h: frames,
 * the emulated link, ring and tree) and the MPI runtime (lab_mpi.h).
 */
#include "labs/allreduce/lab_allreduce.h"
#include "labs/transport/lab_mpi.h"
#include "labs/transport/lab_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define AR_MAX_WORKERS 64
#define AR_MAX_LEVELS 6 /* ceil(log2 64) */
#define AR_MAX_SIZES 64
#define AR_MSG_SIZE 0x41520001u   /* master -> worker: a = bytes, b = reps */
#define AR_MSG_RESULT 0x41520002u /* worker -> master: struct ar_result */
#define AR_MSG_EXIT 0x41520003u
#define AR_MSG_ERROR 0x41520004u /* worker -> master: text */
#define AR_MSG_P2P 0x41520005u
#define AR_IO_MS 600000 /* one size's measurements (a 256 MiB tree on a slow link) */

struct ar_cfg {
    int workers, factor;
    int64_t min_bytes, max_bytes;
    double time_s; /* measuring time per size and algorithm */
    struct lab_net_link_cfg link;
    bool mpi;
    double t0; /* clock base of the connections */
};

/* A worker's times for one size: mean seconds per operation (0: not run). */
struct ar_result {
    double ring_s, tree_s, p2p_s, mpi_s, mpi_p2p_s;
    int32_t ring_ok, tree_ok, mpi_ok, pad;
};

/* ---- the worker ------------------------------------------------------------------ */

struct ar_worker {
    const struct ar_cfg *c;
    int me, W;
    struct lab_net_conn ctl, left, right;
    struct lab_net_conn tree[AR_MAX_LEVELS];
    /* local: descriptors inherited through fork */
    const int *all_fds;
    size_t n_fds;
    int ctl_fd, left_fd, right_fd, tree_fd[AR_MAX_LEVELS];
};

static void fill(float *x, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((rank + 1) * (int)(1 + i % 13));
}

/* Every element the exact sum of fill() over W ranks. */
static bool summed(const float *x, size_t n, int W)
{
    float tri = (float)(W * (W + 1) / 2);
    for (size_t i = 0; i < n; i++)
        if (x[i] != tri * (float)(int)(1 + i % 13))
            return false;
    return true;
}

static double now_s(void)
{
    return core_time_mono();
}

/* Every worker waits here for the others (a ring all-reduce of one float,
 * over our transport: a worker with nothing to do waits sleeping, so the
 * next operation is timed with every worker at the start line and none
 * spinning beside it). */
static int quiet_barrier(struct ar_worker *k, struct core_err *err)
{
    float one = 1;
    return lab_net_ring_allreduce(&k->left, &k->right, k->me, k->W, &one, 1, NULL, AR_IO_MS, err);
}

/* One size: each algorithm checked once, then timed `reps` times. */
static int ar_measure(struct ar_worker *k, float *x, size_t bytes, int reps, struct ar_result *r,
                      struct core_err *err)
{
    const size_t n = bytes / sizeof(float);
    struct lab_net_conn *links[AR_MAX_LEVELS];
    for (int l = 0; l < AR_MAX_LEVELS; l++)
        links[l] = &k->tree[l];
    memset(r, 0, sizeof *r);
    /* ring */
    fill(x, n, k->me);
    int rc = lab_net_ring_allreduce(&k->left, &k->right, k->me, k->W, x, n, NULL, AR_IO_MS, err);
    if (rc)
        return rc;
    r->ring_ok = summed(x, n, k->W);
    memset(x, 0, bytes);
    double t = now_s();
    for (int i = 0; i < reps && rc == 0; i++)
        rc = lab_net_ring_allreduce(&k->left, &k->right, k->me, k->W, x, n, NULL, AR_IO_MS, err);
    r->ring_s = (now_s() - t) / reps;
    /* tree */
    fill(x, n, k->me);
    if (rc == 0)
        rc = quiet_barrier(k, err);
    if (rc == 0)
        rc = lab_net_tree_allreduce(links, k->me, k->W, x, n, AR_IO_MS, err);
    if (rc)
        return rc;
    r->tree_ok = summed(x, n, k->W);
    memset(x, 0, bytes);
    t = now_s();
    for (int i = 0; i < reps && rc == 0; i++)
        rc = lab_net_tree_allreduce(links, k->me, k->W, x, n, AR_IO_MS, err);
    r->tree_s = (now_s() - t) / reps;
    if (rc == 0)
        rc = quiet_barrier(k, err);
    if (rc)
        return rc;
    /* our point-to-point: workers 1 and 2 over the ring's link 1 -> 2 */
    if (k->me <= 1) {
        struct lab_net_conn *c = k->me == 0 ? &k->right : &k->left;
        struct lab_net_part part = {x, bytes};
        /* the first two round trips warm up: each side receives into two
         * buffers in turn (the connection's), and both are touched then */
        for (int i = 0; i < reps + 2 && rc == 0; i++) {
            if (i == 2)
                t = now_s();
            struct lab_net_msg m;
            if (k->me == 0) {
                rc = lab_net_send(c, AR_MSG_P2P, i, 0, &part, 1, AR_IO_MS, err);
                if (rc == 0)
                    rc = lab_net_recv(c, &m, AR_IO_MS, err);
            } else {
                rc = lab_net_recv(c, &m, AR_IO_MS, err);
                if (rc == 0)
                    rc = lab_net_send(c, AR_MSG_P2P, i, 1, &part, 1, AR_IO_MS, err);
            }
        }
        r->p2p_s = (now_s() - t) / reps / 2;
    }
    if (rc == 0)
        rc = quiet_barrier(k, err);
    if (rc || !k->c->mpi)
        return rc;
    /* Open MPI's own */
    fill(x, n, k->me);
    rc = lab_mpi_allreduce(x, n, err);
    if (rc)
        return rc;
    r->mpi_ok = summed(x, n, k->W);
    memset(x, 0, bytes);
    t = now_s();
    for (int i = 0; i < reps && rc == 0; i++)
        rc = lab_mpi_allreduce(x, n, err);
    r->mpi_s = (now_s() - t) / reps;
    if (rc == 0)
        rc = quiet_barrier(k, err);
    rc = rc ? rc : lab_mpi_pingpong(x, bytes, err);
    t = now_s();
    for (int i = 0; i < reps && rc == 0; i++)
        rc = lab_mpi_pingpong(x, bytes, err);
    if (k->me <= 1)
        r->mpi_p2p_s = (now_s() - t) / reps / 2;
    return rc;
}

static int ar_serve(struct ar_worker *k)
{
    struct core_err err;
    core_err_clear(&err);
    float *x = NULL;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        struct lab_net_msg m;
        if (lab_net_recv(&k->ctl, &m, -1, &err) != 0 || m.type == AR_MSG_EXIT)
            break;
        if (m.type != AR_MSG_SIZE)
            continue;
        size_t bytes = (size_t)m.a;
        int reps = (int)m.b;
        if (bytes > cap) {
            lab_mpi_defer_free(x); /* a send given up may still read it */
            x = core_xmalloc(bytes);
            cap = bytes;
        }
        struct ar_result r;
        rc = ar_measure(k, x, bytes, reps < 1 ? 1 : reps, &r, &err);
        struct lab_net_part part;
        uint32_t type = AR_MSG_RESULT;
        if (rc) {
            type = AR_MSG_ERROR;
            part = (struct lab_net_part){err.msg, strlen(err.msg)};
        } else {
            part = (struct lab_net_part){&r, sizeof r};
        }
        if (lab_net_send(&k->ctl, type, (int64_t)bytes, k->me, &part, 1, 60000, &err) != 0 || rc)
            break;
    }
    lab_mpi_defer_free(x);
    return rc ? 1 : 0;
}

static void ar_close(struct ar_worker *k)
{
    lab_net_conn_close(&k->ctl);
    lab_net_conn_close(&k->left);
    lab_net_conn_close(&k->right);
    for (int l = 0; l < AR_MAX_LEVELS; l++)
        lab_net_conn_close(&k->tree[l]);
}

static int ar_worker_main(int ctl_fd, void *arg)
{
    struct ar_worker *k = arg;
    const struct ar_cfg *c = k->c;
    for (size_t i = 0; i < k->n_fds; i++) {
        int fd = k->all_fds[i];
        bool mine = fd == k->left_fd || fd == k->right_fd;
        for (int l = 0; l < AR_MAX_LEVELS; l++)
            mine |= fd == k->tree_fd[l];
        if (fd >= 0 && !mine)
            close(fd);
    }
    lab_net_conn_init_local(&k->ctl, ctl_fd, NULL, NULL);
    lab_net_conn_init_local(&k->left, k->left_fd, &c->link, NULL);
    lab_net_conn_init_local(&k->right, k->right_fd, &c->link, NULL);
    for (int l = 0; l < AR_MAX_LEVELS; l++)
        lab_net_conn_init_local(&k->tree[l], k->tree_fd[l], &c->link, NULL);
    int rc = ar_serve(k);
    ar_close(k);
    return rc;
}

/* The MPI wiring of worker w (rank w + 1): ring link w -> w + 1 on
 * RING(w), tree link (r, r + 2^l) on TREE(l * 64 + r). */
static void ar_wire_mpi(struct ar_worker *k, const struct ar_cfg *c, int w)
{
    int W = c->workers;
    k->c = c;
    k->me = w;
    k->W = W;
    lab_net_conn_init_mpi(&k->ctl, 0, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, w + 1), c->t0, NULL, NULL);
    int l = (w + W - 1) % W, r = (w + 1) % W;
    lab_net_conn_init_mpi(&k->left, l + 1, LAB_MPI_TAG(LAB_MPI_KIND_RING, 0, l), c->t0, &c->link,
                          NULL);
    lab_net_conn_init_mpi(&k->right, r + 1, LAB_MPI_TAG(LAB_MPI_KIND_RING, 0, w), c->t0, &c->link,
                          NULL);
    for (int lv = 0; lv < AR_MAX_LEVELS; lv++) {
        if (!lab_net_tree_linked(w, W, lv)) {
            lab_net_conn_init_local(&k->tree[lv], -1, NULL, NULL);
            continue;
        }
        int peer = w ^ (1 << lv), lo = w < peer ? w : peer;
        lab_net_conn_init_mpi(&k->tree[lv], peer + 1,
                              LAB_MPI_TAG(LAB_MPI_KIND_TREE, 0, lv * 64 + lo), c->t0, &c->link,
                              NULL);
    }
}

/* START's payload. */
struct ar_start {
    struct ar_cfg cfg;
    int32_t index, pad;
};

/* The rank's part: Open MPI's workers' communicator, then rank 0's sizes. */
static int ar_rank_serve(const void *start, void *ud)
{
    struct core_err *err = ud;
    struct ar_start st;
    memcpy(&st, start, sizeof st);
    int rc = lab_mpi_workers_begin(err);
    if (rc)
        return rc;
    st.cfg.t0 = lab_mpi_t_base();
    struct ar_worker k;
    memset(&k, 0, sizeof k);
    ar_wire_mpi(&k, &st.cfg, st.index);
    ar_serve(&k);
    ar_close(&k);
    lab_mpi_workers_end();
    return 0;
}

static int ar_rank_main(const struct lab_params *p, struct core_err *err)
{
    (void)p; /* the configuration comes with rank 0's START order */
    return lab_mpi_job_serve(sizeof(struct ar_start), ar_rank_serve, err, err);
}

/* ---- the master -------------------------------------------------------------------- */

/* The sizes of the sweep: min, min x factor, ... up to max (multiples of
 * 4 bytes). */
static int ar_sizes(const struct ar_cfg *c, int64_t *out)
{
    int n = 0;
    for (double s = (double)c->min_bytes; s <= (double)c->max_bytes * 1.0000001 && n < AR_MAX_SIZES;
         s *= c->factor) {
        int64_t b = (int64_t)llround(s / 4) * 4;
        out[n++] = b < 4 ? 4 : b;
    }
    return n;
}

static int ar_cfg_read(const struct lab_params *p, struct ar_cfg *c, struct core_err *err)
{
    memset(c, 0, sizeof *c);
    c->workers = (int)lab_param_num(p, "workers");
    c->min_bytes = (int64_t)lab_param_num(p, "min_bytes");
    c->max_bytes = (int64_t)lab_param_num(p, "max_bytes");
    c->factor = (int)lab_param_num(p, "factor");
    c->time_s = lab_param_num(p, "time_ms") / 1000.0;
    c->link.latency_s = lab_param_num(p, "latency_ms") / 1000.0;
    int rc = lab_net_link_parse(lab_param_str(p, "link"), &c->link.bytes_per_s, err);
    if (rc)
        return core_err_prefix(err, "parameter 'link'");
    if (c->min_bytes > c->max_bytes)
        return core_err_set(err, CORE_ERR_INVALID, "min_bytes = %lld is more than max_bytes = %lld",
                            (long long)c->min_bytes, (long long)c->max_bytes);
    c->mpi = lab_mpi_params_use(p);
    if (c->mpi) {
        if (!lab_mpi_built())
            return core_err_set(err, CORE_ERR_INVALID,
                                "transport=mpi: this build has no Open MPI (install "
                                "libopenmpi-dev and openmpi-bin, then configure with "
                                "-DWB_MPI=ON)");
        int ranks = 0;
        if ((rc = lab_mpi_ranks_given(p, &ranks, err)) != 0)
            return rc;
        if (ranks > 0 && !lab_param_user_set(p, "workers"))
            c->workers = ranks - 1;
        else if (ranks > 0 && c->workers + 1 != ranks)
            return core_err_set(err, CORE_ERR_INVALID,
                                "transport=mpi: workers = %d with the master take %d ranks, but "
                                "the job has %d: leave 'workers' out or change the ranks",
                                c->workers, c->workers + 1, ranks);
    }
    if (c->workers < 2 || c->workers > AR_MAX_WORKERS)
        return core_err_set(err, CORE_ERR_INVALID, "an all-reduce needs 2 to %d workers, not %d%s",
                            AR_MAX_WORKERS, c->workers,
                            c->mpi ? " (the job's ranks but rank 0)" : "");
    double mem = (double)lab_machine_mem_bytes();
    /* each worker: the data, a received message, the transport's buffers */
    double need = 4.0 * (double)c->max_bytes * (c->mpi ? 1 : c->workers);
    if (mem > 0 && need > mem / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "max_bytes = %lld for %d workers needs about %.0f MiB, more than half "
                            "of this machine's %.0f MiB: lower max_bytes",
                            (long long)c->max_bytes, c->workers, need / 1048576.0, mem / 1048576.0);
    return 0;
}

static int ar_check(const struct lab_params *p, struct core_err *err)
{
    struct ar_cfg c;
    return ar_cfg_read(p, &c, err);
}

struct ar_run {
    struct lab_ctx *cx;
    struct ar_cfg cfg;
    struct lab_net_conn ctl[AR_MAX_WORKERS];
    struct ar_worker args[AR_MAX_WORKERS];
    int64_t sizes[AR_MAX_SIZES];
    int n_sizes;
    double ring[AR_MAX_SIZES], tree[AR_MAX_SIZES], p2p[AR_MAX_SIZES], mpi[AR_MAX_SIZES],
        mpi_p2p[AR_MAX_SIZES];
};

/* Local: the socketpairs (ring links, tree links), then the workers. */
static int ar_start_local(struct ar_run *r, struct core_err *err)
{
    const struct ar_cfg *c = &r->cfg;
    int W = c->workers, L = lab_net_tree_levels(W);
    size_t n_fds = 2 * (size_t)W + 2 * (size_t)W * (size_t)L;
    int *fds = core_xmalloc(n_fds * sizeof *fds);
    for (size_t i = 0; i < n_fds; i++)
        fds[i] = -1;
    int rc = 0;
    /* fds[2w], fds[2w+1]: ring link w -> w+1 (w's end, w+1's end);
     * then fds[2W + 2(l W + lo)]: tree link (lo, lo + 2^l) */
    for (int w = 0; w < W; w++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            rc = core_err_set(err, CORE_ERR_IO, "cannot create a socket pair");
            goto out;
        }
        fds[2 * w] = sv[0];
        fds[2 * w + 1] = sv[1];
    }
    for (int l = 0; l < L; l++)
        for (int lo = 0; lo < W; lo++) {
            if (!lab_net_tree_linked(lo, W, l) || (lo & (1 << l)))
                continue;
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
                rc = core_err_set(err, CORE_ERR_IO, "cannot create a socket pair");
                goto out;
            }
            size_t at = 2 * (size_t)W + 2 * ((size_t)l * (size_t)W + (size_t)lo);
            fds[at] = sv[0];
            fds[at + 1] = sv[1];
        }
    struct lab_procs *ps = lab_ctx_procs(r->cx);
    for (int w = 0; w < W; w++) {
        struct ar_worker *k = &r->args[w];
        memset(k, 0, sizeof *k);
        k->c = c;
        k->me = w;
        k->W = W;
        k->all_fds = fds;
        k->n_fds = n_fds;
        k->right_fd = fds[2 * w];
        k->left_fd = fds[2 * ((w + W - 1) % W) + 1];
        for (int l = 0; l < AR_MAX_LEVELS; l++) {
            k->tree_fd[l] = -1;
            if (l >= L || !lab_net_tree_linked(w, W, l))
                continue;
            int lo = w & ~(1 << l);
            size_t at = 2 * (size_t)W + 2 * ((size_t)l * (size_t)W + (size_t)lo);
            k->tree_fd[l] = fds[at + (w == lo ? 0 : 1)];
        }
        int i = lab_proc_spawn(ps, ar_worker_main, k, err);
        if (i < 0) {
            rc = core_err_prefix(err, "starting worker %d", w + 1);
            goto out;
        }
        int fd = dup(ps->v[i].fd);
        lab_net_conn_init_local(&r->ctl[w], fd, NULL, lab_ctx_cancel_flag(r->cx));
    }
out:
    for (size_t i = 0; i < n_fds; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    return rc;
}

static void ar_fill_start(int rank, void *buf, void *ud)
{
    struct ar_start st;
    memset(&st, 0, sizeof st);
    st.cfg = *(const struct ar_cfg *)ud;
    st.index = rank - 1;
    memcpy(buf, &st, sizeof st);
}

static int ar_start_mpi(struct ar_run *r, struct core_err *err)
{
    struct ar_cfg *c = &r->cfg;
    char needs[64];
    snprintf(needs, sizeof needs, "%d workers need %d", c->workers, c->workers + 1);
    int rc = lab_mpi_job_start(r->cx, c->workers + 1, needs, ar_fill_start, sizeof(struct ar_start),
                               c, NULL, err);
    if (rc == 0)
        rc = lab_mpi_workers_begin(err);
    if (rc)
        return rc;
    c->t0 = lab_mpi_t_base();
    for (int w = 0; w < c->workers; w++)
        lab_net_conn_init_mpi(&r->ctl[w], w + 1, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, w + 1), c->t0,
                              NULL, lab_ctx_cancel_flag(r->cx));
    return 0;
}

static double busbw(int64_t bytes, double t, int W)
{
    return t > 0 ? (double)bytes / t / 1e9 * 2.0 * (W - 1) / W : 0;
}

/* One size: every worker measures, the master gathers. */
static int ar_size(struct ar_run *r, int i, int reps, struct core_err *err)
{
    const struct ar_cfg *c = &r->cfg;
    int64_t b = r->sizes[i];
    int W = c->workers;
    for (int w = 0; w < W; w++) {
        int rc = lab_net_send(&r->ctl[w], AR_MSG_SIZE, b, reps, NULL, 0, 10000, err);
        if (rc)
            return core_err_prefix(err, "worker %d", w + 1);
    }
    struct ar_result worst = {0};
    for (int w = 0; w < W; w++) {
        struct lab_net_msg m;
        int rc = lab_net_recv(&r->ctl[w], &m, AR_IO_MS, err);
        if (rc)
            return core_err_prefix(err, "worker %d at %lld bytes", w + 1, (long long)b);
        if (m.type == AR_MSG_ERROR)
            return core_err_set(err, CORE_ERR_INTERNAL, "worker %d at %lld bytes: %.*s", w + 1,
                                (long long)b, (int)(m.len > 200 ? 200 : m.len),
                                (const char *)m.data);
        struct ar_result res;
        if (m.type != AR_MSG_RESULT || m.len != sizeof res)
            return core_err_set(err, CORE_ERR_INTERNAL, "worker %d sent message 0x%x", w + 1,
                                m.type);
        memcpy(&res, m.data, sizeof res);
        if (!res.ring_ok || !res.tree_ok || (c->mpi && !res.mpi_ok))
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "worker %d: the %s all-reduce of %lld bytes did not give the exact "
                                "sum",
                                w + 1,
                                !res.ring_ok   ? "ring"
                                : !res.tree_ok ? "tree"
                                               : "MPI",
                                (long long)b);
        worst.ring_s = fmax(worst.ring_s, res.ring_s);
        worst.tree_s = fmax(worst.tree_s, res.tree_s);
        worst.mpi_s = fmax(worst.mpi_s, res.mpi_s);
        if (w == 0) {
            worst.p2p_s = res.p2p_s;
            worst.mpi_p2p_s = res.mpi_p2p_s;
        }
    }
    r->ring[i] = worst.ring_s;
    r->tree[i] = worst.tree_s;
    r->p2p[i] = worst.p2p_s;
    r->mpi[i] = worst.mpi_s;
    r->mpi_p2p[i] = worst.mpi_p2p_s;
    struct lab_ctx *cx = r->cx;
    lab_emit(cx, "ring_ms", b, 1e3 * worst.ring_s);
    lab_emit(cx, "tree_ms", b, 1e3 * worst.tree_s);
    lab_emit(cx, "ring_busbw", b, busbw(b, worst.ring_s, W));
    lab_emit(cx, "tree_busbw", b, busbw(b, worst.tree_s, W));
    lab_emit(cx, "p2p_gbs", b, worst.p2p_s > 0 ? (double)b / worst.p2p_s / 1e9 : 0);
    if (c->mpi) {
        lab_emit(cx, "mpi_ms", b, 1e3 * worst.mpi_s);
        lab_emit(cx, "mpi_busbw", b, busbw(b, worst.mpi_s, W));
        lab_emit(cx, "mpi_p2p_gbs", b, worst.mpi_p2p_s > 0 ? (double)b / worst.mpi_p2p_s / 1e9 : 0);
    }
    char sz[32];
    if (b >= 1 << 20)
        snprintf(sz, sizeof sz, "%lld MiB", (long long)(b >> 20));
    else
        snprintf(sz, sizeof sz, "%lld KiB", (long long)(b >> 10));
    if (c->mpi)
        lab_log(cx, LAB_LOG_INFO,
                "%s: ring %.3f ms (%.2f GB/s busbw), tree %.3f ms, MPI_Allreduce %.3f ms (%.2f "
                "GB/s); point-to-point %.2f GB/s, MPI %.2f GB/s",
                sz, 1e3 * worst.ring_s, busbw(b, worst.ring_s, W), 1e3 * worst.tree_s,
                1e3 * worst.mpi_s, busbw(b, worst.mpi_s, W),
                worst.p2p_s > 0 ? (double)b / worst.p2p_s / 1e9 : 0,
                worst.mpi_p2p_s > 0 ? (double)b / worst.mpi_p2p_s / 1e9 : 0);
    else
        lab_log(cx, LAB_LOG_INFO,
                "%s: ring %.3f ms (%.2f GB/s busbw), tree %.3f ms (%.2f GB/s); point-to-point "
                "%.2f GB/s",
                sz, 1e3 * worst.ring_s, busbw(b, worst.ring_s, W), 1e3 * worst.tree_s,
                busbw(b, worst.tree_s, W), worst.p2p_s > 0 ? (double)b / worst.p2p_s / 1e9 : 0);
    return 0;
}

/* The index of `bytes` among the sizes, or -1. */
static int size_at(const struct ar_run *r, int64_t bytes)
{
    for (int i = 0; i < r->n_sizes; i++)
        if (r->sizes[i] == bytes)
            return i;
    return -1;
}

static void ar_summary(struct ar_run *r)
{
    const struct ar_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    int W = c->workers, L = lab_net_tree_levels(W), n = r->n_sizes;
    if (n == 0)
        return;
    /* the model from the point-to-point: B from the slope between the two
     * largest sizes (their time minus the latency both pay) or the best
     * rate seen, whichever is higher (beyond the caches a machine's copies
     * slow down: the link's rate is the best one), alpha from the smallest
     * size */
    double B = 0;
    for (int i = 0; i < n; i++) /* at least the best rate seen */
        if (r->p2p[i] > 0)
            B = fmax(B, (double)r->sizes[i] / r->p2p[i]);
    if (n >= 2 && r->p2p[n - 1] > r->p2p[n - 2])
        B = fmax(B, (double)(r->sizes[n - 1] - r->sizes[n - 2]) / (r->p2p[n - 1] - r->p2p[n - 2]));
    double alpha = B > 0 ? r->p2p[0] - (double)r->sizes[0] / B : r->p2p[0];
    if (alpha < 0)
        alpha = 0;
    double p = W;
    for (int i = 0; i < n && B > 0; i++) {
        double M = (double)r->sizes[i];
        lab_emit(cx, "model_ring_ms", r->sizes[i], 1e3 * 2 * (p - 1) / p * M / B);
        lab_emit(cx, "model_ring_full_ms", r->sizes[i],
                 1e3 * (2 * (p - 1) * alpha + 2 * (p - 1) / p * M / B));
        lab_emit(cx, "model_tree_ms", r->sizes[i], 1e3 * 2 * L * (alpha + M / B));
    }
    int64_t wins = 0;
    for (int i = 0; i < n && r->tree[i] < r->ring[i]; i++)
        wins = r->sizes[i];
    double denom = L - (p - 1) / p;
    double cross = (p - 1 - L) > 0 && denom > 0 ? (p - 1 - L) * alpha * B / denom : 0;
    lab_figure_num(cx, "tree_wins_up_to_bytes", (double)wins, "B",
                   "largest size up to which the tree beat the ring at every size (0: never)");
    lab_figure_num(cx, "model_crossover_bytes", cross, "B",
                   "alpha-beta model: below this size the tree is faster (0: never, p <= 3)");
    lab_figure_num(cx, "alpha_us", 1e6 * alpha, "us",
                   "latency alpha, fitted from the point-to-point times");
    lab_figure_num(cx, "bandwidth_gbs", B / 1e9, "GB/s",
                   "bandwidth B, fitted from the point-to-point times");
    lab_figure_num(cx, "workers", W, "", "ranks taking part (p)");
    lab_figure_num(cx, "tree_levels", L, "", "ceil(log2 p)");
    lab_figure_num(cx, "min_bytes", (double)r->sizes[0], "B", "smallest message");
    lab_figure_num(cx, "max_bytes", (double)r->sizes[n - 1], "B", "largest message");
    lab_figure_num(cx, "ring_ms_min", 1e3 * r->ring[0], "ms", "ring time, smallest message");
    lab_figure_num(cx, "tree_ms_min", 1e3 * r->tree[0], "ms", "tree time, smallest message");
    lab_figure_num(cx, "ring_ms_max", 1e3 * r->ring[n - 1], "ms", "ring time, largest message");
    lab_figure_num(cx, "tree_ms_max", 1e3 * r->tree[n - 1], "ms", "tree time, largest message");
    lab_figure_num(cx, "ring_busbw_max_gbs", busbw(r->sizes[n - 1], r->ring[n - 1], W), "GB/s",
                   "ring bus bandwidth, largest message");
    static const struct {
        int64_t bytes;
        const char *tag;
    } marks[] = {{4096, "4k"}, {4 << 20, "4m"}, {64 << 20, "64m"}};
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        int i = size_at(r, marks[k].bytes);
        if (i < 0)
            continue;
        char key[48], label[96];
        snprintf(key, sizeof key, "tree_over_ring_%s", marks[k].tag);
        snprintf(label, sizeof label, "tree time / ring time at %s", marks[k].tag);
        lab_figure_num(cx, key, r->ring[i] > 0 ? r->tree[i] / r->ring[i] : 0, "x", label);
        if (!c->mpi)
            continue;
        snprintf(key, sizeof key, "ring_vs_mpi_%s", marks[k].tag);
        snprintf(label, sizeof label, "ring busbw / MPI_Allreduce busbw at %s", marks[k].tag);
        lab_figure_num(cx, key, r->ring[i] > 0 ? r->mpi[i] / r->ring[i] : 0, "x", label);
        snprintf(key, sizeof key, "p2p_vs_mpi_%s", marks[k].tag);
        snprintf(label, sizeof label, "our point-to-point / MPI ping-pong at %s", marks[k].tag);
        lab_figure_num(cx, key, r->p2p[i] > 0 ? r->mpi_p2p[i] / r->p2p[i] : 0, "x", label);
    }
    if (c->mpi) {
        double worst = INFINITY;
        for (int i = 0; i < n; i++)
            if (r->sizes[i] >= (64 << 20) && r->ring[i] > 0)
                worst = fmin(worst, r->mpi[i] / r->ring[i]);
        if (isfinite(worst))
            lab_figure_num(cx, "ring_vs_mpi_min_64m_up", worst, "x",
                           "ring busbw / MPI_Allreduce busbw, lowest at 64 MiB and above");
    }
    lab_log(cx, LAB_LOG_INFO,
            "model: alpha %.1f us, B %.2f GB/s; the tree beats the ring below about %.0f bytes "
            "(the course's ring formula has no alpha term, so it never would); measured: up to "
            "%lld bytes",
            1e6 * alpha, B / 1e9, cross, (long long)wins);
}

static int ar_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    struct ar_run *r = core_xcalloc(1, sizeof *r);
    bool mpi_up = false;
    r->cx = cx;
    for (int w = 0; w < AR_MAX_WORKERS; w++)
        lab_net_conn_init_local(&r->ctl[w], -1, NULL, NULL);
    int rc = ar_cfg_read(lab_ctx_params(cx), &r->cfg, err);
    if (rc)
        goto out;
    struct ar_cfg *c = &r->cfg;
    if (c->mpi && lab_mpi_env_rank() < 0) {
        rc = lab_mpi_launch(cx, 1 + c->workers, err);
        goto out;
    }
    r->n_sizes = ar_sizes(c, r->sizes);
    lab_log(cx, LAB_LOG_INFO, "%d workers, %d sizes from %lld to %lld bytes (x%d), link %s%s",
            c->workers, r->n_sizes, (long long)r->sizes[0], (long long)r->sizes[r->n_sizes - 1],
            c->factor, lab_param_str(lab_ctx_params(cx), "link"),
            c->mpi ? "; beside MPI_Allreduce and an MPI ping-pong" : "");
    if (c->mpi && c->link.bytes_per_s > 0)
        lab_log(cx, LAB_LOG_WARN,
                "link = %s emulates a link for our ring, tree and point-to-point only: Open MPI's "
                "own operations run at the real speed, so compare them with link=off",
                lab_param_str(lab_ctx_params(cx), "link"));
    lab_progress(cx, 0, "starting the workers");
    if (c->mpi) {
        if ((rc = lab_mpi_init(err)) != 0)
            goto out;
        mpi_up = true;
        rc = ar_start_mpi(r, err);
    } else {
        c->t0 = 0;
        rc = ar_start_local(r, err);
    }
    if (rc)
        goto out;
    double prev = 0;
    for (int i = 0; i < r->n_sizes; i++) {
        if (lab_cancelled(cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
        /* repetitions to fill the measuring time, from the last size's
         * slowest operation scaled up (at least 1, at most 200) */
        double guess = prev * c->factor;
        int reps = guess > 0 ? (int)fmin(200, fmax(1, c->time_s / guess)) : 10;
        char what[64];
        snprintf(what, sizeof what, "%lld bytes", (long long)r->sizes[i]);
        lab_progress(cx, (double)i / r->n_sizes, what);
        if ((rc = ar_size(r, i, reps, err)) != 0)
            goto out;
        prev = fmax(fmax(r->ring[i], r->tree[i]), fmax(r->mpi[i], 2 * r->p2p[i]));
    }
    lab_progress(cx, 1, "done");
    ar_summary(r);
out:
    if (rc && rc != CORE_ERR_CANCELLED && r->n_sizes > 0 && r->ring[0] > 0)
        ar_summary(r); /* what was measured */
    for (int w = 0; w < AR_MAX_WORKERS; w++) {
        struct core_err e;
        if (rc == 0 && r->ctl[w].fd >= 0)
            lab_net_send(&r->ctl[w], AR_MSG_EXIT, 0, 0, NULL, 0, 1000, &e);
        lab_net_conn_close(&r->ctl[w]);
    }
    if (mpi_up && !lab_mpi_term_noted()) {
        lab_mpi_workers_end();
        lab_mpi_end_all();
        lab_mpi_finish();
    }
    if (rc && lab_mpi_term_noted())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "Open MPI ended the job (rank 0 had SIGTERM from mpirun): another rank "
                          "died or mpirun was stopped");
    free(r);
    return rc;
}

/* ---- the definition ------------------------------------------------------------------ */

static const struct lab_param_def ar_params[] = {
    {"workers", LAB_P_INT, "4", NULL, 2, AR_MAX_WORKERS, NULL, "", "ranks taking part (p)"},
    {"min_bytes", LAB_P_INT, "4096", NULL, 4, 1073741824, NULL, "B", "smallest message"},
    {"max_bytes", LAB_P_INT, "268435456", NULL, 4, 1073741824, NULL, "B", "largest message"},
    {"factor", LAB_P_INT, "4", NULL, 2, 16, NULL, "", "each size is this many times the last"},
    {"time_ms", LAB_P_REAL, "200", NULL, 1, 60000, NULL, "ms",
     "measuring time per size and operation (at least one operation)"},
    {"link", LAB_P_STR, "off", NULL, 0, 0, NULL, "",
     "emulated link per connection: off, 100Mbps, 1Gbps, 10Gbps, ..."},
    {"latency_ms", LAB_P_REAL, "0", NULL, 0, 1000, NULL, "ms", "one-way latency of the link"},
    {"transport", LAB_P_ENUM, "local", NULL, 0, 0, "local|mpi", "",
     "local: processes on this machine; mpi: ranks of an Open MPI job, beside MPI's own"},
    {"hosts", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across hosts: NAME:SLOTS,... (Warpbench runs mpirun)"},
    {"hostfile", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across the hosts of an Open MPI hostfile"},
};

static const struct lab_series_def ar_series[] = {
    {"ring_ms", "ring (ours)", "ms", "all-reduce time", "message (bytes)"},
    {"tree_ms", "tree (ours)", "ms", "all-reduce time", "message (bytes)"},
    {"mpi_ms", "MPI_Allreduce", "ms", "all-reduce time", "message (bytes)"},
    {"model_ring_ms", "course model: ring 2(p-1)/p M/B", "ms", "all-reduce time",
     "message (bytes)"},
    {"model_ring_full_ms", "model: ring with latency", "ms", "all-reduce time", "message (bytes)"},
    {"model_tree_ms", "course model: tree 2 log2 p (a + M/B)", "ms", "all-reduce time",
     "message (bytes)"},
    {"ring_busbw", "ring (ours)", "GB/s", "bus bandwidth", "message (bytes)"},
    {"tree_busbw", "tree (ours)", "GB/s", "bus bandwidth", "message (bytes)"},
    {"mpi_busbw", "MPI_Allreduce", "GB/s", "bus bandwidth", "message (bytes)"},
    {"p2p_gbs", "point-to-point (ours)", "GB/s", "point-to-point", "message (bytes)"},
    {"mpi_p2p_gbs", "MPI ping-pong", "GB/s", "point-to-point", "message (bytes)"},
};

/* Every chart's x axis is the message size, swept by a factor: log. */
static const struct lab_chart_def ar_charts[] = {
    {"all-reduce time", "all-reduce time against message size", true},
    {"bus bandwidth", "bus bandwidth against message size", true},
    {"point-to-point", "point-to-point bandwidth against message size", true},
};

/* lab_def.mpi_workers: every rank but rank 0 takes part. */
static int ar_mpi_workers(const struct lab_params *p, int ranks)
{
    (void)p;
    return ranks - 1;
}

const struct lab_def lab_ar_def = {
    .name = "allreduce",
    .title = "All-reduce: ring against tree, and against MPI",
    .summary = "ring vs tree all-reduce over a message-size sweep against the alpha-beta model; "
               "over Open MPI beside MPI_Allreduce and an MPI ping-pong",
    .params = ar_params,
    .n_params = sizeof ar_params / sizeof ar_params[0],
    .series = ar_series,
    .n_series = sizeof ar_series / sizeof ar_series[0],
    .check = ar_check,
    .run = ar_run_lab,
    .mpi_workers = ar_mpi_workers,
    .rank = ar_rank_main,
    .charts = ar_charts,
    .n_charts = sizeof ar_charts / sizeof ar_charts[0],
};
