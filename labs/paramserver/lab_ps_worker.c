/*
 * lab_ps_worker.c — one worker of the parameter-server lab: a process that
 * trains on its own slice of the data, step after step.
 *
 * With servers (sync, async, ssp), a step is: pull every shard's weights
 * (PULL to each, then the replies as they come; the shards' links run in
 * parallel because a sender never waits for the emulated wire), compute the minibatch
 * gradient (plus `compute_ms` of emulated compute, times the straggler
 * factor for the straggler), push each shard its slice (raw floats, top-k
 * pairs with error feedback, or 8-bit blocks), and report the step to the
 * master. With allreduce, the gradient is summed by lab_net_ring_allreduce with
 * the neighbours instead, and every worker applies it to its own copy of
 * the weights (all copies stay the same bits).
 *
 * A shard that dies is noticed as a failed send or receive. Pushes to the
 * shards that still answer go out first (so no live shard waits on this
 * worker), then the worker waits on the control channel for the master's
 * RECONNECT with a connection to the restarted shard, says HELLO with the
 * last step it pushed there, and pushes again. Pulls are one event loop over
 * the shards and the control channel, so a worker never sits on a live
 * shard's reply (which may wait for a barrier) while a restarted shard
 * waits for its HELLO. In sync a worker pushes its previous gradient again
 * when the restarted shard collects that step (it keeps it for this reason
 * until the next one is computed).
 *
 * The worker kills itself (SIGKILL) at the start of cfg.kill_worker_step
 * when it is cfg.kill_worker: a real death for the fault test; it stops
 * itself (SIGSTOP) at cfg.stop_worker_step when it is cfg.stop_worker: a
 * real hang, which the shards (sync) or the master (async, ssp) notice
 * after the hang timeout and end with SIGKILL.
 */
#include "labs/paramserver/lab_ps.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WK_RECONNECT_MS 60000 /* how long a worker waits for a restarted shard */

struct wk {
    const struct ps_cfg *c;
    const struct ps_child *ch;
    int me, S;
    struct lab_net_conn ctl;
    struct lab_net_conn conn[PS_MAX_SERVERS];
    int64_t lo[PS_MAX_SERVERS], hi[PS_MAX_SERVERS];
    bool fresh[PS_MAX_SERVERS];     /* a new connection: HELLO first */
    int64_t pushed[PS_MAX_SERVERS]; /* last step pushed to each shard, -1 */
    struct core_buf enc[PS_MAX_SERVERS];
    int64_t enc_step[PS_MAX_SERVERS];
    int64_t grad_step; /* the step whose gradient `grad` holds */
    float *w, *grad, *resid, *tmp;
    /* this step */
    double wait_s, xfer_s; /* xfer_s, xfer_bytes: the pull replies (pull_one) */
    uint64_t xfer_bytes;
    int64_t gap;
    /* allreduce */
    struct lab_net_conn left, right;
};

/* ---- the control channel ----------------------------------------------------- */

enum { WK_GO_ON = 0, WK_EXIT = 1 };

