/*
 * lab_kmeans_ranks.c — the k-means lab's MapReduce engine as an Open MPI
 * job (transport=mpi): rank 0 is the master (lab_kmeans.c and the pass
 * below), ranks 1..P the map workers. Contract in lab_kmeans.h.
 *
 * The points are read or generated on rank 0 and sent to every rank once
 * (a broadcast: then each holds a copy, as each host of a MapReduce cluster
 * holds its blocks). A pass works as the local one (lab_kmeans_mr.c): each
 * task goes to the first free worker, with the centres in the command; the
 * result (k partial sums and counts with the combiner, a record per point
 * without, the labels for the final assignment) lands in the task's slot;
 * the reduce adds the slots in task order, so the centres are the same bits
 * for any number of ranks and any failure. Messages are framed lab_net_conn
 * messages (lab_ps_net.h) on LAB_MPI_TAG(CTL, 0, rank).
 *
 * Faults at the application level (a dead rank would end the whole job):
 * an injected crash makes the rank drop its task's output half-way and say
 * so (KM_MSG_CRASH); the task runs again, on whichever rank is free. A
 * straggler sleeps as the local one does; a late task gets a backup copy on
 * an idle rank; a rank silent for longer than the labs' hang rule allows
 * for the typical task (lab_hang_limit_s: 5 s + 20 x typical) is ended
 * (rank 0's KILL order) and its slot is not used again.
 */
#include "labs/kmeans/lab_kmeans.h"
#include "labs/transport/lab_mpi.h"
#include "labs/transport/lab_net.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KMR_MSG_CMD 0x4b4d0001u    /* payload: struct km_cmd, then k*d float centres */
#define KMR_MSG_RESULT 0x4b4d0002u /* payload: struct km_reply, then the body */
#define KMR_MSG_CRASH 0x4b4d0003u  /* payload: struct km_reply (no body): output dropped */
#define KMR_IO_MS 30000
#define KMR_SPEC_FACTOR 3.0
#define KMR_SPEC_MIN_S 0.005
#define KMR_MAX_ATTEMPTS 64
#define KMR_FAULT_LOGS 12

/* START's payload. */
struct kmr_start {
    uint64_t n, seed;
    int32_t d, k, combiner, slot;
    double crash, straggle;
};

static double kmr_now(const struct km_engine *e)
{
    return e->clk->now(e->clk->ctx);
}

/* ---- the master ------------------------------------------------------------------ */

int lab_km_mpi_start(struct km_engine *e, struct core_err *err)
{
    const struct km_shared *sh = e->sh;
    int size = lab_mpi_size();
    if (size != e->P + 1)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: the MPI job has %d ranks; %d workers need %d (rank 0 is the "
                            "master)",
                            size, e->P, e->P + 1);
    for (int s = 0; s < e->P; s++) {
        struct kmr_start st = {(uint64_t)sh->n, sh->seed, sh->d,     sh->k,
                               sh->combiner,    s,        sh->crash, e->strag[s]};
        int rc = lab_mpi_order(s + 1, LAB_MPI_START, 0, &st, sizeof st, 10000, err);
        if (rc)
            return core_err_prefix(err, "kmeans: starting rank %d", s + 1);
    }
    int rc = lab_mpi_sync_clocks(err);
    char *hosts = core_xmalloc(2048), ic[320];
    int n_hosts = 0;
    if (rc == 0)
        rc = lab_mpi_hosts(hosts, 2048, &n_hosts, ic, sizeof ic, NULL, err);
    if (rc == 0) {
        lab_ctx_set_hosts(e->cx, n_hosts, hosts, ic);
        lab_log(e->cx, LAB_LOG_INFO, "Open MPI job of %d ranks on %d host%s: %s", size, n_hosts,
                n_hosts == 1 ? "" : "s", hosts);
        lab_log(e->cx, LAB_LOG_INFO, "interconnect: %s", ic);
    }
    free(hosts);
    if (rc == 0)
        rc = lab_mpi_bcast((void *)sh->x, sh->n * (size_t)sh->d * sizeof(float), err);
    if (rc)
        return rc;
    e->conn = core_xcalloc((size_t)e->P, sizeof *e->conn);
    for (int s = 0; s < e->P; s++) {
        lab_net_conn_init_mpi(&e->conn[s], s + 1, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, s + 1),
                              lab_mpi_t_base(), NULL, e->cancel);
        e->slot[s].idx = s;
        e->slot[s].busy = false;
    }
    return 0;
}

