/*
 * lab_net_mpi.c — the MPI transport of struct lab_net_conn (lab_net.h) and
 * the parameter-server lab's ranks under Open MPI (lab_ps.h). Built only
 * with Open MPI; lab_nompi.c stands in otherwise.
 *
 * The transport. A connection is (peer rank, tag); each write is one or
 * more MPI messages of bytes on that tag (at most 1 GiB each), and the
 * reader treats the messages as one byte stream: a message that fits what
 * the reader asked for is received straight into the reader's buffer (a
 * frame's header and each payload part are messages of their own, so a
 * payload is received in place, no copy of ours), a larger one goes to the
 * connection's stash and is handed out from there. A message of zero bytes
 * is the end of the stream (close and shutdown send it; MPI keeps messages
 * on one tag in order, so it comes after everything sent before). Matched
 * probes (MPI_Improbe/MPI_Mrecv) make a receive from several threads safe.
 *
 * Waiting. Every call is non-blocking MPI plus a loop: the sends are
 * MPI_Isend tested until done; while one waits, the small messages coming
 * the other way on the same connection are stashed (up to the first large
 * one: a payload, which the read it is for takes in place), so a peer that
 * closed (its end in that stream) fails the send as a socket's EPIPE would,
 * instead of waiting for a reader that will never come. The loops look at the cancel flag,
 * the deadline, lab_mpi_ended (rank 0 ended the job) and the epoch (a KILL
 * order: this rank left the run at the application level), and back off
 * from spinning to short sleeps (lab_mpi_backoff).
 *
 * A send given up (time limit, cancel, a closed peer) cannot be taken back
 * from Open MPI: its request is kept and completed in lab_mpi_finish's
 * drain, so the buffers a rank sends from live until the job ends (the
 * ranks' mains below free them after lab_mpi_finish).
 */
#include "labs/transport/lab_mpi.h"
#include "labs/lab_author.h"
#include "labs/transport/lab_net.h"

#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MPI_CHUNK ((size_t)1 << 30) /* bytes per MPI message: counts are int */

struct mpi_tx {
    int peer, tag, epoch;
    atomic_int shut;     /* lab_net_conn_shutdown was called: reads see the end */
    atomic_int fin_sent; /* our end of the stream went out */
    bool fin_in;         /* the peer's end arrived (after the stash's bytes) */
    unsigned char *stash;
    size_t off, len, cap; /* bytes [off, len) received, not yet read */
    struct mpi_tx *next;  /* the registry of live connections */
};

/* Live connections, for the kill hook. */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpi_tx *reg_head;

static struct mpi_tx *tx_of(const struct lab_net_conn *c)
{
    return c->tx;
}

static int closed_err(struct core_err *err)
{
    return core_err_set(err, CORE_ERR_IO, "peer closed the connection");
}

static int mpi_fail(int code, const char *what, struct core_err *err)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", code);
    return core_err_set(err, CORE_ERR_IO, "%s: MPI: %s", what, s);
}

/* The end of our stream, once. */
static void send_fin(struct mpi_tx *t)
{
    if (atomic_exchange(&t->fin_sent, 1))
        return;
    MPI_Request req;
    if (MPI_Isend(NULL, 0, MPI_BYTE, t->peer, t->tag, MPI_COMM_WORLD, &req) == MPI_SUCCESS)
        MPI_Request_free(&req); /* zero bytes: nothing of ours to keep alive */
}

/* Whether this connection may still be used; the reason when not. */
static int alive(const struct lab_net_conn *c, struct core_err *err)
{
    const struct mpi_tx *t = tx_of(c);
    if (!t || c->fd < 0)
        return closed_err(err);
    if (lab_mpi_ended())
        return core_err_set(err, CORE_ERR_IO, "the master ended the run");
    if (lab_mpi_term_noted())
        return core_err_set(err, CORE_ERR_IO, "Open MPI is ending the job");
    if (t->epoch != lab_mpi_epoch())
        return core_err_set(err, CORE_ERR_IO,
                            "this rank left the run (an application-level fault)");
    return 0;
}

