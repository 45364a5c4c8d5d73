/*
 * lab_kmeans_ranks.c — the k-means engine's MPI transport (struct
 * km_transport, lab_kmeans.h) and the map worker on the ranks of an Open
 * MPI job (transport=mpi): rank 0 is the master (lab_kmeans.c and the
 * scheduler, lab_kmeans_mr.c, the same as for local workers), ranks 1..P
 * the map workers, slot s being rank s + 1.
 *
 * The points are read or generated on rank 0 and sent to every rank once
 * (a broadcast: then each holds a copy, as each host of a MapReduce cluster
 * holds its blocks). A command carries the centres it maps against; a
 * result (k partial sums and counts with the combiner, a record per point
 * without, the labels for the final assignment) is one framed message
 * (lab_net.h) on LAB_MPI_TAG(CTL, 0, rank), handed to the scheduler from
 * the connection's buffer.
 *
 * Faults at the application level (a dead rank would end the whole job):
 * an injected crash makes the rank drop its task's output half-way and say
 * so (KM_MSG_CRASH: the scheduler's KM_CRASHED); the task runs again, on
 * whichever rank is free. A straggler sleeps as the local one does. A rank
 * silent for longer than the labs' hang rule allows is ended (rank 0's KILL
 * order) and its slot is not used again, nor is one whose connection
 * closed.
 */
#include "labs/kmeans/lab_kmeans.h"
#include "labs/transport/lab_mpi.h"
#include "labs/transport/lab_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KM_MSG_CMD 0x4b4d0001u    /* payload: struct km_cmd, then k*d float centres */
#define KM_MSG_RESULT 0x4b4d0002u /* payload: struct km_reply, then the body */
#define KM_MSG_CRASH 0x4b4d0003u  /* payload: struct km_reply (no body): output dropped */
#define KM_MPI_IO_MS 30000

/* START's payload. */
struct km_mpi_start {
    uint64_t n, seed;
    int32_t d, k, combiner, slot;
    double crash, straggle;
};

/* ---- the transport (rank 0) ------------------------------------------------------ */

static void mpi_fill_start(int rank, void *buf, void *ud)
{
    const struct km_engine *e = ud;
    const struct km_shared *sh = e->sh;
    struct km_mpi_start st = {(uint64_t)sh->n, sh->seed, sh->d,     sh->k,
                              sh->combiner,    rank - 1, sh->crash, e->strag[rank - 1]};
    memcpy(buf, &st, sizeof st);
}

static int mpi_start(struct km_engine *e, struct core_err *err)
{
    const struct km_shared *sh = e->sh;
    char needs[96];
    snprintf(needs, sizeof needs, "%d workers need %d (rank 0 is the master)", e->P, e->P + 1);
    int rc = lab_mpi_job_start(e->cx, e->P + 1, needs, mpi_fill_start, sizeof(struct km_mpi_start),
                               e, NULL, err);
    if (rc == 0)
        rc = lab_mpi_bcast((void *)sh->x, sh->n * (size_t)sh->d * sizeof(float), err);
    if (rc)
        return core_err_prefix(err, "kmeans");
    e->conn = core_xcalloc((size_t)e->P, sizeof *e->conn);
    e->msg = core_xcalloc((size_t)e->P, sizeof *e->msg);
    e->at = core_xcalloc((size_t)e->P, sizeof *e->at);
    for (int s = 0; s < e->P; s++) {
        lab_net_conn_init_mpi(&e->conn[s], s + 1, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, s + 1),
                              lab_mpi_t_base(), NULL, e->cancel);
        e->slot[s].idx = s;
        e->slot[s].busy = false;
    }
    return 0;
}

static int mpi_revive(struct km_engine *e, int s, struct core_err *err)
{
    (void)e, (void)s, (void)err;
    return KM_GONE; /* Open MPI cannot start a rank in a running job */
}