static void wk_error(struct wk *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void wk_error(struct wk *k, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    struct lab_net_part part = {line, n < 0                     ? 0
                                      : (size_t)n < sizeof line ? (size_t)n
                                                                : sizeof line - 1};
    struct core_err e;
    lab_net_send(&k->ctl, PS_MSG_ERROR, 0, k->me, &part, 1, 5000, &e);
}

/* Handles one message from the master. */
static int wk_handle(struct wk *k, const struct lab_net_msg *m)
{
    struct core_err e;
    if (m->type == PS_MSG_EXIT)
        return WK_EXIT;
    if (m->type == PS_MSG_RECONNECT) {
        int s = (int)m->a;
        if (s < 0 || s >= k->S ||
            lab_ps_child_reconnect(k->ch, &k->ctl, s, (int)m->b, &k->conn[s], &e) != 0)
            return WK_EXIT; /* the master will say why */
        k->fresh[s] = true;
        return WK_GO_ON;
    }
    if (m->type == PS_MSG_FINAL) {
        struct lab_net_part part = {k->w, (size_t)k->c->params * sizeof *k->w};
        lab_net_send(&k->ctl, PS_MSG_FINAL, 0, k->me, &part, 1, 60000, &e);
        return WK_GO_ON;
    }
    return WK_GO_ON;
}

/* Reads and handles what the master sent, waiting up to timeout_ms for the
 * first message. A master that went away means exit. */
static int wk_pump(struct wk *k, int timeout_ms)
{
    struct lab_net_conn *ctl = &k->ctl;
    struct lab_net_msg m;
    struct core_err e;
    int ready = lab_net_wait_any(&ctl, 1, timeout_ms, &e);
    if (ready == CORE_ERR_LIMIT)
        return WK_GO_ON;
    if (ready != 0 || lab_net_recv(&k->ctl, &m, 5000, &e) != 0)
        return WK_EXIT;
    return wk_handle(k, &m);
}

/* ---- shards ----------------------------------------------------------------------- */

static size_t slice_n(const struct wk *k, int s)
{
    return (size_t)(k->hi[s] - k->lo[s]);
}

/* Encodes this step's gradient for shard s into k->enc[s] (not for none). */
static void encode(struct wk *k, int s)
{
    const struct ps_cfg *c = k->c;
    float *g = k->grad + k->lo[s];
    size_t n = slice_n(k, s);
    if (c->comp == PS_COMP_TOPK) {
        /* error feedback: what was not sent last time is added this time */
        float *r = k->resid + k->lo[s], *t = k->tmp + k->lo[s];
        for (size_t i = 0; i < n; i++)
            g[i] += r[i];
        lab_ps_topk_encode(g, n, c->topk_frac, &k->enc[s]);
        memset(t, 0, n * sizeof *t);
        struct core_err e;
        lab_ps_topk_decode_add(k->enc[s].data, k->enc[s].len, t, n, &e);
        for (size_t i = 0; i < n; i++)
            r[i] = g[i] - t[i];
    } else if (c->comp == PS_COMP_Q8) {
        lab_ps_q8_encode(g, n, &k->enc[s]);
    }
    k->enc_step[s] = k->grad_step;
}

/* Sends the push of step t to shard s from what is kept. */
static int send_push(struct wk *k, int s, int64_t t, struct core_err *err)
{
    struct lab_net_part part;
    if (k->c->comp == PS_COMP_NONE)
        part = (struct lab_net_part){k->grad + k->lo[s], slice_n(k, s) * sizeof(float)};
    else
        part = (struct lab_net_part){k->enc[s].data, k->enc[s].len};
    /* not timed: lab_net_send returns once the bytes are in the socket buffer
     * (4 MiB), long before the shard has them; the transfer rate comes
     * from the pull replies, timed end to end (pull_one) */
    int rc = lab_net_send(&k->conn[s], PS_MSG_PUSH, t, k->me, &part, 1, -1, err);
    if (rc == 0)
        k->pushed[s] = t;
    return rc;
}

/* A new connection to shard s: HELLO, WELCOME, and in sync the previous
 * push again when the restarted shard collects that step. */
static int hello(struct wk *k, int s, struct core_err *err)
{
    struct lab_net_msg m;
    int rc = lab_net_send(&k->conn[s], PS_MSG_HELLO, k->pushed[s], k->me, NULL, 0, -1, err);
    if (rc == 0)
        rc = lab_net_recv(&k->conn[s], &m, -1, err);
    if (rc)
        return rc;
    if (m.type != PS_MSG_WELCOME)
        return core_err_set(err, CORE_ERR_IO, "shard %d answered HELLO with message %u", s + 1,
                            m.type);
    k->fresh[s] = false;
    int64_t v = m.a;
    if (k->c->mode == PS_SYNC && k->pushed[s] >= 0 && k->pushed[s] >= v) {
        bool kept = k->c->comp == PS_COMP_NONE ? k->grad_step == k->pushed[s]
                                               : k->enc_step[s] == k->pushed[s];
        if (!kept)
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "restarted shard %d collects step %lld, whose gradient is gone",
                                s + 1, (long long)v);
        rc = send_push(k, s, k->pushed[s], err);
    }
    return rc;
}

/* An operation on shard s failed: its connection is done with. */
static void lost(struct wk *k, int s)
{
    k->fresh[s] = false;
    lab_net_conn_close(&k->conn[s]);
}

/* Waits for the master's connection to the restarted shard s (it may have
 * come already). */