void lab_km_mpi_stop(struct km_engine *e)
{
    for (int s = 0; e->conn && s < e->P; s++)
        lab_net_conn_close(&e->conn[s]);
    free(e->conn);
    e->conn = NULL;
}

static void work_words(uint32_t op, uint32_t task, uint32_t iter, char *buf, size_t n)
{
    if (op == KM_OP_LABEL)
        snprintf(buf, n, "task %u of the final assignment", task + 1);
    else
        snprintf(buf, n, "map task %u of iteration %u", task + 1, iter);
}

/* Slot s's attempt is over without a result: its task goes back in the
 * queue unless another copy runs or it is done. */
static bool requeue(struct km_engine *e, int s)
{
    struct km_slot *sl = &e->slot[s];
    bool back = false;
    if (sl->busy && sl->pass == e->pass) {
        int t = (int)sl->task;
        e->tlive[t]--;
        if (e->tstate[t] != 2 && e->tlive[t] == 0) {
            e->tstate[t] = 0;
            e->queue[(e->qhead + e->qn) % e->T] = t;
            e->qn++;
            back = true;
        }
    }
    sl->busy = false;
    return back;
}

static void fault_log(struct km_engine *e, enum lab_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fault_log(struct km_engine *e, enum lab_log_level lv, const char *fmt, ...)
{
    if (e->fault_logs_left <= 0)
        return;
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    lab_log(e->cx, lv, "%s", line);
    if (--e->fault_logs_left == 0)
        lab_log(e->cx, LAB_LOG_INFO, "(further faults are counted, not logged)");
}

/* Rank s + 1 is gone for this run (it closed, or it was ended). */
static void slot_gone(struct km_engine *e, int s, const char *why, struct km_pass_stats *st)
{
    struct km_slot *sl = &e->slot[s];
    char work[64];
    work_words(sl->op, sl->task, sl->iter, work, sizeof work);
    bool busy = sl->busy;
    bool back = requeue(e, s);
    sl->idx = -1;
    lab_net_conn_close(&e->conn[s]);
    fault_log(e, LAB_LOG_WARN, "worker %d (rank %d) %s%s%s; its slot is not used again%s", s + 1,
              s + 1, why, busy ? " during " : "", busy ? work : "",
              back ? ", and the task runs again" : "");
    (void)st;
}

static int send_cmd(struct km_engine *e, int s, enum km_op op, int t, uint32_t a, uint32_t iter,
                    bool faults, struct km_pass_stats *st, struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    const struct km_shared *sh = e->sh;
    struct km_cmd c = {(uint32_t)op, e->pass, iter, (uint32_t)t,  a,
                       e->pass % 2,  faults,  0,    e->bounds[t], e->bounds[t + 1]};
    sl->busy = true;
    sl->pass = e->pass;
    sl->task = (uint32_t)t;
    sl->attempt = a;
    sl->iter = iter;
    sl->op = (uint32_t)op;
    sl->t0 = kmr_now(e);
    sl->attempts++;
    e->tlive[t]++;
    e->tstate[t] = 1;
    struct lab_net_part parts[2] = {
        {&c, sizeof c}, {sh->centres[c.buf], (size_t)sh->k * (size_t)sh->d * sizeof(float)}};
    struct core_err werr;
    int rc = lab_net_send(&e->conn[s], KMR_MSG_CMD, t, a, parts, 2, KMR_IO_MS, &werr);
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    if (rc) {
        st->crashes++;
        slot_gone(e, s, "closed its connection", st);
    }
    return 0;
}

/* A result (or a crash) from slot s. */
static int take_reply(struct km_engine *e, int s, enum km_op op, const struct lab_net_msg *m,
                      int *done, struct km_pass_stats *st, struct core_err *err)
{
    struct km_slot *sl = &e->slot[s];
    const struct km_shared *sh = e->sh;
    const int d = sh->d, k = sh->k;
    const size_t kd = (size_t)k * (size_t)d, rb = lab_km_rec_bytes(d);
    struct km_reply r;
    if (m->len < sizeof r || (m->type != KMR_MSG_RESULT && m->type != KMR_MSG_CRASH))
        return core_err_set(err, CORE_ERR_INTERNAL, "kmeans: worker %d sent message 0x%x", s + 1,
                            m->type);
    memcpy(&r, m->data, sizeof r);
    if (!sl->busy || r.pass != sl->pass || r.task != sl->task || r.attempt != sl->attempt)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d answered task %u (pass %u, attempt %u), not the "
                            "task it was given",
                            s + 1, r.task + 1, r.pass, r.attempt);
    st->bytes += LAB_NET_HDR_BYTES + m->len;
    if (m->type == KMR_MSG_CRASH) {
        char work[64];
        work_words(sl->op, sl->task, sl->iter, work, sizeof work);
        st->crashes++;
        bool back = requeue(e, s);
        fault_log(e, LAB_LOG_INFO,
                  "worker %d (rank %d) crashed during %s (attempt %u, an injected crash: under MPI "
                  "the rank drops the task's output and stays)%s",
                  s + 1, s + 1, work, r.attempt, back ? "; the task runs again" : "");
        return 0;
    }
    const uint32_t t = r.task;
    const size_t mm = e->bounds[t + 1] - e->bounds[t];
    uint64_t want = r.op == KM_OP_LABEL ? mm * 4 : sh->combiner ? kd * 8 + (size_t)k * 8 : mm * rb;
    if (r.body != want || m->len != sizeof r + want)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d sent %llu bytes for task %u, expected %llu", s + 1,
                            (unsigned long long)r.body, t + 1, (unsigned long long)want);
    const unsigned char *body = (const unsigned char *)m->data + sizeof r;
    bool accept = r.pass == e->pass && r.op == (uint32_t)op && e->tstate[t] != 2;
    double ta = kmr_now(e);
    if (accept && r.op == KM_OP_LABEL) {
        memcpy(sh->labels + e->bounds[t], body, mm * 4);
    } else if (accept && sh->combiner) {
        memcpy(e->psum + (size_t)t * kd, body, kd * sizeof(double));
        memcpy(e->pcnt + (size_t)t * (size_t)k, body + kd * sizeof(double),
               (size_t)k * sizeof(int64_t));
    } else if (accept) {
        /* the reducer's side of no combiner, in point order (as local) */
        double *ps = e->psum + (size_t)t * kd;
        int64_t *pc = e->pcnt + (size_t)t * (size_t)k;
        memset(ps, 0, kd * sizeof *ps);
        memset(pc, 0, (size_t)k * sizeof *pc);
        int rc = lab_km_rec_reduce(body, mm, k, d, ps, pc, s + 1, t, err);
        if (rc != 0)
            return rc;
        st->reduce_s += kmr_now(e) - ta;
    }
    double t1 = kmr_now(e);
    sl->busy = false;
    if (r.pass == e->pass)
        e->tlive[t]--;
    if (accept) {
        e->psse[t] = r.sse;
        e->tstate[t] = 2;
        e->tdur[*done] = t1 - sl->t0;
        (*done)++;
        st->map_cpu_s += r.map_s;
        st->records += r.recs;
        st->tasks_by_slot[s]++;
        sl->tasks_done++;
    }
    return 0;
}