static int wait_check(const struct lab_net_conn *c, double end, struct core_err *err)
{
    if (c->cancel && atomic_load(c->cancel))
        return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    if (end >= 0 && core_time_mono() >= end)
        return core_err_set(err, CORE_ERR_LIMIT, "time limit reached");
    return alive(c, err);
}

static void stash_room(struct mpi_tx *t, size_t more)
{
    if (t->off > 0 && t->off == t->len)
        t->off = t->len = 0;
    if (t->len + more <= t->cap)
        return;
    if (t->off > 0) {
        memmove(t->stash, t->stash + t->off, t->len - t->off);
        t->len -= t->off;
        t->off = 0;
    }
    if (t->len + more > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + more)
            cap *= 2;
        t->stash = core_xrealloc(t->stash, cap);
        t->cap = cap;
    }
}

/* Takes the next message of the stream off the wire, if there is one:
 * into dst when it fits in room (and *placed says how much went there),
 * else into the stash. *moved: a message (or the end) came. */
static int take_one(struct mpi_tx *t, char *dst, size_t room, size_t *placed, bool *moved,
                    struct core_err *err)
{
    *placed = 0;
    *moved = false;
    if (t->fin_in)
        return 0;
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    int rc = MPI_Improbe(t->peer, t->tag, MPI_COMM_WORLD, &flag, &msg, &st);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "receive", err);
    if (!flag)
        return 0;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *moved = true;
    if (count == 0) {
        t->fin_in = true;
        return MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE) == MPI_SUCCESS
                   ? 0
                   : core_err_set(err, CORE_ERR_IO, "receive: MPI_Mrecv failed");
    }
    char *into;
    if (dst && (size_t)count <= room && t->off == t->len) {
        into = dst;
        *placed = (size_t)count;
    } else {
        stash_room(t, (size_t)count);
        into = (char *)t->stash + t->len;
        t->len += (size_t)count;
    }
    rc = MPI_Mrecv(into, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "receive", err);
}

/* Moves what is there (stash, then the wire) into buf until *got == n,
 * without blocking. *moved: some byte (or the end) came. The end with
 * bytes still wanted is "peer closed". */
static int rx_progress(struct lab_net_conn *c, char *buf, size_t n, size_t *got, bool *moved,
                       struct core_err *err)
{
    struct mpi_tx *t = tx_of(c);
    *moved = false;
    if (atomic_load(&t->shut))
        return closed_err(err);
    while (*got < n) {
        size_t avail = t->len - t->off;
        if (avail > 0) {
            size_t k = avail < n - *got ? avail : n - *got;
            memcpy(buf + *got, t->stash + t->off, k);
            t->off += k;
            *got += k;
            *moved = true;
            continue;
        }
        if (t->fin_in)
            return closed_err(err);
        size_t placed;
        bool m;
        int rc = take_one(t, buf + *got, n - *got, &placed, &m, err);
        if (rc)
            return rc;
        if (!m)
            return 0;
        *got += placed;
        *moved = true;
    }
    return 0;
}

/* Stashes the small messages waiting on c, up to the first large one
 * (a send looks for the peer's end behind a header or a log line; a payload
 * stays on the wire, to be received in place by the read it is for). */
#define STASH_SMALL 65536
static int rx_stash_small(struct lab_net_conn *c, struct core_err *err)
{
    struct mpi_tx *t = tx_of(c);
    while (!t->fin_in) {
        int flag = 0, count = 0;
        MPI_Status st;
        int rc = MPI_Iprobe(t->peer, t->tag, MPI_COMM_WORLD, &flag, &st);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "receive", err);
        if (!flag)
            return 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count > STASH_SMALL)
            return 0;
        size_t placed;
        bool m;
        rc = take_one(t, NULL, 0, &placed, &m, err);
        if (rc || !m)
            return rc;
    }
    return 0;
}

/* A send in progress: the chunks of one buffer, one request at a time. */
struct tx_send {
    const char *p;
    size_t left;
    MPI_Request req;
};

