/*
 * lab_serve_procs.c — the serving lab's other processes and threads: the
 * load generator (requests at the times of a Poisson process, open loop),
 * the CPU workers (the model's forward pass on our packed GEMM, the weights
 * in shared memory) and the GPU worker thread (cuBLAS, the same protocol),
 * and starting and stopping them.
 *
 * Uses the lab framework (lab_author.h: processes, sockets with a cancel flag),
 * the model and wire messages (lab_serve.h) and kernels (the GPU MLP).
 */
#include "labs/serving/lab_serve.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A backend computes a batch: the CPU model, or the GPU's. */
struct sv_backend {
    int (*forward)(void *ud, const float *x, int n, float *y, struct core_err *err);
    void *ud;
};

/* Serves batches on fd until quit or the front end closes its end. */
static int sv_serve(int fd, const struct sv_shared *sh, const struct sv_backend *be)
{
    size_t d = (size_t)sh->dims.d, mb = (size_t)sh->max_batch;
    uint64_t *ids = core_xmalloc(mb * sizeof *ids);
    float *x = core_xmalloc(mb * d * sizeof *x), *y = core_xmalloc(mb * d * sizeof *y);
    struct core_err e;
    int rc = 0;
    for (;;) {
        struct srv_batch_msg m;
        if (lab_fd_read(fd, &m, sizeof m, -1, NULL, &e) != 0 || m.quit)
            break; /* the front end is gone, or done with us */
        if (m.n < 1 || m.n > mb) {
            rc = 1;
            break;
        }
        if (lab_fd_read(fd, ids, m.n * sizeof *ids, 10000, NULL, &e) != 0 ||
            lab_fd_read(fd, x, m.n * d * sizeof *x, 10000, NULL, &e) != 0)
            break;
        double t0 = core_time_mono();
        if (be->forward(be->ud, x, (int)m.n, y, &e) != 0) {
            rc = 1;
            break;
        }
        struct srv_reply_msg r = {
            .batch_id = m.batch_id, .n = m.n, .service_s = core_time_mono() - t0};
        if (lab_fd_write(fd, &r, sizeof r, -1, NULL, &e) != 0 ||
            lab_fd_write(fd, ids, m.n * sizeof *ids, -1, NULL, &e) != 0 ||
            lab_fd_write(fd, y, m.n * d * sizeof *y, -1, NULL, &e) != 0)
            break;
    }
    free(ids), free(x), free(y);
    return rc;
}

static int cpu_forward(void *ud, const float *x, int n, float *y, struct core_err *err)
{
    (void)err;
    lab_srv_mlp_forward(ud, x, n, y);
    return 0;
}

/* A worker process: packs the shared weights, then serves. */
static int sv_worker_main(int fd, void *arg)
{
    const struct sv_shared *sh = arg;
    struct srv_mlp m;
    struct core_err e;
    if (lab_srv_mlp_open(&m, sh->dims, sh->w, sh->max_batch, &e) != 0)
        return 1;
    struct sv_backend be = {cpu_forward, &m};
    int rc = sv_serve(fd, sh, &be);
    lab_srv_mlp_close(&m);
    return rc;
}

static int gpu_forward(void *ud, const float *x, int n, float *y, struct core_err *err)
{
    return kern_mlp_gpu_forward(ud, x, n, y, err);
}

static void *sv_gpu_main(void *arg)
{
    struct sv_gpu *g = arg;
    struct sv_backend be = {gpu_forward, g->g};
    sv_serve(g->fd, g->sh, &be);
    return NULL;
}