static int wait_reconnect(struct wk *k, int s, struct core_err *err)
{
    double end = core_time_mono() + WK_RECONNECT_MS / 1000.0;
    while (!k->fresh[s]) {
        if (core_time_mono() > end)
            return core_err_set(err, CORE_ERR_LIMIT,
                                "shard %d stopped answering and no restarted shard came within "
                                "%d s",
                                s + 1, WK_RECONNECT_MS / 1000);
        if (wk_pump(k, 100) == WK_EXIT)
            return WK_EXIT;
    }
    return 0;
}

/* Receives shard s's reply to a pull into the weights. */
static int pull_one(struct wk *k, int s, struct core_err *err)
{
    struct lab_net_msg m;
    int rc = lab_net_recv(&k->conn[s], &m, -1, err);
    if (rc)
        return rc;
    size_t n = slice_n(k, s);
    if (m.type != PS_MSG_WEIGHTS || m.len != sizeof(struct ps_pull_hdr) + n * sizeof(float))
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "shard %d answered a pull with message %u of %llu bytes", s + 1, m.type,
                            (unsigned long long)m.len);
    struct ps_pull_hdr h;
    memcpy(&h, m.data, sizeof h);
    /* the reply's transfer: from the shard starting to send it to the
     * whole of it here (on an emulated link lab_net_recv returns at its
     * delivery time), header and frame included */
    double got = lab_ps_now(k->c);
    if (got > h.t_sent) {
        k->xfer_s += got - h.t_sent;
        k->xfer_bytes += LAB_NET_HDR_BYTES + m.len;
    }
    memcpy(k->w + k->lo[s], (const char *)m.data + sizeof h, n * sizeof(float));
    if (h.wait_s > k->wait_s)
        k->wait_s = h.wait_s;
    if (h.gap > k->gap)
        k->gap = h.gap;
    return 0;
}

/* After the pushes to the live shards: each failed shard, reconnected and
 * greeted, gets its push of step t, until that works. Returns WK_EXIT when
 * the master ended the run meanwhile. */
static int recover_pushes(struct wk *k, const bool *failed, int64_t t, struct core_err *err)
{
    for (int s = 0; s < k->S; s++) {
        while (failed[s]) {
            int rc = wait_reconnect(k, s, err);
            if (rc)
                return rc;
            rc = hello(k, s, err);
            if (rc == 0)
                rc = send_push(k, s, t, err);
            if (rc == CORE_ERR_INTERNAL)
                return rc;
            if (rc == 0)
                break;
            lost(k, s); /* the restarted shard died too: wait for the next */
        }
    }
    return 0;
}

/* The pull of step t from every shard, as an event loop over the shards'
 * connections and the master's: a worker never sits on one shard's reply
 * while another shard has died and been restarted, because in sync the
 * restarted shard waits for every worker's HELLO, and a live shard's
 * barrier may wait for a worker that is itself waiting for that HELLO
 * round. */
enum { SH_HELLO, SH_SEND, SH_WAIT, SH_LOST, SH_DONE };

static int pull_phase(struct wk *k, int64_t t, struct core_err *err)
{
    int st[PS_MAX_SERVERS];
    double lost_at = 0;
    for (int s = 0; s < k->S; s++)
        st[s] = k->fresh[s] ? SH_HELLO : SH_SEND;
    for (;;) {
        bool done = true, any_lost = false;
        for (int s = 0; s < k->S; s++) {
            int rc = 0;
            if (st[s] == SH_HELLO) {
                rc = hello(k, s, err);
                if (rc == CORE_ERR_INTERNAL)
                    return rc;
                st[s] = rc ? SH_LOST : SH_SEND;
                if (rc)
                    lost(k, s);
            }
            if (st[s] == SH_SEND) {
                rc = lab_net_send(&k->conn[s], PS_MSG_PULL, t, k->me, NULL, 0, -1, err);
                st[s] = rc ? SH_LOST : SH_WAIT;
                if (rc)
                    lost(k, s);
            }
            done &= st[s] == SH_DONE;
            any_lost |= st[s] == SH_LOST;
        }
        if (done)
            return 0;
        if (!any_lost)
            lost_at = 0;
        else if (lost_at == 0)
            lost_at = core_time_mono();
        else if (core_time_mono() - lost_at > WK_RECONNECT_MS / 1000.0)
            return core_err_set(err, CORE_ERR_LIMIT,
                                "a shard stopped answering and no restarted shard came within %d s",
                                WK_RECONNECT_MS / 1000);
        struct lab_net_conn *cs[PS_MAX_SERVERS + 1];
        for (int s = 0; s < k->S; s++)
            cs[s] = st[s] == SH_WAIT ? &k->conn[s] : NULL;
        cs[k->S] = &k->ctl;
        int i = lab_net_wait_any(cs, (size_t)k->S + 1, 1000, err);
        if (i == CORE_ERR_LIMIT)
            continue;
        if (i < 0)
            return i;
        if (i == k->S) {
            if (wk_pump(k, 0) == WK_EXIT)
                return WK_EXIT;
            for (int s = 0; s < k->S; s++)
                if (k->fresh[s] && st[s] != SH_DONE)
                    st[s] = SH_HELLO; /* a new connection replaced the one we waited on */
            continue;
        }
        int rc = pull_one(k, i, err);
        if (rc == CORE_ERR_INTERNAL)
            return rc;
        st[i] = rc ? SH_LOST : SH_DONE;
        if (rc)
            lost(k, i);
    }
}