/* The oldest running task with one copy, older than `after`, not on s. */
static int pick_late(const struct km_engine *e, int s, double now, double after)
{
    int best = -1;
    double oldest = now;
    for (int w = 0; w < e->P; w++) {
        const struct km_slot *o = &e->slot[w];
        if (w == s || o->idx < 0 || !o->busy || o->pass != e->pass)
            continue;
        int t = (int)o->task;
        if (e->tstate[t] != 1 || e->tlive[t] != 1 || now - o->t0 <= after)
            continue;
        if (o->t0 < oldest) {
            oldest = o->t0;
            best = t;
        }
    }
    return best;
}

int lab_km_mpi_pass(struct km_engine *e, enum km_op op, int p_use, bool faults, uint32_t iter,
                    struct km_pass_stats *st, struct core_err *err)
{
    const int T = e->T;
    int done = 0, rc = 0;
    memset(st, 0, sizeof *st);
    e->pass++;
    for (int t = 0; t < T; t++) {
        e->tstate[t] = 0;
        e->tattempts[t] = 0;
        e->tlive[t] = 0;
        e->queue[t] = t;
    }
    e->qhead = 0;
    e->qn = T;
    double t_start = kmr_now(e);
    while (done < T) {
        if (lab_cancelled(e->cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
        double now = kmr_now(e);
        double typ = e->typical_s;
        if (done > 0)
            typ = lab_stats_median_of(e->tdur, (size_t)done);
        double spec = typ > 0 ? fmax(KMR_SPEC_FACTOR * typ, typ + KMR_SPEC_MIN_S) : INFINITY;
        /* the labs' hang rule (lab_hang_limit_s) on the typical task; none
         * before a first task has finished: nothing is known to expect yet */
        double hard = typ > 0 ? lab_hang_limit_s(typ) : INFINITY;
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
            } else if ((t = pick_late(e, s, now, spec)) >= 0) {
                backup = true;
            }
            if (t < 0)
                continue;
            if (e->tattempts[t] >= KMR_MAX_ATTEMPTS) {
                char work[64];
                work_words((uint32_t)op, (uint32_t)t, iter, work, sizeof work);
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "kmeans: %s failed %d attempts in a row; giving up", work,
                                  KMR_MAX_ATTEMPTS);
                goto out;
            }
            uint32_t a = ++e->tattempts[t];
            if (a > 1)
                st->reexec++;
            if (backup) {
                st->speculative++;
                char work[64];
                work_words((uint32_t)op, (uint32_t)t, iter, work, sizeof work);
                fault_log(e, LAB_LOG_INFO,
                          "%s is late (typical %.1f ms): a backup copy runs on "
                          "worker %d",
                          work, 1e3 * typ, s + 1);
            }
            if ((rc = send_cmd(e, s, op, t, a, iter, faults, st, err)) != 0)
                goto out;
        }
        if (serving == 0) {
            rc = core_err_set(err, CORE_ERR_INTERNAL,
                              "kmeans: no worker rank is left to run the map tasks");
            goto out;
        }
        /* ranks silent for too long are ended */
        for (int s = 0; s < e->P; s++) {
            struct km_slot *sl = &e->slot[s];
            if (sl->idx >= 0 && sl->busy && now - sl->t0 > hard) {
                char why[96];
                snprintf(why, sizeof why, "did not answer within %.1f s: ended", now - sl->t0);
                struct core_err ke;
                lab_mpi_order(s + 1, LAB_MPI_KILL, 0, NULL, 0, 1000, &ke);
                st->timeouts++;
                slot_gone(e, s, why, st);
            }
        }
        struct lab_net_conn *cs[KM_MAX_WORKERS];
        int who[KM_MAX_WORKERS], n = 0;
        for (int s = 0; s < e->P; s++)
            if (e->slot[s].idx >= 0 && e->slot[s].busy) {
                cs[n] = &e->conn[s];
                who[n++] = s;
            }
        if (n == 0)
            continue;
        struct core_err we;
        int i = lab_net_wait_any(cs, (size_t)n, 50, &we);
        if (i == CORE_ERR_LIMIT)
            continue;
        if (i == CORE_ERR_CANCELLED) {
            rc = core_err_set(err, i, "cancelled");
            goto out;
        }
        if (i < 0) {
            rc = core_err_set(err, i, "kmeans: waiting for the workers: %s", we.msg);
            goto out;
        }
        int s = who[i];
        struct lab_net_msg m;
        double r0 = kmr_now(e);
        int rr = lab_net_recv(&e->conn[s], &m, KMR_IO_MS, &we);
        if (rr == CORE_ERR_CANCELLED) {
            rc = core_err_set(err, rr, "cancelled");
            goto out;
        }
        if (rr) {
            st->crashes++;
            slot_gone(e, s, "closed its connection", st);
            continue;
        }
        double red0 = st->reduce_s;
        if ((rc = take_reply(e, s, op, &m, &done, st, err)) != 0)
            goto out;
        st->shuffle_s += kmr_now(e) - r0 - (st->reduce_s - red0);
    }
    st->wall_s = kmr_now(e) - t_start;
    e->typical_s = lab_stats_median_of(e->tdur, (size_t)done);
