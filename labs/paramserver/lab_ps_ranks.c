/*
 * lab_ps_ranks.c — the parameter-server lab as an Open MPI job
 * (transport=mpi): rank 0 is the master (lab_paramserver.c), ranks 1..S
 * the server shards and S+1..S+W the workers. This file is both sides of
 * their start: the master's orders and the ranks' main, which turns an
 * order into the same lab_ps_server_main / lab_ps_worker_main the local processes
 * run, over MPI connections (lab_net_mpi.c) instead of socketpairs.
 *
 * Connections: rank 0 <-> rank r on LAB_MPI_TAG(CTL, gen, r), worker w <->
 * shard s on LAB_MPI_TAG(DATA, gen, w * PS_MAX_SERVERS + s), and the ring's
 * link w -> w+1 on LAB_MPI_TAG(RING, 0, w); gen counts a shard's restarts,
 * so nothing of a dead incarnation reaches the new one.
 *
 * A shard restarted with recover=on is the same rank started again: it left
 * the run at the application level (a kill_server fault, or rank 0's KILL
 * of a hung one) and waits for rank 0's next order; RESTART carries the
 * checkpoint. Built with or without Open MPI (lab_mpi.h says what the
 * calls do without it).
 */
#include "labs/paramserver/lab_ps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORDER_MS 10000 /* a rank takes an order within this */

/* START's payload. */
struct ps_mpi_start {
    struct ps_cfg cfg;
    int32_t role, index;
};

/* RESTART's payload: this, then the checkpoint's floats. */
struct ps_mpi_restart {
    int32_t gen, pad;
    int64_t step;
    int64_t clock[PS_MAX_WORKERS];
    uint8_t live[PS_MAX_WORKERS];
};

/* The wiring of a child started as rank `rank` (the role and index of
 * struct ps_child), generation gen for a shard. */
static void wire(struct ps_child *ch, const struct ps_cfg *c, int role, int index, int gen)
{
    ch->cfg = c;
    ch->role = role;
    ch->index = index;
    ch->data_fds = NULL;
    ch->n_data_fds = 0;
    ch->mpi = true;
    int me = lab_ps_rank_of(c, role, index), W = c->workers;
    ch->ctl_tag = LAB_MPI_TAG(LAB_MPI_KIND_CTL, gen, me);
    for (int k = 0; k < PS_MAX_WORKERS; k++)
        ch->own[k] = -1;
    if (role == 0) {
        for (int w = 0; w < W; w++) {
            ch->own[w] = lab_ps_rank_of(c, 1, w);
            ch->tag[w] = LAB_MPI_TAG(LAB_MPI_KIND_DATA, gen, w * PS_MAX_SERVERS + index);
        }
    } else if (c->mode == PS_ALLREDUCE) {
        if (W > 1) {
            int l = (index + W - 1) % W, r = (index + 1) % W;
            ch->own[0] = lab_ps_rank_of(c, 1, l);
            ch->tag[0] = LAB_MPI_TAG(LAB_MPI_KIND_RING, 0, l);
            ch->own[1] = lab_ps_rank_of(c, 1, r);
            ch->tag[1] = LAB_MPI_TAG(LAB_MPI_KIND_RING, 0, index);
        }
    } else {
        for (int s = 0; s < c->servers; s++) {
            ch->own[s] = lab_ps_rank_of(c, 0, s);
            ch->tag[s] = LAB_MPI_TAG(LAB_MPI_KIND_DATA, 0, index * PS_MAX_SERVERS + s);
        }
    }
}

/* ---- the master ---------------------------------------------------------------- */

static void ps_fill_start(int r, void *buf, void *ud)
{
    const struct ps_cfg *c = ud;
    struct ps_mpi_start st;
    memset(&st, 0, sizeof st);
    st.cfg = *c;
    st.role = r <= c->servers ? 0 : 1;
    st.index = r <= c->servers ? r - 1 : r - 1 - c->servers;
    memcpy(buf, &st, sizeof st);
}

int lab_ps_mpi_master_start(struct lab_ctx *cx, struct ps_cfg *c, struct lab_net_conn *srv_ctl,
                            struct lab_net_conn *wrk_ctl, struct lab_mpi_rankinfo *ranks,
                            struct core_err *err)
{
    int want = 1 + c->servers + c->workers;
    char needs[128];
    snprintf(needs, sizeof needs, "this run needs %d (rank 0, %d shard%s, %d worker%s)", want,
             c->servers, c->servers == 1 ? "" : "s", c->workers, c->workers == 1 ? "" : "s");
    int rc = lab_mpi_job_start(cx, want, needs, ps_fill_start, sizeof(struct ps_mpi_start), c,
                               ranks, err);
    if (rc)
        return rc;
    c->t0 = lab_mpi_t_start();
    atomic_int *cancel = lab_ctx_cancel_flag(cx);
    for (int s = 0; s < c->servers; s++) {
        int rank = lab_ps_rank_of(c, 0, s);
        lab_net_conn_init_mpi(&srv_ctl[s], rank, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, rank),
                              lab_mpi_t_base(), NULL, cancel);
    }
    for (int w = 0; w < c->workers; w++) {
        int rank = lab_ps_rank_of(c, 1, w);
        lab_net_conn_init_mpi(&wrk_ctl[w], rank, LAB_MPI_TAG(LAB_MPI_KIND_CTL, 0, rank),
                              lab_mpi_t_base(), NULL, cancel);
    }
    return 0;
}

