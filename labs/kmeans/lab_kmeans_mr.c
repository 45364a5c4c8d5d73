/*
 * lab_kmeans_mr.c — the k-means lab's MapReduce engine: the scheduler of a
 * pass over the map tasks (dispatch, results, lost and late workers), what
 * a worker computes for a task (lab_km_map, shared by the local worker
 * process and an MPI rank), the fault schedule, and the reduce in task
 * order. The workers are reached through a transport (struct km_transport
 * in lab_kmeans.h): worker processes (lab_kmeans_local.c) or the ranks of
 * an Open MPI job (lab_kmeans_ranks.c); this file does not know which.
 *
 * A pass hands every task to the first free worker. A worker answers each
 * command with one result: the task's partial sums and counts (with the
 * combiner) or one record per point (without), computed by
 * kern_kmeans_assign over the task's slice of the points. Results land in
 * per-task slots, and the reduce adds the slots in task order, so which
 * worker ran a task, how often and in what order changes nothing: the
 * centres are the same bits for any number of workers, any failure and
 * either transport.
 *
 * Faults. A worker that is gone (its process died, its connection closed)
 * is lost: its task goes back in the queue unless another copy is still
 * running, and locally a new worker takes its slot (an MPI rank's slot is
 * not used again: Open MPI cannot start one). When the queue is empty and a
 * worker is idle, a task running longer than max(3 x, typical + 5 ms) the
 * typical task time gets a backup copy there (speculative execution, as in
 * MapReduce); the first copy to finish wins and the other's result is read
 * and dropped. A worker silent for longer than the labs' hang rule allows
 * for the typical task (lab_hang_limit_s: 5 s + 20 x typical) is ended and
 * lost. Injected faults (crash=, straggler=) apply only to passes run with
 * faults on: the crash decision for (iteration, task, attempt) comes from
 * lab_km_fault_u, so a seed replays the same schedule; a local worker dies
 * of it (SIGKILL), an MPI rank drops the task's output and says so.
 */
#include "labs/kmeans/lab_kmeans.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KM_POLL_MS 50      /* cancellation latency while waiting */
#define KM_SPEC_FACTOR 3.0 /* a task this many typical times old gets a backup */
#define KM_SPEC_MIN_S 0.005
#define KM_MAX_ATTEMPTS 64
#define KM_FAULT_LOGS 12 /* fault log lines per run; then only the counts */

enum km_tstate { KM_T_PENDING, KM_T_RUNNING, KM_T_DONE };

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

/* ---- what a worker computes --------------------------------------------------------- */

size_t lab_km_rec_bytes(int d)
{
    return 4 * ((size_t)d + 2);
}

