/*
 * lab_kmeans_local.c — the k-means engine's local transport (struct
 * km_transport, lab_kmeans.h): each slot is a worker process started with
 * lab_proc_spawn, reached over its socketpair. The points, both centre
 * buffers and the final labels live in shared memory mapped before the
 * workers start, so a command is 48 bytes and a LABEL result has no body:
 * the worker writes its labels in place. A result without the combiner is
 * written in chunks of KM_REC_CHUNK records (the header rides with the
 * first) and read in the same chunks by the scheduler, which reduces them
 * as they come.
 *
 * A worker that dies (an injected crash is a SIGKILL half-way through the
 * task) closes its socket: the scheduler sees the end, and `lost` reaps it
 * and says how it died; `revive` starts its successor on the same slot. A
 * hung one is SIGKILLed first.
 */
#include "labs/kmeans/lab_kmeans.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define KM_IO_MS 10000 /* reading a result that has started to arrive */

/* ---- the worker process ---------------------------------------------------------- */

/* One result without the combiner: the header, then a record per point in
 * point order, written in chunks (the header rides with the first). buf
 * holds KM_REPLY_BYTES + KM_REC_CHUNK records. */
static int km_send_records(int fd, int d, const struct km_reply *r, const float *x,
                           const int32_t *lab, size_t m, unsigned char *buf)
{
    const size_t rb = lab_km_rec_bytes(d);
    memcpy(buf, r, sizeof *r);
    size_t head = sizeof *r;
    for (size_t i0 = 0; i0 < m || head; i0 += KM_REC_CHUNK) {
        size_t cnt = i0 >= m ? 0 : m - i0 < KM_REC_CHUNK ? m - i0 : KM_REC_CHUNK;
        lab_km_rec_fill(buf + head, x, lab, i0, cnt, d);
        if (lab_fd_write(fd, buf, head + cnt * rb, -1, NULL, NULL) != 0)
            return -1;
        head = 0;
    }
    return 0;
}

static int km_worker(int fd, void *varg)
{
    const struct km_worker_arg *a = varg;
    const struct km_shared *sh = a->sh;
    const int d = sh->d, k = sh->k;
    const size_t kd = (size_t)k * (size_t)d;

    /* Map the shared points into this process now (a page fault per 4 KiB
     * page), not during the first timed task. */
    volatile float touch = 0;
    for (size_t i = 0; i < sh->n * (size_t)d; i += 1024)
        touch += sh->x[i];
    (void)touch;

    /* a combined result is one write: header, sums, counts */
    unsigned char *out =
        core_xmalloc(KM_REPLY_BYTES + kd * sizeof(double) + (size_t)k * sizeof(int64_t));
    double *sums = (double *)(out + KM_REPLY_BYTES);
    int64_t *cnt = (int64_t *)(sums + kd);
    unsigned char *recs = core_xmalloc(KM_REPLY_BYTES + KM_REC_CHUNK * lab_km_rec_bytes(d));
    int32_t *lab = NULL;
    size_t lab_cap = 0;
    for (;;) {
        struct km_cmd c;
        if (lab_fd_read(fd, &c, sizeof c, -1, NULL, NULL) != 0 || c.op == KM_OP_QUIT)
            break; /* the master is gone, or done with us */
        double t0 = core_time_mono();
        const size_t m = c.hi - c.lo;
        const float *x = sh->x + c.lo * (size_t)d;
        int32_t *labels = sh->labels + c.lo; /* LABEL: in place, in shared memory */
        if (c.op == KM_OP_MAP && !sh->combiner) {
            if (m > lab_cap) {
                free(lab);
                lab_cap = m;
                lab = core_xmalloc(lab_cap * sizeof *lab);
            }
            labels = lab;
        }
        struct km_reply r;
        if (lab_km_map(&c, x, m, d, sh->centres[c.buf & 1], k, sh->combiner, sh->crash, sh->seed,
                       &r, sums, cnt, labels))
            raise(SIGKILL); /* the injected crash: the work is lost with the process */
        double t = core_time_mono() - t0;
        if (c.faults && a->straggle > 1) /* a machine FACTOR times slower */
            core_sleep((a->straggle - 1) * t);
        r.map_s = core_time_mono() - t0;
        int wr;
        if (c.op == KM_OP_MAP && sh->combiner) {
            memcpy(out, &r, sizeof r);
            wr = lab_fd_write(fd, out, sizeof r + (size_t)r.body, -1, NULL, NULL);
        } else if (c.op == KM_OP_MAP) {
            wr = km_send_records(fd, d, &r, x, lab, m, recs);
        } else {
            wr = lab_fd_write(fd, &r, sizeof r, -1, NULL, NULL);
        }
        if (wr != 0)
            break;
    }
    free(out);
    free(recs);
    free(lab);
    return 0;
}

/* ---- the transport --------------------------------------------------------------- */

static int km_fd(const struct km_engine *e, int s)
{
    return e->ps->v[e->slot[s].idx].fd;
}

/* A lab_fd_* result as the scheduler reads it: cancelled, or the worker is
 * gone (its socket closed, or it stalled mid-result). */
static int km_io(int rc, struct core_err *err)
{
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    return rc == 0 ? 0 : KM_GONE;
}