static int send_step(struct lab_net_conn *c, struct tx_send *s, bool *moved, struct core_err *err)
{
    struct mpi_tx *t = tx_of(c);
    *moved = false;
    while (s->req != MPI_REQUEST_NULL || s->left > 0) {
        if (s->req != MPI_REQUEST_NULL) {
            int done = 0;
            int rc = MPI_Test(&s->req, &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return mpi_fail(rc, "send", err);
            if (!done)
                return 0;
            *moved = true;
            continue;
        }
        size_t k = s->left < MPI_CHUNK ? s->left : MPI_CHUNK;
        int rc = MPI_Isend(s->p, (int)k, MPI_BYTE, t->peer, t->tag, MPI_COMM_WORLD, &s->req);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "send", err);
        s->p += k;
        s->left -= k;
    }
    return 0;
}

static void send_abandon(struct tx_send *s)
{
    if (s->req != MPI_REQUEST_NULL)
        lab_mpi_lose_request(&s->req);
}

static int mpi_exchange(struct lab_net_conn *out, const void *obuf, size_t on,
                        struct lab_net_conn *in, void *ibuf, size_t in_n, int timeout_ms,
                        struct core_err *err)
{
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    struct lab_net_conn *any = out ? out : in;
    struct tx_send s = {obuf, out ? on : 0, MPI_REQUEST_NULL};
    size_t got = 0;
    if (!in)
        in_n = 0;
    int rc = alive(any, err);
    if (rc == 0 && in && in != out)
        rc = alive(in, err);
    if (rc == 0 && s.left > 0 && atomic_load(&tx_of(out)->shut))
        rc = closed_err(err);
    if (rc == 0 && s.left > 0 && tx_of(out)->fin_in && tx_of(out)->off == tx_of(out)->len)
        rc = closed_err(err); /* as a write to a socket whose reader is gone */
    struct lab_mpi_backoff b;
    lab_mpi_backoff_start(&b);
    while (rc == 0 && (got < in_n || s.left > 0 || s.req != MPI_REQUEST_NULL)) {
        bool m1 = false, m2 = false;
        if (got < in_n)
            rc = rx_progress(in, ibuf, in_n, &got, &m1, err);
        if (rc == 0 && (s.left > 0 || s.req != MPI_REQUEST_NULL)) {
            rc = send_step(out, &s, &m2, err);
            if (rc == 0 && (s.left > 0 || s.req != MPI_REQUEST_NULL) && in != out) {
                /* a reader that closed will not take this: look for its end */
                rc = rx_stash_small(out, err);
                if (rc == 0 && tx_of(out)->fin_in)
                    rc = closed_err(err);
            }
        }
        if (rc)
            break;
        if (m1 || m2) {
            lab_mpi_backoff_start(&b);
            continue;
        }
        rc = wait_check(any, end, err);
        if (rc == CORE_ERR_LIMIT)
            rc =
                core_err_set(err, CORE_ERR_LIMIT, "no progress from peer within %d ms", timeout_ms);
        if (rc)
            break;
        lab_mpi_backoff_wait(&b);
    }
    if (rc)
        send_abandon(&s);
    return rc;
}

static int mpi_write_all(struct lab_net_conn *c, const void *buf, size_t n, int timeout_ms,
                         struct core_err *err)
{
    return mpi_exchange(c, buf, n, NULL, NULL, 0, timeout_ms, err);
}

static int mpi_read_all(struct lab_net_conn *c, void *buf, size_t n, int timeout_ms,
                        struct core_err *err)
{
    return mpi_exchange(NULL, NULL, 0, c, buf, n, timeout_ms, err);
}

