/*
 * lab_kmeans_mr.c — the k-means lab's MapReduce engine: the worker
 * process, the master's pass over the map tasks (dispatch, results, dead
 * and late workers), the fault schedule, and the reduce in task order.
 *
 * A pass hands every task to the first free worker. A worker answers each
 * command with one result: the task's partial sums and counts (with the
 * combiner) or one record per point (without), computed by
 * kern_kmeans_assign over the task's slice of the shared points. Results
 * land in per-task slots, and the reduce adds the slots in task order, so
 * which worker ran a task, how often and in what order changes nothing:
 * the centres are the same bits for any number of workers and any failure.
 *
 * Faults. A worker whose socket closes is dead: it is reaped (the log says
 * how it died), a new worker takes its slot, and its task goes back in the
 * queue unless another copy is still running. When the queue is empty and a
 * worker is idle, a task running longer than max(3 x, typical + 5 ms) the
 * typical task time gets a backup copy there (speculative execution, as in
 * MapReduce); the first copy to finish wins and the other's result is read
 * and dropped. A worker silent for longer than the labs' hang rule allows
 * for the typical task (lab_hang_limit_s: 5 s + 20 x typical) is killed
 * and replaced. Injected faults (crash=, straggler=) apply only to passes run
 * with faults on: the crash decision for (iteration, task, attempt) comes
 * from lab_km_fault_u, so a seed replays the same schedule.
 */
#include "labs/kmeans/lab_kmeans.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KM_IO_MS 10000     /* reading a result that has started to arrive */
#define KM_POLL_MS 50      /* cancellation latency while waiting */
#define KM_SPEC_FACTOR 3.0 /* a task this many typical times old gets a backup */
#define KM_SPEC_MIN_S 0.005
#define KM_MAX_ATTEMPTS 64
#define KM_REC_CHUNK 4096 /* records per socket write and read */
#define KM_FAULT_LOGS 12  /* fault log lines per run; then only the counts */

enum { KM_T_PENDING, KM_T_RUNNING, KM_T_DONE };

_Static_assert(sizeof(struct km_reply) == KM_REPLY_BYTES, "the reply header is 48 bytes");

/* ---- the fault schedule --------------------------------------------------------- */

static uint64_t km_fmix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double lab_km_fault_u(uint64_t seed, uint32_t iter, uint32_t task, uint32_t attempt)
{
    uint64_t h = km_fmix(seed ^ 0x6661756c74730000ull); /* "faults" */
    h = km_fmix(h + 0x9e3779b97f4a7c15ull * ((uint64_t)iter + 1));
    h = km_fmix(h + 0x9e3779b97f4a7c15ull * ((uint64_t)task + 1));
    h = km_fmix(h + 0x9e3779b97f4a7c15ull * ((uint64_t)attempt + 1));
    return (double)(h >> 11) * 0x1.0p-53;
}

/* ---- the worker ------------------------------------------------------------------- */

size_t lab_km_rec_bytes(int d)
{
    return 4 * ((size_t)d + 2);
}

int lab_km_rec_reduce(const unsigned char *p, size_t n, int k, int d, double *ps, int64_t *pc,
                      int worker, unsigned task, struct core_err *err)
{
    const size_t rb = lab_km_rec_bytes(d);
    for (size_t i = 0; i < n; i++, p += rb) {
        int32_t c, one;
        memcpy(&c, p, 4);
        memcpy(&one, p + 4 + 4 * (size_t)d, 4);
        if (c < 0 || c >= k || one != 1)
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "kmeans: worker %d sent a bad record for task %u", worker,
                                task + 1);
        double *sc = ps + (size_t)c * (size_t)d;
        for (int j = 0; j < d; j++) {
            float v;
            memcpy(&v, p + 4 + 4 * (size_t)j, 4);
            sc[j] += (double)v;
        }
        pc[c] += one;
    }
    return 0;
}