static int mpi_send(struct km_engine *e, int s, const struct km_cmd *c, struct core_err *err)
{
    const struct km_shared *sh = e->sh;
    struct lab_net_part parts[2] = {
        {c, sizeof *c}, {sh->centres[c->buf & 1], (size_t)sh->k * (size_t)sh->d * sizeof(float)}};
    struct core_err werr;
    int rc =
        lab_net_send(&e->conn[s], KM_MSG_CMD, c->task, c->attempt, parts, 2, KM_MPI_IO_MS, &werr);
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    return rc ? KM_GONE : 0;
}

static int mpi_wait(struct km_engine *e, int ms, int *ready, struct core_err *err)
{
    struct lab_net_conn *cs[KM_MAX_WORKERS];
    int who[KM_MAX_WORKERS], n = 0;
    for (int s = 0; s < e->P; s++)
        if (e->slot[s].idx >= 0 && e->slot[s].busy) { /* an idle rank sends nothing */
            cs[n] = &e->conn[s];
            who[n++] = s;
        }
    if (n == 0)
        return 0;
    struct core_err we;
    int i = lab_net_wait_any(cs, (size_t)n, ms, &we);
    if (i == CORE_ERR_LIMIT)
        return 0;
    if (i == CORE_ERR_CANCELLED)
        return core_err_set(err, i, "cancelled");
    if (i < 0)
        return core_err_set(err, i, "kmeans: waiting for the workers: %s", we.msg);
    ready[0] = who[i];
    return 1;
}

static int mpi_recv(struct km_engine *e, int s, struct km_reply *r, struct core_err *err)
{
    struct lab_net_msg *m = &e->msg[s];
    struct core_err re;
    int rc = lab_net_recv(&e->conn[s], m, KM_MPI_IO_MS, &re);
    if (rc == CORE_ERR_CANCELLED)
        return core_err_set(err, rc, "cancelled");
    if (rc)
        return KM_GONE;
    if (m->len < sizeof *r || (m->type != KM_MSG_RESULT && m->type != KM_MSG_CRASH))
        return core_err_set(err, CORE_ERR_INTERNAL, "kmeans: worker %d sent message 0x%x", s + 1,
                            m->type);
    memcpy(r, m->data, sizeof *r);
    e->at[s] = sizeof *r;
    if (m->type == KM_MSG_CRASH)
        return KM_CRASHED;
    if (m->len != sizeof *r + r->body)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "kmeans: worker %d sent %llu bytes for a body of %llu", s + 1,
                            (unsigned long long)(m->len - sizeof *r), (unsigned long long)r->body);
    return 0;
}

static int mpi_body(struct km_engine *e, int s, void *buf, size_t n, struct core_err *err)
{
    const struct lab_net_msg *m = &e->msg[s];
    if (e->at[s] + n > m->len)
        return core_err_set(err, CORE_ERR_INTERNAL, "kmeans: worker %d's result is short", s + 1);
    if (buf)
        memcpy(buf, (const unsigned char *)m->data + e->at[s], n);
    e->at[s] += n;
    return 0;
}

static void mpi_lost(struct km_engine *e, int s, bool hung, char *who, size_t who_n, char *how,
                     size_t how_n)
{
    snprintf(who, who_n, "rank %d", s + 1);
    if (hung) {
        struct core_err ke;
        lab_mpi_order(s + 1, LAB_MPI_KILL, 0, NULL, 0, 1000, &ke);
        snprintf(how, how_n, "ended");
    } else {
        snprintf(how, how_n, "closed its connection");
    }
    lab_net_conn_close(&e->conn[s]);
    e->slot[s].idx = -1;
}

static void mpi_stop(struct km_engine *e)
{
    for (int s = 0; e->conn && s < e->P; s++)
        lab_net_conn_close(&e->conn[s]);
    free(e->conn);
    free(e->msg);
    free(e->at);
    e->conn = NULL;
    e->msg = NULL;
    e->at = NULL;
}

const struct km_transport lab_km_transport_mpi = {
    .name = "mpi",
    .start = mpi_start,
    .revive = mpi_revive,
    .send = mpi_send,
    .wait = mpi_wait,
    .recv = mpi_recv,
    .body = mpi_body,
    .lost = mpi_lost,
    .stop = mpi_stop,
    .frame_bytes = LAB_NET_HDR_BYTES,
    .labels_sent = true,
    .replaces = false,
    .crash_kills = false,
};