static int push_phase(struct wk *k, int64_t t, struct core_err *err)
{
    bool failed[PS_MAX_SERVERS] = {false};
    for (int s = 0; s < k->S; s++) {
        if (k->c->comp != PS_COMP_NONE)
            encode(k, s);
        int rc = 0;
        if (k->fresh[s])
            rc = hello(k, s, err);
        if (rc == CORE_ERR_INTERNAL)
            return rc;
        if (rc == 0)
            rc = send_push(k, s, t, err);
        failed[s] = rc != 0;
        if (failed[s])
            lost(k, s);
    }
    return recover_pushes(k, failed, t, err);
}

/* ---- the step loop ------------------------------------------------------------------ */

static uint64_t data_bytes(const struct wk *k)
{
    uint64_t b = k->left.st.bytes_sent + k->left.st.bytes_recv + k->right.st.bytes_sent +
                 k->right.st.bytes_recv;
    for (int s = 0; s < k->S; s++)
        b += k->conn[s].st.bytes_sent + k->conn[s].st.bytes_recv;
    return b;
}

/* Gradient plus the emulated compute, stretched for the straggler. */
static double compute(struct wk *k, int64_t t, double *loss)
{
    const struct ps_cfg *c = k->c;
    double t0 = core_time_mono();
    *loss = lab_ps_model_grad(c, k->w, t, k->me, k->grad);
    k->grad_step = t;
    double tg = core_time_mono() - t0;
    double target = (tg + c->compute_s) * lab_straggler_factor(&c->straggler, k->me);
    core_sleep(target - tg);
    return core_time_mono() - t0;
}

static int run_steps(struct wk *k, struct core_err *err)
{
    const struct ps_cfg *c = k->c;
    float *scratch = NULL;
    int rc = 0;
    if (c->mode == PS_ALLREDUCE)
        scratch = core_xmalloc(((size_t)c->params / (size_t)c->workers + 1) * sizeof *scratch);
    for (int64_t t = 0; t < c->steps; t++) {
        if (k->me == c->kill_worker && t == c->kill_worker_step)
            lab_ps_child_die(k->ch); /* local: SIGKILL; mpi: the rank leaves the run */
        if (k->me == c->stop_worker && t == c->stop_worker_step)
            lab_ps_child_hang(k->ch); /* a hang: the master ends it after the hang timeout */
        if (wk_pump(k, 0) == WK_EXIT) {
            rc = WK_EXIT;
            break;
        }
        struct ps_step_report r = {.worker = k->me, .step = (int32_t)t};
        uint64_t b0 = data_bytes(k);
        k->wait_s = 0;
        k->xfer_s = 0;
        k->xfer_bytes = 0;
        k->gap = 0;
        r.t_begin = lab_ps_now(c);
        if (c->mode != PS_ALLREDUCE) {
            rc = pull_phase(k, t, err);
            if (rc)
                break;
        }
        r.t_pull_end = lab_ps_now(c);
        r.compute_s = compute(k, t, &r.loss);
        r.t_push_begin = lab_ps_now(c);
        if (c->mode == PS_ALLREDUCE) {
            rc = lab_net_ring_allreduce(&k->left, &k->right, k->me, c->workers, k->grad,
                                        (size_t)c->params, scratch, -1, err);
            if (rc) {
                core_err_prefix(err, "step %lld", (long long)t);
                break;
            }
            /* the update is this worker's own compute; the all-reduce alone
             * is communication */
            double t_ar = lab_ps_now(c);
            lab_ps_model_apply(k->w, k->grad, (size_t)c->params, (float)(c->lr / c->workers));
            r.t_end = lab_ps_now(c);
            r.comm_s = t_ar - r.t_push_begin;
            r.compute_s += r.t_end - t_ar;
        } else {
            rc = push_phase(k, t, err);
            if (rc)
                break;
            r.t_end = lab_ps_now(c);
            r.comm_s = (r.t_pull_end - r.t_begin) + (r.t_end - r.t_push_begin);
        }
        r.wait_s = k->wait_s;
        r.xfer_s = k->xfer_s; /* 0 in allreduce: no pull replies */
        r.xfer_bytes = k->xfer_bytes;
        r.gap = k->gap;
        r.bytes = data_bytes(k) - b0;
        struct lab_net_part part = {&r, sizeof r};
        if (lab_net_send(&k->ctl, PS_MSG_STEP, t, k->me, &part, 1, 60000, err) != 0) {
            rc = WK_EXIT; /* the master is gone */
            break;
        }
    }
    free(scratch);
    return rc;
}