static int local_revive(struct km_engine *e, int s, struct core_err *err)
{
    /* The argument lives in the engine: the forked child finds it at the
     * same address in its copy of our memory. */
    e->warg[s] = (struct km_worker_arg){e->sh, e->strag[s]};
    int i = lab_proc_spawn(e->ps, km_worker, &e->warg[s], err);
    if (i < 0)
        return core_err_prefix(err, "kmeans: starting worker %d", s + 1);
    e->slot[s].idx = i;
    e->slot[s].busy = false;
    return 0;
}

static int local_start(struct km_engine *e, struct core_err *err)
{
    for (int s = 0; s < e->P; s++) {
        int rc = local_revive(e, s, err);
        if (rc != 0)
            return rc;
        if (lab_cancelled(e->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    return 0;
}

static int local_send(struct km_engine *e, int s, const struct km_cmd *c, struct core_err *err)
{
    struct core_err werr;
    return km_io(lab_fd_write(km_fd(e, s), c, sizeof *c, KM_IO_MS, e->cancel, &werr), err);
}

static int local_wait(struct km_engine *e, int ms, int *ready, struct core_err *err)
{
    struct pollfd pfd[KM_MAX_WORKERS];
    int who[KM_MAX_WORKERS], n = 0;
    for (int s = 0; s < e->P; s++)
        if (e->slot[s].idx >= 0) { /* idle ones too: an end there is a death */
            pfd[n] = (struct pollfd){km_fd(e, s), POLLIN, 0};
            who[n++] = s;
        }
    int pr = poll(pfd, (nfds_t)n, ms);
    if (pr < 0 && errno != EINTR)
        return core_err_set(err, CORE_ERR_IO, "kmeans: waiting for the workers: %s",
                            strerror(errno));
    int k = 0;
    for (int q = 0; q < n && pr > 0; q++)
        if (pfd[q].revents)
            ready[k++] = who[q];
    return k;
}

static int local_recv(struct km_engine *e, int s, struct km_reply *r, struct core_err *err)
{
    struct core_err rerr;
    return km_io(lab_fd_read(km_fd(e, s), r, sizeof *r, KM_IO_MS, e->cancel, &rerr), err);
}

static int local_body(struct km_engine *e, int s, void *buf, size_t n, struct core_err *err)
{
    struct core_err rerr;
    int fd = km_fd(e, s), rc = 0;
    if (buf)
        return km_io(lab_fd_read(fd, buf, n, KM_IO_MS, e->cancel, &rerr), err);
    while (n > 0 && rc == 0) { /* dropped: read through the engine's buffer */
        size_t c = n < e->rbuf_cap ? n : e->rbuf_cap;
        rc = lab_fd_read(fd, e->rbuf, c, KM_IO_MS, e->cancel, &rerr);
        n -= c;
    }
    return km_io(rc, err);
}

/* How a reaped worker ended, in words. */
static void km_death_words(const struct lab_child *c, char *buf, size_t size)
{
    if (WIFSIGNALED(c->status)) {
        const char *name = strsignal(WTERMSIG(c->status));
        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(c->status),
                 name ? name : "unknown");
    } else if (WIFEXITED(c->status)) {
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(c->status));
    } else {
        snprintf(buf, size, "stopped answering");
    }
}

static void local_lost(struct km_engine *e, int s, bool hung, char *who, size_t who_n, char *how,
                       size_t how_n)
{
    struct km_slot *sl = &e->slot[s];
    struct lab_child *c = &e->ps->v[sl->idx];
    struct core_err ignore;
    pid_t pid = c->pid;
    if (hung)
        e->ps->ops->kill(pid, SIGKILL);
    if (lab_proc_reap(e->ps, (size_t)sl->idx, 1000, &ignore) == CORE_ERR_LIMIT) {
        /* its socket is closed but it lives on: it cannot work for us */
        e->ps->ops->kill(pid, SIGKILL);
        lab_proc_reap(e->ps, (size_t)sl->idx, -1, &ignore);
    }
    snprintf(who, who_n, "pid %d", (int)pid);
    if (hung)
        snprintf(how, how_n, "killed");
    else
        km_death_words(c, how, how_n);
    sl->idx = -1;
}

static void local_stop(struct km_engine *e)
{
    struct km_cmd q = {KM_OP_QUIT, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int s = 0; s < e->P; s++) {
        struct km_slot *sl = &e->slot[s];
        struct core_err ignore;
        if (sl->idx >= 0 && !sl->busy)
            lab_fd_write(km_fd(e, s), &q, sizeof q, 100, NULL, &ignore);
    }
    for (int s = 0; s < e->P; s++) {
        struct km_slot *sl = &e->slot[s];
        struct core_err ignore;
        if (sl->idx >= 0 && !sl->busy)
            lab_proc_reap(e->ps, (size_t)sl->idx, 1000, &ignore);
    }
}

const struct km_transport lab_km_transport_local = {
    .name = "local",
    .start = local_start,
    .revive = local_revive,
    .send = local_send,
    .wait = local_wait,
    .recv = local_recv,
    .body = local_body,
    .lost = local_lost,
    .stop = local_stop,
    .frame_bytes = 0,
    .labels_sent = false,
    .replaces = true,
    .crash_kills = true,
};