/* ---- a rank --------------------------------------------------------------------------- */

/* Serves rank 0's commands until the connection ends. */
static void serve(const struct km_mpi_start *st, const float *x, struct lab_net_conn *ctl)
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
        if (m.type != KM_MSG_CMD || m.len != sizeof c + kd * sizeof(float))
            break;
        memcpy(&c, m.data, sizeof c);
        memcpy(cen, (const char *)m.data + sizeof c, kd * sizeof *cen);
        if (c.op == KM_OP_QUIT || c.hi < c.lo || c.hi > st->n)
            break;
        double t0 = core_time_mono();
        const size_t mm = (size_t)(c.hi - c.lo);
        const float *xs = x + c.lo * (size_t)d;
        /* the largest body: labels, sums and counts, or records */
        size_t room = mm * rb > kd * 8 + (size_t)k * 8 ? mm * rb : kd * 8 + (size_t)k * 8;
        if (room > body_cap) {
            free(body);
            body_cap = room;
            body = core_xmalloc(body_cap);
        }
        if (mm > lab_cap) {
            free(lab);
            lab_cap = mm;
            lab = core_xmalloc(lab_cap * sizeof *lab);
        }
        double *sums = (double *)(void *)body;
        int64_t *cnt = (int64_t *)(void *)(body + kd * sizeof(double));
        int32_t *labels = c.op == KM_OP_LABEL ? (int32_t *)(void *)body : lab;
        struct km_reply r;
        if (lab_km_map(&c, xs, mm, d, cen, k, st->combiner, st->crash, st->seed, &r, sums, cnt,
                       labels)) {
            /* the injected crash: the output is lost, and rank 0 is told */
            struct lab_net_part part = {&r, sizeof r};
            if (lab_net_send(ctl, KM_MSG_CRASH, c.task, c.attempt, &part, 1, -1, &e) != 0)
                break;
            continue;
        }
        if (c.op == KM_OP_LABEL)
            r.body = mm * 4; /* the labels travel: rank 0 has no shared memory with us */
        else if (!st->combiner)
            lab_km_rec_fill(body, xs, lab, 0, mm, d);
        double t = core_time_mono() - t0;
        if (c.faults && st->straggle > 1) /* a machine FACTOR times slower */
            core_sleep((st->straggle - 1) * t);
        r.map_s = core_time_mono() - t0;
        struct lab_net_part parts[2] = {{&r, sizeof r}, {body, (size_t)r.body}};
        if (lab_net_send(ctl, KM_MSG_RESULT, c.task, c.attempt, parts, 2, -1, &e) != 0)
            break;
    }
    free(cen);
    lab_mpi_defer_free(body); /* a send given up may still read it */
    free(lab);
}

/* The rank's part: the points from rank 0's broadcast, then its commands. */
static int km_rank_serve(const void *start, void *ud)
{
    struct km_mpi_start st;
    memcpy(&st, start, sizeof st);
    struct core_err *err = ud;
    size_t bytes = (size_t)st.n * (size_t)st.d * sizeof(float);
    float *x = core_xmalloc(bytes ? bytes : 1);
    int rc = lab_mpi_bcast(x, bytes, err);
    if (rc == 0) {
        struct lab_net_conn ctl;
        lab_net_conn_init_mpi(&ctl, 0, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, lab_mpi_rank()),
                              lab_mpi_t_base(), NULL, NULL);
        serve(&st, x, &ctl);
        lab_net_conn_close(&ctl);
    }
    free(x); /* no send of ours reads it */
    return rc;
}

int lab_km_mpi_rank_main(const struct lab_params *p, struct core_err *err)
{
    (void)p; /* the configuration comes with rank 0's START order */
    return lab_mpi_job_serve(sizeof(struct km_mpi_start), km_rank_serve, err, err);
}