out:
    return rc;
}

/* ---- a rank --------------------------------------------------------------------------- */

static void nap(double secs)
{
    if (secs <= 0)
        return;
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Serves rank 0's commands until the connection ends. */
static void serve(const struct kmr_start *st, const float *x, struct lab_net_conn *ctl)
{
    const int d = st->d, k = st->k;
    const size_t kd = (size_t)k * (size_t)d, rb = lab_km_rec_bytes(d);
    float *cen = core_xmalloc(kd * sizeof *cen);
    unsigned char *body = NULL;
    size_t body_cap = 0;
    int32_t *lab = NULL;
    size_t lab_cap = 0;
    for (;;) {
        struct lab_net_msg m;
        struct core_err e;
        if (lab_net_recv(ctl, &m, -1, &e) != 0)
            break;
        struct km_cmd c;
        if (m.type != KMR_MSG_CMD || m.len != sizeof c + kd * sizeof(float))
            break;
        memcpy(&c, m.data, sizeof c);
        memcpy(cen, (const char *)m.data + sizeof c, kd * sizeof *cen);
        if (c.op == KM_OP_QUIT || c.hi < c.lo || c.hi > st->n)
            break;
        double t0 = core_time_mono();
        const size_t mm = (size_t)(c.hi - c.lo);
        const float *xs = x + c.lo * (size_t)d;
        struct km_reply r = {c.pass, c.task, c.attempt, c.op, 0, 0, 0, 0};
        if (c.faults && st->crash > 0 &&
            lab_km_fault_u(st->seed, c.iter, c.task, c.attempt) < st->crash) {
            /* the injected crash: half the work, then the output is lost */
            kern_kmeans_assign(xs, mm / 2, d, cen, k, NULL, NULL, NULL);
            struct lab_net_part part = {&r, sizeof r};
            if (lab_net_send(ctl, KMR_MSG_CRASH, c.task, c.attempt, &part, 1, -1, &e) != 0)
                break;
            continue;
        }
        size_t want = c.op == KM_OP_LABEL ? mm * 4
                      : st->combiner      ? kd * 8 + (size_t)k * 8
                                          : mm * rb;
        if (want > body_cap) {
            free(body);
            body_cap = want;
            body = core_xmalloc(body_cap ? body_cap : 1);
        }
        if (mm > lab_cap) {
            free(lab);
            lab_cap = mm;
            lab = core_xmalloc(lab_cap * sizeof *lab);
        }
        if (c.op == KM_OP_LABEL) {
            r.sse = kern_kmeans_assign(xs, mm, d, cen, k, lab, NULL, NULL);
            memcpy(body, lab, mm * 4);
        } else if (st->combiner) {
            double *sums = (double *)(void *)body;
            int64_t *cnt = (int64_t *)(void *)(body + kd * sizeof(double));
            memset(body, 0, want);
            r.sse = kern_kmeans_assign(xs, mm, d, cen, k, NULL, sums, cnt);
            r.recs = (uint64_t)k;
        } else {
            r.sse = kern_kmeans_assign(xs, mm, d, cen, k, lab, NULL, NULL);
            const int32_t one = 1;
            unsigned char *p = body;
            for (size_t i = 0; i < mm; i++, p += rb) {
                memcpy(p, &lab[i], 4);
                memcpy(p + 4, xs + i * (size_t)d, 4 * (size_t)d);
                memcpy(p + 4 + 4 * (size_t)d, &one, 4);
            }
            r.recs = mm;
        }
        r.body = want;
        double t = core_time_mono() - t0;
        if (c.faults && st->straggle > 1)
            nap((st->straggle - 1) * t);
        r.map_s = core_time_mono() - t0;
        struct lab_net_part parts[2] = {{&r, sizeof r}, {body, want}};
        if (lab_net_send(ctl, KMR_MSG_RESULT, c.task, c.attempt, parts, 2, -1, &e) != 0)
            break;
    }
    free(cen);
    lab_mpi_defer_free(body); /* a send given up may still read it */
    free(lab);
}

int lab_km_mpi_rank_main(const struct lab_params *p, struct core_err *err)
{
    (void)p; /* the configuration comes with rank 0's START order */
    int rc = lab_mpi_init(err);
    if (rc)
        return rc;
    float *x = NULL;
    for (;;) {
        struct lab_mpi_order o;
        rc = lab_mpi_next_order(&o, err);
        if (rc || o.kind == LAB_MPI_END) {
            lab_mpi_order_fini(&o);
            break;
        }
        if (o.kind != LAB_MPI_START || x || o.n != sizeof(struct kmr_start)) {
            lab_mpi_order_fini(&o);
            continue;
        }
        struct kmr_start st;
        memcpy(&st, o.payload, sizeof st);
        lab_mpi_order_fini(&o);
        rc = lab_mpi_sync_clocks(err);
        if (rc == 0)
            rc = lab_mpi_hosts(NULL, 0, NULL, NULL, 0, NULL, err);
        size_t bytes = (size_t)st.n * (size_t)st.d * sizeof(float);
        x = core_xmalloc(bytes ? bytes : 1);
        if (rc == 0)
            rc = lab_mpi_bcast(x, bytes, err);
        if (rc)
            break;
        struct lab_net_conn ctl;
        lab_net_conn_init_mpi(&ctl, 0, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, lab_mpi_rank()),
                              lab_mpi_t_base(), NULL, NULL);
        serve(&st, x, &ctl);
        lab_net_conn_close(&ctl);
    }
    lab_mpi_finish();
    free(x);
    return rc;
}