/* The load generator process: for each command, the Poisson schedule. */
static int sv_gen_main(int fd, void *arg)
{
    const struct sv_shared *sh = arg;
    size_t d = (size_t)sh->dims.d;
    float *x = core_xmalloc(d * sizeof *x);
    struct core_err e;
    int rc = 0;
    for (;;) {
        struct srv_gen_cmd c;
        if (lab_fd_read(fd, &c, sizeof c, -1, NULL, &e) != 0 || c.quit)
            break;
        struct srv_rng rng;
        lab_srv_rng_seed(&rng, c.seed);
        double t = c.t0, end = c.t0 + c.duration;
        uint64_t id = 0;
        for (;;) {
            t += lab_srv_rng_gap(&rng, c.rate);
            if (t > end)
                break;
            core_sleep_until(t);
            lab_srv_input(c.seed, id, (int)d, x);
            struct srv_req_msg m = {.id = id, .t_sched = t, .count = 0};
            if (lab_fd_write(fd, &m, sizeof m, -1, NULL, &e) != 0 ||
                lab_fd_write(fd, x, d * sizeof *x, -1, NULL, &e) != 0) {
                rc = 1;
                goto out;
            }
            id++;
        }
        struct srv_req_msg m = {.id = SRV_END, .t_sched = end, .count = id};
        if (lab_fd_write(fd, &m, sizeof m, -1, NULL, &e) != 0)
            break;
    }
out:
    free(x);
    return rc;
}

/* Starts the generator and the workers (or the GPU thread). */
int lab_srv_start(struct sv_run *r, struct core_err *err)
{
    int i = lab_proc_spawn(r->ps, sv_gen_main, &r->sh, err);
    if (i < 0)
        return core_err_prefix(err, "starting the load generator");
    r->gen_proc = (size_t)i;
    r->gen_fd = r->ps->v[i].fd;
    if (r->gpu) {
        int sv[2];
        struct core_err e2;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return core_err_set(err, CORE_ERR_IO, "socketpair for the GPU worker: %s",
                                strerror(errno));
        r->gthread.fd = sv[1];
        r->gthread.sh = &r->sh;
        size_t d = (size_t)r->sh.dims.d, h = (size_t)r->sh.dims.hidden;
        const float *w1 = r->sh.w, *b1 = w1 + h * d, *w2 = b1 + h, *b2 = w2 + d * h;
        if (kern_mlp_gpu_new(&r->gthread.g, (int)d, (int)h, (int)d, w1, b1, w2, b2, r->sh.max_batch,
                             &e2) != 0) {
            close(sv[0]), close(sv[1]);
            return core_err_set(err, CORE_ERR_IO, "the GPU worker: %s", e2.msg);
        }
        if (pthread_create(&r->gthread.thread, NULL, sv_gpu_main, &r->gthread) != 0) {
            close(sv[0]), close(sv[1]);
            return core_err_set(err, CORE_ERR_IO, "cannot start the GPU worker thread");
        }
        r->gthread.started = true;
        r->w[0] = (struct sv_worker){.fd = sv[0], .proc = SIZE_MAX};
        return 0;
    }
    for (int k = 0; k < r->workers; k++) {
        i = lab_proc_spawn(r->ps, sv_worker_main, &r->sh, err);
        if (i < 0)
            return core_err_prefix(err, "starting worker %d of %d", k + 1, r->workers);
        r->w[k] = (struct sv_worker){.fd = r->ps->v[i].fd, .proc = (size_t)i};
    }
    return 0;
}

/* Ends the children politely (lab_run() kills whatever does not exit) and
 * the GPU thread (its socket closes: it returns). */
void lab_srv_stop(struct sv_run *r)
{
    struct core_err e;
    for (int k = 0; k < r->workers; k++) {
        if (r->w[k].proc == SIZE_MAX || r->w[k].fd < 0 || r->ps->v[r->w[k].proc].reaped)
            continue;
        struct srv_batch_msg m = {.quit = 1};
        lab_fd_write(r->w[k].fd, &m, sizeof m, 100, NULL, &e);
    }
    if (r->gen_fd >= 0 && !r->ps->v[r->gen_proc].reaped) {
        struct srv_gen_cmd c = {.quit = 1};
        lab_fd_write(r->gen_fd, &c, sizeof c, 100, NULL, &e);
    }
    if (r->gthread.started) {
        close(r->w[0].fd); /* the thread's read sees the end */
        r->w[0].fd = -1;
        pthread_join(r->gthread.thread, NULL);
        close(r->gthread.fd);
        r->gthread.started = false;
    }
    kern_mlp_gpu_free(r->gthread.g);
    r->gthread.g = NULL;
}