/* Closes the connections and frees the worker; what a send given up may
 * still read is freed after MPI ends (lab_mpi_defer_free). */
static void wk_free(struct wk *k)
{
    lab_net_conn_close(&k->ctl);
    lab_net_conn_close(&k->left);
    lab_net_conn_close(&k->right);
    for (int s = 0; s < k->S; s++) {
        lab_net_conn_close(&k->conn[s]);
        lab_mpi_defer_free(k->enc[s].data);
    }
    lab_mpi_defer_free(k->w);
    lab_mpi_defer_free(k->grad);
    lab_mpi_defer_free(k->resid);
    lab_mpi_defer_free(k->tmp);
    free(k);
}

int lab_ps_worker_main(int ctl_fd, void *arg)
{
    const struct ps_child *ch = arg;
    const struct ps_cfg *c = ch->cfg;
    struct wk *k = core_xcalloc(1, sizeof *k);
    k->c = c;
    k->ch = ch;
    k->me = ch->index;
    k->S = c->mode == PS_ALLREDUCE ? 0 : c->servers;
    lab_ps_child_close_others(ch, c->mode == PS_ALLREDUCE ? 2 : c->servers);
    lab_ps_child_ctl(ch, ctl_fd, &k->ctl);
    if (c->mode == PS_ALLREDUCE) {
        lab_ps_child_conn(ch, 0, &c->link, &k->left);
        lab_ps_child_conn(ch, 1, &c->link, &k->right);
    } else {
        lab_net_conn_init_local(&k->left, -1, NULL, NULL);
        lab_net_conn_init_local(&k->right, -1, NULL, NULL);
    }
    for (int s = 0; s < k->S; s++) {
        lab_ps_child_conn(ch, s, &c->link, &k->conn[s]);
        lab_ps_shard_range(c->params, c->servers, s, &k->lo[s], &k->hi[s]);
        k->pushed[s] = -1;
        k->enc_step[s] = -1;
        core_buf_init(&k->enc[s]);
    }
    k->grad_step = -1;
    size_t P = (size_t)c->params;
    k->w = core_xcalloc(P, sizeof *k->w);
    k->grad = core_xcalloc(P, sizeof *k->grad);
    if (c->comp == PS_COMP_TOPK) {
        k->resid = core_xcalloc(P, sizeof *k->resid);
        k->tmp = core_xcalloc(P, sizeof *k->tmp);
    }

    struct core_err err;
    core_err_clear(&err);
    int rc = run_steps(k, &err);
    if (rc && rc != WK_EXIT) {
        wk_error(k, "worker %d: %s", k->me + 1, err.msg);
        rc = 1;
    } else if (rc == 0) {
        for (int s = 0; s < k->S; s++)
            lab_net_send(&k->conn[s], PS_MSG_BYE, c->steps, k->me, NULL, 0, 5000, &err);
        /* Stay until the master has what it needs (allreduce: the
         * weights). */
        if (lab_net_send(&k->ctl, PS_MSG_DONE, c->steps, k->me, NULL, 0, 60000, &err) == 0)
            while (wk_pump(k, 1000) != WK_EXIT)
                ;
    } else {
        rc = 0;
    }
    if (ch->mpi)
        wk_free(k); /* a rank goes on (local: the process exits) */
    return rc;
}