static int mpi_peek(struct lab_net_conn *c, void *buf, size_t n, bool *partial,
                    struct core_err *err)
{
    *partial = false;
    int rc = alive(c, err);
    if (rc)
        return rc;
    struct mpi_tx *t = tx_of(c);
    if (atomic_load(&t->shut))
        return closed_err(err);
    /* one message at a time: a payload behind the header stays on the wire
     * for lab_net_recv to take in place */
    while (t->len - t->off < n && !t->fin_in) {
        size_t placed;
        bool m;
        rc = take_one(t, NULL, 0, &placed, &m, err);
        if (rc)
            return rc;
        if (!m)
            break;
    }
    if (t->len - t->off >= n) {
        memcpy(buf, t->stash + t->off, n);
        return 1;
    }
    if (t->fin_in)
        return closed_err(err);
    *partial = t->len > t->off;
    return 0;
}

/* Whether c has something to report now (bytes, an end, a reason to fail). */
static bool mpi_ready(struct lab_net_conn *c)
{
    struct mpi_tx *t = tx_of(c);
    struct core_err e;
    if (alive(c, &e) != 0 || atomic_load(&t->shut) || t->fin_in || t->len > t->off)
        return true;
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(t->peer, t->tag, MPI_COMM_WORLD, &flag, &st);
    return flag != 0;
}

static int mpi_wait(struct lab_net_conn *const *cs, size_t n, int wake_fd, int ms,
                    struct core_err *err)
{
    (void)err;
    double end = core_time_mono() + ms / 1000.0;
    struct lab_mpi_backoff b;
    lab_mpi_backoff_start(&b);
    for (;;) {
        for (size_t i = 0; i < n; i++)
            if (cs[i] && cs[i]->fd >= 0 && cs[i]->tx && mpi_ready(cs[i]))
                return 0;
        if (wake_fd >= 0) {
            struct pollfd p = {wake_fd, POLLIN, 0};
            if (poll(&p, 1, 0) > 0)
                return 0;
        }
        if (lab_mpi_ended() || lab_mpi_term_noted() || core_time_mono() >= end)
            return 0;
        lab_mpi_backoff_wait(&b);
    }
}

static void mpi_shutdown(struct lab_net_conn *c)
{
    struct mpi_tx *t = tx_of(c);
    if (!t)
        return;
    atomic_store(&t->shut, 1);
    send_fin(t);
}

static void mpi_close(struct lab_net_conn *c)
{
    struct mpi_tx *t = tx_of(c);
    if (!t)
        return;
    if (t->epoch == lab_mpi_epoch() && !lab_mpi_ended())
        send_fin(t);
    pthread_mutex_lock(&reg_mu);
    for (struct mpi_tx **p = &reg_head; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&reg_mu);
    free(t->stash);
    free(t);
    c->tx = NULL;
    c->fd = -1;
}

static const struct lab_net_ops ps_transport_mpi = {
    .name = "mpi",
    .write_all = mpi_write_all,
    .read_all = mpi_read_all,
    .close = mpi_close,
    .exchange = mpi_exchange,
    .peek = mpi_peek,
    .wait = mpi_wait,
    .shutdown = mpi_shutdown,
};

/* A KILL: every connection of the old epoch ends, so its peers see this
 * rank go as they would see a process die. */
static void kill_hook(void)
{
    pthread_mutex_lock(&reg_mu);
    for (struct mpi_tx *t = reg_head; t; t = t->next)
        if (t->epoch != lab_mpi_epoch())
            send_fin(t);
    pthread_mutex_unlock(&reg_mu);
}

void lab_net_conn_init_mpi(struct lab_net_conn *c, int peer, int tag, double t_base,
                           const struct lab_net_link_cfg *link, atomic_int *cancel)
{
    memset(c, 0, sizeof *c);
    c->ops = &ps_transport_mpi;
    c->fd = peer;
    c->t_base = t_base;
    if (link)
        c->link = *link;
    c->cancel = cancel;
    core_buf_init(&c->rx);
    core_buf_init(&c->pend);
    struct mpi_tx *t = core_xcalloc(1, sizeof *t);
    t->peer = peer;
    t->tag = tag;
    t->epoch = lab_mpi_epoch();
    c->tx = t;
    lab_mpi_set_kill_hook(kill_hook);
    pthread_mutex_lock(&reg_mu);
    t->next = reg_head;
    reg_head = t;
    pthread_mutex_unlock(&reg_mu);
}