void lab_km_rec_fill(unsigned char *out, const float *x, const int32_t *lab, size_t i0, size_t n,
                     int d)
{
    const size_t rb = lab_km_rec_bytes(d);
    const int32_t one = 1;
    for (size_t i = i0; i < i0 + n; i++, out += rb) {
        memcpy(out, &lab[i], 4);
        memcpy(out + 4, x + i * (size_t)d, 4 * (size_t)d);
        memcpy(out + 4 + 4 * (size_t)d, &one, 4);
    }
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

bool lab_km_map(const struct km_cmd *c, const float *x, size_t m, int d, const float *cen, int k,
                bool combiner, double crash, uint64_t seed, struct km_reply *r, double *sums,
                int64_t *cnt, int32_t *labels)
{
    const size_t kd = (size_t)k * (size_t)d;
    *r = (struct km_reply){c->pass, c->task, c->attempt, c->op, 0, 0, 0, 0};
    if (c->faults && crash > 0 && lab_km_fault_u(seed, c->iter, c->task, c->attempt) < crash) {
        /* An injected crash, half-way through the task: the work done so
         * far is lost. */
        kern_kmeans_assign(x, m / 2, d, cen, k, NULL, NULL, NULL);
        return true;
    }
    if (c->op == KM_OP_MAP && combiner) {
        memset(sums, 0, kd * sizeof *sums);
        memset(cnt, 0, (size_t)k * sizeof *cnt);
        r->sse = kern_kmeans_assign(x, m, d, cen, k, NULL, sums, cnt);
        r->recs = (uint64_t)k;
        r->body = kd * sizeof *sums + (size_t)k * sizeof *cnt;
    } else {
        r->sse = kern_kmeans_assign(x, m, d, cen, k, labels, NULL, NULL);
        if (c->op == KM_OP_MAP) {
            r->recs = m;
            r->body = m * lab_km_rec_bytes(d);
        }
    }
    return false;
}

/* ---- the scheduler ------------------------------------------------------------------ */

static double km_now(const struct km_engine *e)
{
    return e->clk->now(e->clk->ctx);
}

void lab_km_engine_init(struct km_engine *e, struct lab_ctx *cx, struct km_shared *sh, int P, int T,
                        const double *straggle, const struct km_transport *tr)
{
    memset(e, 0, sizeof *e);
    e->cx = cx;
    e->tr = tr;
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

int lab_km_engine_start(struct km_engine *e, struct core_err *err)
{
    return e->tr->start(e, err);
}

int lab_km_engine_next_buf(const struct km_engine *e)
{
    return (int)((e->pass + 1) % 2);
}

void lab_km_engine_stop(struct km_engine *e)
{
    e->tr->stop(e);
}

/* What slot sl was doing, for the log: "map task 3 of iteration 7", or
 * "task 3 of the final assignment" (the LABEL pass after the last
 * iteration). */
static void km_work_words(uint32_t op, uint32_t task, uint32_t iter, char *buf, size_t size)
{
    if (op == KM_OP_LABEL)
        snprintf(buf, size, "task %u of the final assignment", task + 1);
    else
        snprintf(buf, size, "map task %u of iteration %u", task + 1, iter);
}

static void km_fault_log(struct km_engine *e, enum lab_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void km_fault_log(struct km_engine *e, enum lab_log_level lv, const char *fmt, ...)
{
    if (e->fault_logs_left <= 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    lab_log(e->cx, lv, "%s", line);
    if (--e->fault_logs_left == 0)
        lab_log(e->cx, LAB_LOG_INFO, "(further faults are counted, not logged)");
}

/* Slot s's attempt is over without a result: its task goes back in the
 * queue unless another copy runs or it is done. Whether it went back. */
static bool km_requeue(struct km_engine *e, int s)
{
    struct km_slot *sl = &e->slot[s];
    bool back = false;
    if (sl->busy && sl->pass == e->pass) {
        uint32_t t = sl->task;
        e->tlive[t]--;
        if (e->tstate[t] != KM_T_DONE && e->tlive[t] == 0) {
            e->tstate[t] = KM_T_PENDING;
            e->queue[(e->qhead + e->qn) % e->T] = (int)t;
            e->qn++;
            back = true;
        }
    }
    sl->busy = false;
    return back;
}

/* Worker s is gone (its process died, its connection closed) or, `hung`,
 * declared gone: the transport ends it; its task goes back in the queue
 * unless another copy runs; a new worker takes the slot where the
 * transport can start one. */
static int km_lost(struct km_engine *e, int s, bool hung, struct km_pass_stats *st,
                   struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    char who[32], how[96], work[64];
    double waited = km_now(e) - sl->t0;
    e->tr->lost(e, s, hung, who, sizeof who, how, sizeof how);
    km_work_words(sl->op, sl->task, sl->iter, work, sizeof work);
    bool busy = sl->busy;
    bool injected = busy && !hung && e->tr->crash_kills && e->sh->crash > 0 &&
                    lab_km_fault_u(e->sh->seed, sl->iter, sl->task, sl->attempt) < e->sh->crash;
    uint32_t attempt = sl->attempt;
    bool requeued = km_requeue(e, s);
    if (hung)
        st->timeouts++;
    else
        st->crashes++;
    const char *next =
        e->tr->replaces ? "a new worker takes its place" : "its slot is not used again";
    const char *task = requeued ? "the task runs again and"
                                : "another copy of the task finished "
                                  "or still runs, and";
    if (hung)
        km_fault_log(e, LAB_LOG_WARN, "worker %d (%s) did not answer %s within %.1f s: %s; %s %s",
                     s + 1, who, work, waited, how, task, next);
    else if (busy)
        km_fault_log(e, injected ? LAB_LOG_INFO : LAB_LOG_WARN,
                     "worker %d (%s) %s during %s (attempt %u%s); %s %s", s + 1, who, how, work,
                     attempt, injected ? ", an injected crash" : "", task, next);
    else
        km_fault_log(e, LAB_LOG_WARN, "worker %d (%s) %s while idle; %s", s + 1, who, how, next);
    if (!e->tr->replaces)
        return 0;
    int rc = e->tr->revive(e, s, err);
    if (rc == 0)
        st->respawns++;
    return rc < 0 ? rc : 0;
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
    int rc = e->tr->send(e, s, &c, err);
    if (rc == KM_GONE)
        return km_lost(e, s, false, st, err);
    return rc;
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

/* Reads the result slot s announced (or learns that its worker is gone). */
static int km_receive(struct km_engine *e, int s, enum km_op op, int *done,
                      struct km_pass_stats *st, struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    const struct km_transport *tr = e->tr;
    const struct km_shared *sh = e->sh;
    const int d = sh->d, k = sh->k;
    const size_t kd = (size_t)k * (size_t)d, rb = lab_km_rec_bytes(d);
    struct km_reply r;
    double t0 = km_now(e), t_red = 0;

    int rc = tr->recv(e, s, &r, err);
    if (rc == KM_GONE)
        return km_lost(e, s, false, st, err);
    if (rc < 0)
        return rc;
    if (!sl->busy || r.pass != sl->pass || r.task != sl->task || r.attempt != sl->attempt)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d answered task %u (pass %u, attempt %u), not the "
                            "task it was given",
                            s + 1, r.task + 1, r.pass, r.attempt);
    if (rc == KM_CRASHED) {
        char work[64];
        km_work_words(sl->op, sl->task, sl->iter, work, sizeof work);
        st->bytes += tr->frame_bytes + sizeof r;
        st->crashes++;
        bool back = km_requeue(e, s);
        km_fault_log(e, LAB_LOG_INFO,
                     "worker %d crashed during %s (attempt %u, an injected crash: the worker "
                     "drops the task's output and stays)%s",
                     s + 1, work, r.attempt, back ? "; the task runs again" : "");
        return 0;
    }
    const uint32_t t = r.task;
    const size_t m = e->bounds[t + 1] - e->bounds[t];
    uint64_t want_body = r.op == KM_OP_LABEL ? (tr->labels_sent ? m * 4 : 0)
                         : sh->combiner      ? kd * 8 + (size_t)k * 8
                                             : m * rb;
    if (r.body != want_body)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d sent %llu bytes for task %u, expected %llu", s + 1,
                            (unsigned long long)r.body, t + 1, (unsigned long long)want_body);
    bool accept = r.pass == e->pass && r.op == (uint32_t)op && e->tstate[t] != KM_T_DONE;
    st->bytes += tr->frame_bytes + sizeof r + r.body;
    if (!accept) {
        rc = tr->body(e, s, NULL, (size_t)r.body, err);
    } else if (r.op == KM_OP_LABEL) {
        rc = r.body ? tr->body(e, s, sh->labels + e->bounds[t], (size_t)r.body, err) : 0;
    } else if (sh->combiner) {
        rc = tr->body(e, s, e->psum + (size_t)t * kd, kd * sizeof(double), err);
        if (rc == 0)
            rc = tr->body(e, s, e->pcnt + (size_t)t * (size_t)k, (size_t)k * sizeof(int64_t), err);
    } else {
        /* The reducer's side of no combiner: every record added into the
         * task's partial, in point order — the same additions the combiner
         * would have made, so the result is the same bits. */
        double *ps = e->psum + (size_t)t * kd;
        int64_t *pc = e->pcnt + (size_t)t * (size_t)k;
        memset(ps, 0, kd * sizeof *ps);
        memset(pc, 0, (size_t)k * sizeof *pc);
        for (size_t i0 = 0; i0 < m && rc == 0; i0 += KM_REC_CHUNK) {
            size_t cnt = m - i0 < KM_REC_CHUNK ? m - i0 : KM_REC_CHUNK;
            rc = tr->body(e, s, e->rbuf, cnt * rb, err);
            if (rc != 0)
                break;
            double ta = km_now(e);
            if ((rc = lab_km_rec_reduce(e->rbuf, cnt, k, d, ps, pc, s + 1, t, err)) != 0)
                return rc;
            t_red += km_now(e) - ta;
        }
    }
    if (rc == KM_GONE)
        return km_lost(e, s, false, st, err); /* died while sending: the slot is busy with t */
    if (rc != 0)
        return rc;
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
    const int T = e->T;
    int ready[KM_MAX_WORKERS];
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
        if (e->slot[s].idx < 0 && e->tr->replaces) {
            if ((rc = e->tr->revive(e, s, err)) < 0)
                goto out;
            if (rc == 0)
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
        int serving = 0;
        for (int s = 0; s < p_use; s++) {
            struct km_slot *sl = &e->slot[s];
            if (sl->idx < 0)
                continue;
            serving++;
            if (sl->busy)
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
            char work[64];
            km_work_words((uint32_t)op, (uint32_t)t, iter, work, sizeof work);
            if (e->tattempts[t] >= KM_MAX_ATTEMPTS) {
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
                km_fault_log(e, LAB_LOG_INFO,
                             "%s is late (%.1f ms, typical %.1f ms): a backup copy runs on "
                             "worker %d",
                             work, 1e3 * (now - km_task_started(e, t, now)), 1e3 * typ, s + 1);
            }
            if ((rc = km_send(e, s, op, t, a, iter, faults, st, err)) != 0)
                goto out;
        }
        if (serving == 0) {
            rc = core_err_set(err, CORE_ERR_INTERNAL,
                              "kmeans: no worker is left to run the map tasks");
            goto out;
        }

        /* workers silent for too long are gone */
        for (int s = 0; s < e->P; s++) {
            struct km_slot *sl = &e->slot[s];
            if (sl->idx >= 0 && sl->busy && now - sl->t0 > hard)
                if ((rc = km_lost(e, s, true, st, err)) != 0)
                    goto out;
        }

        /* wait for results (or ends), waking for the cancel flag and, when a
         * worker is idle, for the first task to turn late */
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
        int n = e->tr->wait(e, wait_ms, ready, err);
        if (n < 0) {
            rc = n;
            goto out;
        }
        for (int q = 0; q < n; q++) {
            int s = ready[q];
            if (e->slot[s].idx < 0)
                continue;
            if (!e->slot[s].busy) /* an idle worker has nothing to say: it ended */
                rc = km_lost(e, s, false, st, err);
            else
                rc = km_receive(e, s, op, &done, st, err);
            if (rc != 0)
                goto out;
        }
    }
    st->wall_s = km_now(e) - t_start;
    e->typical_s = lab_stats_median_of(e->tdur, (size_t)done);
    rc = 0;
out:
    return rc;
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