static void km_nap(double secs)
{
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One result without the combiner: the header, then a record per point in
 * point order, written in chunks (the header rides with the first). buf
 * holds KM_REPLY_BYTES + KM_REC_CHUNK records. */
static int km_send_records(int fd, const struct km_shared *sh, const struct km_reply *r,
                           const float *x, const int32_t *lab, size_t m, unsigned char *buf)
{
    const int d = sh->d;
    const size_t rb = lab_km_rec_bytes(d);
    const int32_t one = 1;
    memcpy(buf, r, sizeof *r);
    size_t head = sizeof *r;
    for (size_t i0 = 0; i0 < m || head; i0 += KM_REC_CHUNK) {
        size_t cnt = i0 >= m ? 0 : m - i0 < KM_REC_CHUNK ? m - i0 : KM_REC_CHUNK;
        unsigned char *p = buf + head;
        for (size_t i = i0; i < i0 + cnt; i++, p += rb) {
            memcpy(p, &lab[i], 4);
            memcpy(p + 4, x + i * (size_t)d, 4 * (size_t)d);
            memcpy(p + 4 + 4 * (size_t)d, &one, 4);
        }
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
    int rc = 0;
    for (;;) {
        struct km_cmd c;
        if (lab_fd_read(fd, &c, sizeof c, -1, NULL, NULL) != 0 || c.op == KM_OP_QUIT)
            break; /* the master is gone, or done with us */
        double t0 = core_time_mono();
        const float *cen = sh->centres[c.buf & 1];
        const size_t m = c.hi - c.lo;
        const float *x = sh->x + c.lo * (size_t)d;
        if (c.faults && sh->crash > 0 &&
            lab_km_fault_u(sh->seed, c.iter, c.task, c.attempt) < sh->crash) {
            /* An injected crash, half-way through the task: the work done
             * so far is lost with the process. */
            kern_kmeans_assign(x, m / 2, d, cen, k, NULL, NULL, NULL);
            raise(SIGKILL);
        }
        struct km_reply r = {c.pass, c.task, c.attempt, c.op, 0, 0, 0, 0};
        if (c.op == KM_OP_LABEL) {
            r.sse = kern_kmeans_assign(x, m, d, cen, k, sh->labels + c.lo, NULL, NULL);
        } else if (sh->combiner) {
            memset(sums, 0, kd * sizeof *sums + (size_t)k * sizeof *cnt);
            r.sse = kern_kmeans_assign(x, m, d, cen, k, NULL, sums, cnt);
            r.recs = (uint64_t)k;
            r.body = kd * sizeof *sums + (size_t)k * sizeof *cnt;
        } else {
            if (m > lab_cap) {
                free(lab);
                lab_cap = m;
                lab = core_xmalloc(lab_cap * sizeof *lab);
            }
            r.sse = kern_kmeans_assign(x, m, d, cen, k, lab, NULL, NULL);
            r.recs = m;
            r.body = m * lab_km_rec_bytes(d);
        }
        double t = core_time_mono() - t0;
        if (c.faults && a->straggle > 1) /* a machine FACTOR times slower */
            km_nap((a->straggle - 1) * t);
        r.map_s = core_time_mono() - t0;
        int wr;
        if (c.op == KM_OP_MAP && sh->combiner) {
            memcpy(out, &r, sizeof r);
            wr = lab_fd_write(fd, out, sizeof r + (size_t)r.body, -1, NULL, NULL);
        } else if (c.op == KM_OP_MAP) {
            wr = km_send_records(fd, sh, &r, x, lab, m, recs);
        } else {
            wr = lab_fd_write(fd, &r, sizeof r, -1, NULL, NULL);
        }
        if (wr != 0)
            break;
    }
    free(out);
    free(recs);
    free(lab);
    return rc;
}

/* ---- the engine ----------------------------------------------------------------------- */

static double km_now(const struct km_engine *e)
{
    return e->clk->now(e->clk->ctx);
}

void lab_km_engine_init(struct km_engine *e, struct lab_ctx *cx, struct km_shared *sh, int P, int T,
                        const double *straggle)
{
    memset(e, 0, sizeof *e);
    e->cx = cx;
    e->ps = lab_ctx_procs(cx);
    e->clk = lab_ctx_clock(cx) ? lab_ctx_clock(cx) : core_clock_real();
    e->cancel = lab_ctx_cancel_flag(cx);
    e->sh = sh;
    e->P = P;
    e->T = T;
    for (int s = 0; s < P; s++) {
        e->slot[s].idx = -1;
        e->strag[s] = straggle ? straggle[s] : 1;
        e->slot[s].straggle = e->strag[s];
    }
    size_t kd = (size_t)sh->k * (size_t)sh->d;
    e->bounds = core_xmalloc(((size_t)T + 1) * sizeof *e->bounds);
    for (int t = 0; t <= T; t++)
        e->bounds[t] = (size_t)((uint64_t)t * (uint64_t)sh->n / (uint64_t)T);
    e->psum = core_xcalloc((size_t)T * kd, sizeof *e->psum);
    e->pcnt = core_xcalloc((size_t)T * (size_t)sh->k, sizeof *e->pcnt);
    e->psse = core_xcalloc((size_t)T, sizeof *e->psse);
    e->tstate = core_xcalloc((size_t)T, sizeof *e->tstate);
    e->tattempts = core_xcalloc((size_t)T, sizeof *e->tattempts);
    e->tlive = core_xcalloc((size_t)T, sizeof *e->tlive);
    e->queue = core_xcalloc((size_t)T, sizeof *e->queue);
    e->tdur = core_xcalloc((size_t)T, sizeof *e->tdur);
    e->rbuf_cap = KM_REC_CHUNK * lab_km_rec_bytes(sh->d);
    e->rbuf = core_xmalloc(e->rbuf_cap);
    e->fault_logs_left = KM_FAULT_LOGS;
}

void lab_km_engine_fini(struct km_engine *e)
{
    free(e->bounds);
    free(e->psum);
    free(e->pcnt);
    free(e->psse);
    free(e->tstate);
    free(e->tattempts);
    free(e->tlive);
    free(e->queue);
    free(e->tdur);
    free(e->rbuf);
    memset(e, 0, sizeof *e);
}

static int km_spawn(struct km_engine *e, int s, struct core_err *err)
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

int lab_km_engine_start(struct km_engine *e, struct core_err *err)
{
    if (e->mpi)
        return lab_km_mpi_start(e, err);
    for (int s = 0; s < e->P; s++) {
        int rc = km_spawn(e, s, err);
        if (rc != 0)
            return rc;
        if (lab_cancelled(e->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    return 0;
}

int lab_km_engine_next_buf(const struct km_engine *e)
{
    return (int)((e->pass + 1) % 2);
}

static int km_fd(const struct km_engine *e, int s)
{
    return e->ps->v[e->slot[s].idx].fd;
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

/* What slot sl was doing, for the log: "map task 3 of iteration 7", or
 * "task 3 of the final assignment" (the LABEL pass after the last
 * iteration). */
static void km_work_words(const struct km_slot *sl, char *buf, size_t size)
{
    if (sl->op == KM_OP_LABEL)
        snprintf(buf, size, "task %u of the final assignment", sl->task + 1);
    else
        snprintf(buf, size, "map task %u of iteration %u", sl->task + 1, sl->iter);
}

/* Worker s is dead (its socket closed) or declared dead (late: `late`):
 * reap it, put its task back unless another copy runs, start a new one. */
static int km_dead(struct km_engine *e, int s, bool late, struct km_pass_stats *st,
                   struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    struct lab_child *c = &e->ps->v[sl->idx];
    struct core_err how;
    pid_t pid = c->pid;
    if (late)
        e->ps->ops->kill(pid, SIGKILL);
    if (lab_proc_reap(e->ps, (size_t)sl->idx, 1000, &how) == CORE_ERR_LIMIT) {
        /* its socket is closed but it lives on: it cannot work for us */
        e->ps->ops->kill(pid, SIGKILL);
        lab_proc_reap(e->ps, (size_t)sl->idx, -1, &how);
    }
    char words[96], work[64];
    km_death_words(c, words, sizeof words);
    km_work_words(sl, work, sizeof work);
    bool injected = false, requeued = false;
    if (sl->busy) {
        uint32_t t = sl->task;
        injected = !late && e->sh->crash > 0 &&
                   lab_km_fault_u(e->sh->seed, sl->iter, t, sl->attempt) < e->sh->crash;
        if (sl->pass == e->pass) {
            e->tlive[t]--;
            if (e->tstate[t] != KM_T_DONE && e->tlive[t] == 0) {
                e->tstate[t] = KM_T_PENDING;
                e->queue[(e->qhead + e->qn) % e->T] = (int)t;
                e->qn++;
                requeued = true;
            }
        }
    }
    if (late)
        st->timeouts++;
    else
        st->crashes++;
    if (e->fault_logs_left > 0) {
        e->fault_logs_left--;
        if (late)
            lab_log(e->cx, LAB_LOG_WARN,
                    "worker %d (pid %d) did not answer %s within %.1f s: killed; %s", s + 1,
                    (int)pid, work, km_now(e) - sl->t0,
                    requeued ? "the task runs again and a new worker takes its place"
                             : "another copy of the task finished or still runs, and a new "
                               "worker takes its place");
        else if (sl->busy)
            lab_log(e->cx, injected ? LAB_LOG_INFO : LAB_LOG_WARN,
                    "worker %d (pid %d) %s during %s (attempt %u%s); %s", s + 1, (int)pid, words,
                    work, sl->attempt, injected ? ", an injected crash" : "",
                    requeued ? "the task runs again and a new worker takes its place"
                             : "another copy of the task finished or still runs, and a new "
                               "worker takes its place");
        else
            lab_log(e->cx, LAB_LOG_WARN,
                    "worker %d (pid %d) %s while idle; a new worker takes its "
                    "place",
                    s + 1, (int)pid, words);
        if (e->fault_logs_left == 0)
            lab_log(e->cx, LAB_LOG_INFO, "(further faults are counted, not logged)");
    }
    sl->busy = false;
    sl->idx = -1;
    int rc = km_spawn(e, s, err);
    if (rc == 0)
        st->respawns++;
    return rc;
}

/* Sends attempt a of task t to slot s. */
static int km_send(struct km_engine *e, int s, enum km_op op, int t, uint32_t a, uint32_t iter,
                   bool faults, struct km_pass_stats *st, struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    struct km_cmd c = {(uint32_t)op, e->pass, iter, (uint32_t)t,  a,
                       e->pass % 2,  faults,  0,    e->bounds[t], e->bounds[t + 1]};
    sl->busy = true;
    sl->pass = e->pass;
    sl->task = (uint32_t)t;
    sl->attempt = a;
    sl->iter = iter;
    sl->op = (uint32_t)op;
    sl->t0 = km_now(e);
    sl->attempts++;
    e->tlive[t]++;
    e->tstate[t] = KM_T_RUNNING;
    struct core_err werr;
    int rc = lab_fd_write(km_fd(e, s), &c, sizeof c, KM_IO_MS, e->cancel, &werr);
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    if (rc != 0)
        return km_dead(e, s, false, st, err);
    return 0;
}

/* The running task with one copy, oldest first, that has run longer than
 * `after` seconds on a slot other than s; -1 when none. */
static int km_pick_late(const struct km_engine *e, int s, double now, double after)
{
    int best = -1;
    double oldest = now;
    for (int w = 0; w < e->P; w++) {
        const struct km_slot *o = &e->slot[w];
        if (w == s || o->idx < 0 || !o->busy || o->pass != e->pass)
            continue;
        int t = (int)o->task;
        if (e->tstate[t] != KM_T_RUNNING || e->tlive[t] != 1 || now - o->t0 <= after)
            continue;
        if (o->t0 < oldest) {
            oldest = o->t0;
            best = t;
        }
    }
    return best;
}

/* When the running copy of task t was sent (now when none runs). */
static double km_task_started(const struct km_engine *e, int t, double now)
{
    for (int w = 0; w < e->P; w++)
        if (e->slot[w].idx >= 0 && e->slot[w].busy && e->slot[w].pass == e->pass &&
            (int)e->slot[w].task == t)
            return e->slot[w].t0;
    return now;
}

/* Reads `n` bytes of a result into buf (NULL: dropped). */
static int km_read_body(struct km_engine *e, int fd, void *buf, size_t n, struct core_err *err)
{
    if (buf)
        return lab_fd_read(fd, buf, n, KM_IO_MS, e->cancel, err);
    while (n > 0) {
        size_t c = n < e->rbuf_cap ? n : e->rbuf_cap;
        int rc = lab_fd_read(fd, e->rbuf, c, KM_IO_MS, e->cancel, err);
        if (rc != 0)
            return rc;
        n -= c;
    }
    return 0;
}

/* Reads the result slot s announced. *dead: the worker died on the way. */
static int km_receive(struct km_engine *e, int s, enum km_op op, int *done,
                      struct km_pass_stats *st, bool *dead, struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    const struct km_shared *sh = e->sh;
    const int d = sh->d, k = sh->k;
    const size_t kd = (size_t)k * (size_t)d, rb = lab_km_rec_bytes(d);
    int fd = km_fd(e, s);
    struct km_reply r;
    struct core_err rerr;
    double t0 = km_now(e), t_red = 0;
    *dead = false;

    int rc = lab_fd_read(fd, &r, sizeof r, KM_IO_MS, e->cancel, &rerr);
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    if (rc != 0) {
        *dead = true;
        return 0;
    }
    if (!sl->busy || r.pass != sl->pass || r.task != sl->task || r.attempt != sl->attempt)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d answered task %u (pass %u, attempt %u), not the "
                            "task it was given",
                            s + 1, r.task + 1, r.pass, r.attempt);
    const uint32_t t = r.task;
    const size_t m = e->bounds[t + 1] - e->bounds[t];
    uint64_t want_body = r.op == KM_OP_LABEL ? 0 : sh->combiner ? kd * 8 + (size_t)k * 8 : m * rb;
    if (r.body != want_body)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d sent %llu bytes for task %u, expected %llu", s + 1,
                            (unsigned long long)r.body, t + 1, (unsigned long long)want_body);
    bool accept = r.pass == e->pass && r.op == (uint32_t)op && e->tstate[t] != KM_T_DONE;
    st->bytes += sizeof r + r.body;
    if (!accept) {
        rc = km_read_body(e, fd, NULL, (size_t)r.body, &rerr);
    } else if (r.op == KM_OP_MAP && sh->combiner) {
        rc = km_read_body(e, fd, e->psum + (size_t)t * kd, kd * sizeof(double), &rerr);
        if (rc == 0)
            rc = km_read_body(e, fd, e->pcnt + (size_t)t * (size_t)k, (size_t)k * sizeof(int64_t),
                              &rerr);
    } else if (r.op == KM_OP_MAP) {
        /* The reducer's side of no combiner: every record added into the
         * task's partial, in point order — the same additions the combiner
         * would have made, so the result is the same bits. */
        double *ps = e->psum + (size_t)t * kd;
        int64_t *pc = e->pcnt + (size_t)t * (size_t)k;
        memset(ps, 0, kd * sizeof *ps);
        memset(pc, 0, (size_t)k * sizeof *pc);
        for (size_t i0 = 0; i0 < m && rc == 0; i0 += KM_REC_CHUNK) {
            size_t cnt = m - i0 < KM_REC_CHUNK ? m - i0 : KM_REC_CHUNK;
            rc = lab_fd_read(fd, e->rbuf, cnt * rb, KM_IO_MS, e->cancel, &rerr);
            if (rc != 0)
                break;
            double ta = km_now(e);
            if ((rc = lab_km_rec_reduce(e->rbuf, cnt, k, d, ps, pc, s + 1, t, err)) != 0)
                return rc;
            t_red += km_now(e) - ta;
        }
    }
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    if (rc != 0) {
        *dead = true; /* died while sending: the slot is still busy with t */
        return 0;
    }
    double t1 = km_now(e);
    st->shuffle_s += t1 - t0 - t_red;
    st->reduce_s += t_red;
    sl->busy = false;
    if (r.pass == e->pass)
        e->tlive[t]--;
    if (accept) {
        e->psse[t] = r.sse;
        e->tstate[t] = KM_T_DONE;
        e->tdur[*done] = t1 - sl->t0;
        (*done)++;
        st->map_cpu_s += r.map_s;
        st->records += r.recs;
        st->tasks_by_slot[s]++;
        sl->tasks_done++;
    }
    return 0;
}

int lab_km_engine_pass(struct km_engine *e, enum km_op op, int p_use, bool faults, uint32_t iter,
                       struct km_pass_stats *st, struct core_err *err)
{
    if (e->mpi)
        return lab_km_mpi_pass(e, op, p_use, faults, iter, st, err);
    const int T = e->T;
    struct pollfd pfd[KM_MAX_WORKERS];
    int who[KM_MAX_WORKERS];
    int done = 0, rc = 0;

    memset(st, 0, sizeof *st);
    e->pass++;
    for (int t = 0; t < T; t++) {
        e->tstate[t] = KM_T_PENDING;
        e->tattempts[t] = 0;
        e->tlive[t] = 0;
        e->queue[t] = t;
    }
    e->qhead = 0;
    e->qn = T;
    double t_start = km_now(e);
    for (int s = 0; s < p_use; s++)
        if (e->slot[s].idx < 0) {
            if ((rc = km_spawn(e, s, err)) != 0)
                goto out;
            st->respawns++;
        }

    while (done < T) {
        if (lab_cancelled(e->cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
        double now = km_now(e);
        double typ = done > 0 ? lab_stats_median_of(e->tdur, (size_t)done) : e->typical_s;
        double spec = typ > 0 ? fmax(KM_SPEC_FACTOR * typ, typ + KM_SPEC_MIN_S) : INFINITY;
        /* the labs' hang rule (lab_hang_limit_s) on the typical task; none
         * before a first task has finished: nothing is known to expect yet */
        double hard = typ > 0 ? lab_hang_limit_s(typ) : INFINITY;

        /* hand out work: queued tasks first, then backups of late ones */
        bool idle = false;
        for (int s = 0; s < p_use; s++) {
            struct km_slot *sl = &e->slot[s];
            if (sl->idx < 0 || sl->busy)
                continue;
            int t = -1;
            bool backup = false;
            if (e->qn > 0) {
                t = e->queue[e->qhead];
                e->qhead = (e->qhead + 1) % T;
                e->qn--;
            } else if ((t = km_pick_late(e, s, now, spec)) >= 0) {
                backup = true;
            }
            if (t < 0) {
                idle = true;
                continue;
            }
            if (e->tattempts[t] >= KM_MAX_ATTEMPTS) {
                char work[64];
                struct km_slot what = {.task = (uint32_t)t, .iter = iter, .op = (uint32_t)op};
                km_work_words(&what, work, sizeof work);
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "kmeans: %s failed %d attempts in a row; giving up", work,
                                  KM_MAX_ATTEMPTS);
                goto out;
            }
            uint32_t a = ++e->tattempts[t];
            if (a > 1)
                st->reexec++;
            if (backup) {
                st->speculative++;
                if (e->fault_logs_left > 0) {
                    e->fault_logs_left--;
                    char work[64];
                    struct km_slot what = {.task = (uint32_t)t, .iter = iter, .op = (uint32_t)op};
                    km_work_words(&what, work, sizeof work);
                    lab_log(e->cx, LAB_LOG_INFO,
                            "%s is late (%.1f ms, typical %.1f ms): a backup copy runs on "
                            "worker %d",
                            work, 1e3 * (now - km_task_started(e, t, now)), 1e3 * typ, s + 1);
                }
            }
            if ((rc = km_send(e, s, op, t, a, iter, faults, st, err)) != 0)
                goto out;
        }

        /* workers silent for too long are dead to us */
        for (int s = 0; s < e->P; s++) {
            struct km_slot *sl = &e->slot[s];
            if (sl->idx >= 0 && sl->busy && now - sl->t0 > hard)
                if ((rc = km_dead(e, s, true, st, err)) != 0)
                    goto out;
        }

        /* wait for results (or deaths), waking for the cancel flag and,
         * when a worker is idle, for the first task to turn late */
        int n = 0;
        for (int s = 0; s < e->P; s++)
            if (e->slot[s].idx >= 0) {
                pfd[n] = (struct pollfd){km_fd(e, s), POLLIN, 0};
                who[n++] = s;
            }
        int wait_ms = KM_POLL_MS;
        if (idle && isfinite(spec))
            for (int s = 0; s < e->P; s++) {
                const struct km_slot *sl = &e->slot[s];
                if (sl->idx < 0 || !sl->busy || sl->pass != e->pass ||
                    e->tstate[sl->task] != KM_T_RUNNING || e->tlive[sl->task] != 1)
                    continue; /* not a task that could get a backup */
                double left_ms = 1e3 * (sl->t0 + spec - now);
                if (left_ms < wait_ms)
                    wait_ms = left_ms < 1 ? 1 : (int)ceil(left_ms);
            }
        int pr = poll(pfd, (nfds_t)n, wait_ms);
        if (pr < 0 && errno != EINTR) {
            rc = core_err_set(err, CORE_ERR_IO, "kmeans: waiting for the workers: %s",
                              strerror(errno));
            goto out;
        }
        for (int q = 0; q < n && pr > 0; q++) {
            if (!pfd[q].revents)
                continue;
            int s = who[q];
            bool dead = !e->slot[s].busy; /* an idle worker has nothing to say */
            if (!dead && (rc = km_receive(e, s, op, &done, st, &dead, err)) != 0)
                goto out;
            if (dead && (rc = km_dead(e, s, false, st, err)) != 0)
                goto out;
        }
    }
    st->wall_s = km_now(e) - t_start;
    e->typical_s = lab_stats_median_of(e->tdur, (size_t)done);
    rc = 0;
out:
    return rc;
}

void lab_km_engine_stop(struct km_engine *e)
{
    if (e->mpi) {
        lab_km_mpi_stop(e);
        return;
    }
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

/* ---- the reduce ------------------------------------------------------------------------ */

double lab_km_reduce(const double *psum, const int64_t *pcnt, const double *psse, int T, int k,
                     int d, float *centres, double *sums, int64_t *cnt, double *shift, int *empty,
                     int *first_empty)
{
    const size_t kd = (size_t)k * (size_t)d;
    double sse = 0;
    memset(sums, 0, kd * sizeof *sums);
    memset(cnt, 0, (size_t)k * sizeof *cnt);
    for (int t = 0; t < T; t++) { /* task order, whoever ran each task */
        const double *ps = psum + (size_t)t * kd;
        const int64_t *pc = pcnt + (size_t)t * (size_t)k;
        for (size_t q = 0; q < kd; q++)
            sums[q] += ps[q];
        for (int c = 0; c < k; c++)
            cnt[c] += pc[c];
        sse += psse[t];
    }
    double worst = 0;
    *empty = 0;
    *first_empty = -1;
    for (int c = 0; c < k; c++) {
        float *cc = centres + (size_t)c * (size_t)d;
        if (cnt[c] == 0) { /* no points: the centre stays where it was */
            if ((*empty)++ == 0)
                *first_empty = c;
            continue;
        }
        double moved = 0;
        for (int j = 0; j < d; j++) {
            float nv = (float)(sums[(size_t)c * (size_t)d + (size_t)j] / (double)cnt[c]);
            double dv = (double)nv - (double)cc[j];
            moved += dv * dv;
            cc[j] = nv;
        }
        moved = sqrt(moved);
        if (moved > worst)
            worst = moved;
    }
    *shift = worst;
    return sse;
}