int lab_ps_mpi_master_restart(struct lab_ctx *cx, const struct ps_cfg *c, const struct ps_child *a,
                              int gen, size_t n_weights, struct lab_net_conn *ctl,
                              struct core_err *err)
{
    if (gen > LAB_MPI_MAX_GEN)
        return core_err_set(err, CORE_ERR_INVALID, "shard %d restarted more than %d times",
                            a->index + 1, LAB_MPI_MAX_GEN);
    size_t n = sizeof(struct ps_mpi_restart) + n_weights * sizeof(float);
    unsigned char *buf = core_xcalloc(1, n);
    struct ps_mpi_restart h;
    memset(&h, 0, sizeof h);
    h.gen = gen;
    h.step = a->restored_step;
    for (int w = 0; w < PS_MAX_WORKERS; w++) {
        h.clock[w] = a->clock[w];
        h.live[w] = a->live[w];
    }
    memcpy(buf, &h, sizeof h);
    if (n_weights > 0)
        memcpy(buf + sizeof h, a->restored_w, n_weights * sizeof(float));
    int rank = lab_ps_rank_of(c, 0, a->index);
    int rc = lab_mpi_order(rank, LAB_MPI_RESTART, a->index, buf, n, ORDER_MS, err);
    free(buf);
    if (rc)
        return core_err_prefix(err, "restarting shard %d (rank %d)", a->index + 1, rank);
    lab_net_conn_close(ctl);
    lab_net_conn_init_mpi(ctl, rank, LAB_MPI_TAG(LAB_MPI_KIND_CTL, gen, rank), lab_mpi_t_base(),
                          NULL, lab_ctx_cancel_flag(cx));
    return 0;
}

void lab_ps_mpi_master_kill(const struct ps_cfg *c, int role, int index)
{
    struct core_err e;
    lab_mpi_order(lab_ps_rank_of(c, role, index), LAB_MPI_KILL, 0, NULL, 0, ORDER_MS, &e);
}

/* ---- a rank ---------------------------------------------------------------------- */

int lab_ps_mpi_rank_main(const struct lab_params *p, struct core_err *err)
{
    (void)p; /* rank 0's configuration comes with its START order */
    int rc = lab_mpi_init(err);
    if (rc)
        return rc;
    struct ps_cfg cfg;
    struct ps_child ch;
    bool started = false;
    for (;;) {
        struct lab_mpi_order o;
        rc = lab_mpi_next_order(&o, err);
        if (rc || o.kind == LAB_MPI_END) {
            lab_mpi_order_fini(&o);
            break;
        }
        if (o.kind == LAB_MPI_START && !started && o.n == sizeof(struct ps_mpi_start)) {
            struct ps_mpi_start st;
            memcpy(&st, o.payload, sizeof st);
            lab_mpi_order_fini(&o);
            started = true;
            cfg = st.cfg;
            rc = lab_mpi_job_started(err);
            if (rc)
                break;
            cfg.t0 = lab_mpi_t_start(); /* reports count from the common start */
            memset(&ch, 0, sizeof ch);
            wire(&ch, &cfg, st.role, st.index, 0);
            if (st.role == 0)
                lab_ps_server_main(-1, &ch);
            else
                lab_ps_worker_main(-1, &ch);
            continue;
        }
        if (o.kind == LAB_MPI_RESTART && started && ch.role == 0 &&
            o.n >= sizeof(struct ps_mpi_restart)) {
            struct ps_mpi_restart h;
            memcpy(&h, o.payload, sizeof h);
            int64_t lo, hi;
            lab_ps_shard_range(cfg.params, cfg.servers, ch.index, &lo, &hi);
            if (o.n == sizeof h + (size_t)(hi - lo) * sizeof(float)) {
                int index = ch.index;
                memset(&ch, 0, sizeof ch);
                wire(&ch, &cfg, 0, index, h.gen);
                ch.restored = true;
                ch.restored_step = h.step;
                ch.restored_w = (const float *)((const unsigned char *)o.payload + sizeof h);
                for (int w = 0; w < PS_MAX_WORKERS; w++) {
                    ch.clock[w] = h.clock[w];
                    ch.live[w] = h.live[w] != 0;
                }
                lab_ps_server_main(-1, &ch);
            }
            lab_mpi_order_fini(&o);
            continue;
        }
        lab_mpi_order_fini(&o); /* not for this rank's state: ignored */
    }
    lab_mpi_finish();
    return rc;
}
