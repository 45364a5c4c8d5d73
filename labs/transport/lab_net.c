/*
 * lab_net.c — framed messages, the local transport (Unix-domain stream
 * sockets polled with timeouts and a cancel flag), the emulated link and
 * lab_net_link_parse. The contract is in lab_net.h.
 *
 * Sending stamps each frame with its delivery time and writes it at once;
 * receiving reads the whole frame into the connection's pending buffer,
 * then sleeps (in slices, watching cancel) until the stamp, then swaps the
 * pending buffer into rx. So a lab_net_recv that ran out of time while waiting
 * for a delivery time keeps the message for the next call, and a message
 * borrowed from rx stays valid while the next one is being read.
 *
 * Throughput (the lab's push/pull is compared with plain blocking
 * write/read of a socketpair): every send/receive is tried first and
 * poll() runs only when it would block; a frame is one sendmsg of header
 * and parts; a payload is read straight into the pending buffer, whose
 * room (up to LAB_NET_RX_UPFRONT) is taken before its first byte; the sockets
 * get LAB_NET_SOCK_BUF buffers. So a 4 MB message costs a handful of syscalls,
 * and the only copies are the kernel's two.
 */
#include "labs/transport/lab_net.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- time ----------------------------------------------------------------- */

/* Absolute deadline for a timeout in ms (-1: none). */
static double deadline_of(int timeout_ms)
{
    return timeout_ms < 0 ? -1.0 : core_time_mono() + timeout_ms / 1000.0;
}

/* What is left of a deadline, in whole ms for an ops call (-1: none). */
static int ms_left(double end)
{
    if (end < 0)
        return -1;
    double left = end - core_time_mono();
    return left <= 0 ? 0 : (int)ceil(left * 1000.0);
}

static bool is_cancelled(atomic_int *cancel)
{
    return cancel && atomic_load(cancel);
}

/* Sleeps until monotonic time t, in slices of at most 50 ms watching
 * *cancel, and not past `end` (< 0: no limit): CORE_ERR_LIMIT then. */
static int sleep_until(double t, double end, atomic_int *cancel, struct core_err *err)
{
    for (;;) {
        if (is_cancelled(cancel))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        double now = core_time_mono();
        if (now >= t)
            return 0;
        if (end >= 0 && now >= end)
            return core_err_set(err, CORE_ERR_LIMIT, "time limit reached");
        double until = t;
        if (end >= 0 && end < until)
            until = end;
        if (until > now + 0.05)
            until = now + 0.05;
        core_sleep_until(until);
    }
}

/* ---- the local transport ------------------------------------------------- */

/* poll() on up to two descriptors, waiting at most until `end`, looking at
 * *cancel every 50 ms (blocking without slices when neither applies). */
static int wait_fds(struct pollfd *pf, nfds_t n, double end, atomic_int *cancel, int timeout_ms,
                    struct core_err *err)
{
    for (;;) {
        if (is_cancelled(cancel))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        int slice = cancel || end >= 0 ? 50 : -1;
        if (end >= 0) {
            double left = end - core_time_mono();
            if (left <= 0)
                return core_err_set(err, CORE_ERR_LIMIT, "no progress from peer within %d ms",
                                    timeout_ms);
            if (left * 1000 < slice)
                slice = (int)(left * 1000) + 1;
        }
        for (nfds_t i = 0; i < n; i++)
            pf[i].revents = 0;
        int r = poll(pf, n, slice);
        if (r > 0)
            return 0; /* ready, or hung up: the read/write says which */
        if (r < 0 && errno != EINTR)
            return core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
    }
}

static int closed_err(struct core_err *err)
{
    return core_err_set(err, CORE_ERR_IO, "peer closed the connection");
}

/* One non-blocking gather write of up to XFER_IOV entries (IOV_MAX is at
 * least 1024 on Linux): bytes written (>= 0) or a negative error. One
 * sendmsg puts a frame's header and its parts in the socket, with no copy
 * of ours and one call for them all. */
#define XFER_IOV 64
static long try_writev(int fd, const struct iovec *v, size_t n, struct core_err *err)
{
    int cnt = n > XFER_IOV ? XFER_IOV : (int)n;
    ssize_t w;
    if (cnt == 1) {
        w = send(fd, v[0].iov_base, v[0].iov_len, MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = (struct iovec *)v;
        mh.msg_iovlen = (size_t)cnt;
        w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (w < 0 && errno == ENOTSOCK)
        w = writev(fd, v, cnt);
    if (w >= 0)
        return (long)w;
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
        return 0;
    if (errno == EPIPE || errno == ECONNRESET)
        return closed_err(err);
    return core_err_set(err, CORE_ERR_IO, "write to peer: %s", strerror(errno));
}

/* One non-blocking read: bytes read (>= 0), or a negative error (a closed
 * peer included). */
static long try_read(int fd, char *p, size_t n, struct core_err *err)
{
    ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
    if (r < 0 && errno == ENOTSOCK)
        r = read(fd, p, n);
    if (r == 0)
        return closed_err(err);
    if (r > 0)
        return (long)r;
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
        return 0;
    if (errno == ECONNRESET)
        return closed_err(err);
    return core_err_set(err, CORE_ERR_IO, "read from peer: %s", strerror(errno));
}

/* A transfer in progress on the local transport: what is left to write to
 * `out` (a gather list, consumed from the front) and to read from `in`
 * into one buffer. It survives between xfer_run calls, so a frame can be
 * written while the message coming the other way is read in pieces. */
struct xfer {
    struct lab_net_conn *out;
    struct iovec *ov; /* the entries left; ov[0] may be partly written */
    size_t on;        /* entries left */
    size_t out_left;  /* bytes left to write */
    struct lab_net_conn *in;
    char *ip;
    size_t in_left; /* bytes left to read into ip */
    size_t moved;   /* bytes that went either way, over every run */
};

/* Fills ov[] from a header and payload parts, skipping empty entries, and
 * returns the number of entries. */
static size_t iov_fill(struct iovec *ov, const void *h, size_t hn, const struct lab_net_part *parts,
                       size_t n_parts)
{
    size_t k = 0;
    if (hn > 0)
        ov[k++] = (struct iovec){(void *)h, hn};
    for (size_t i = 0; i < n_parts; i++)
        if (parts[i].n > 0)
            ov[k++] = (struct iovec){(void *)parts[i].p, parts[i].n};
    return k;
}

static void xfer_wrote(struct xfer *x, size_t w)
{
    x->out_left -= w;
    while (w > 0) {
        if (w < x->ov->iov_len) {
            x->ov->iov_base = (char *)x->ov->iov_base + w;
            x->ov->iov_len -= w;
            return;
        }
        w -= x->ov->iov_len;
        x->ov++;
        x->on--;
    }
}

/* Moves bytes both ways until both directions are done (until_in: until
 * the read is, the write going as far as it can meanwhile). Each call is
 * tried first and poll() runs only when neither direction moved, so a
 * stream whose peer keeps up costs one syscall per chunk. A caller tells
 * an error before the first byte (x->moved == 0: the streams are sound)
 * from one in the middle of a frame. */
static int xfer_run(struct xfer *x, bool until_in, double end, int timeout_ms, struct core_err *err)
{
    struct lab_net_conn *out = x->out_left > 0 ? x->out : NULL;
    struct lab_net_conn *in = x->in_left > 0 ? x->in : NULL;
    atomic_int *cancel = out && out->cancel ? out->cancel : in ? in->cancel : NULL;
    if (out && out->fd < 0)
        return closed_err(err);
    if (in && in->fd < 0)
        return closed_err(err);
    while (x->in_left > 0 || (x->out_left > 0 && !until_in)) {
        /* Read first: draining our input is what lets the peer go on. */
        bool moved = false;
        if (is_cancelled(cancel))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        if (x->in_left > 0) {
            long r = try_read(in->fd, x->ip, x->in_left, err);
            if (r < 0)
                return (int)r;
            x->ip += r;
            x->in_left -= (size_t)r;
            x->moved += (size_t)r;
            moved |= r > 0;
        }
        if (x->out_left > 0) {
            long w = try_writev(out->fd, x->ov, x->on, err);
            if (w < 0)
                return (int)w;
            xfer_wrote(x, (size_t)w);
            x->moved += (size_t)w;
            moved |= w > 0;
        }
        if (moved)
            continue;
        struct pollfd pf[2];
        nfds_t n = 0;
        int wi = -1;
        if (x->out_left > 0) {
            pf[n] = (struct pollfd){out->fd, POLLOUT, 0};
            wi = (int)n++;
        }
        if (x->in_left > 0) {
            if (wi >= 0 && in->fd == out->fd)
                pf[wi].events |= POLLIN;
            else
                pf[n++] = (struct pollfd){in->fd, POLLIN, 0};
        }
        int rc = wait_fds(pf, n, end, cancel, timeout_ms, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int local_exchange(struct lab_net_conn *out, const void *obuf, size_t on,
                          struct lab_net_conn *in, void *ibuf, size_t in_n, int timeout_ms,
                          struct core_err *err)
{
    struct iovec ov[1];
    struct xfer x = {out, ov, 0, on, in, ibuf, in_n, 0};
    if (on > 0)
        ov[x.on++] = (struct iovec){(void *)obuf, on};
    return xfer_run(&x, false, deadline_of(timeout_ms), timeout_ms, err);
}

static int local_write_all(struct lab_net_conn *c, const void *buf, size_t n, int timeout_ms,
                           struct core_err *err)
{
    return local_exchange(c, buf, n, NULL, NULL, 0, timeout_ms, err);
}

static int local_read_all(struct lab_net_conn *c, void *buf, size_t n, int timeout_ms,
                          struct core_err *err)
{
    return local_exchange(NULL, NULL, 0, c, buf, n, timeout_ms, err);
}

static void local_close(struct lab_net_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* MSG_PEEK at the socket: the bytes waiting stay there for the read. */
static int local_peek(struct lab_net_conn *c, void *buf, size_t n, bool *partial,
                      struct core_err *err)
{
    *partial = false;
    ssize_t r = recv(c->fd, buf, n, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && errno == ENOTSOCK)
        return 0; /* a pipe: its reader finds out */
    if (r == 0)
        return closed_err(err);
    if (r < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
                   ? 0
                   : core_err_set(err, CORE_ERR_IO, "read from peer: %s", strerror(errno));
    if ((size_t)r == n)
        return 1;
    /* part of it: unless the peer died mid-message, the rest is on its way */
    struct pollfd p1 = {c->fd, POLLIN, 0};
    if (poll(&p1, 1, 0) > 0 && (p1.revents & (POLLHUP | POLLERR)))
        return closed_err(err);
    *partial = true;
    return 0;
}

static int local_wait(struct lab_net_conn *const *cs, size_t n, int wake_fd, int ms,
                      struct core_err *err)
{
    struct pollfd stack[16];
    struct pollfd *pf = n + 1 <= 16 ? stack : core_xcalloc(n + 1, sizeof *pf);
    nfds_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cs[i] && cs[i]->fd >= 0)
            pf[k++] = (struct pollfd){cs[i]->fd, POLLIN, 0};
    if (wake_fd >= 0)
        pf[k++] = (struct pollfd){wake_fd, POLLIN, 0};
    int rc = 0;
    if (poll(pf, k, ms) < 0 && errno != EINTR)
        rc = core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
    if (pf != stack)
        free(pf);
    return rc;
}

static void local_shutdown(struct lab_net_conn *c)
{
    if (c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR);
}

const struct lab_net_ops lab_net_transport_local = {
    .name = "local",
    .write_all = local_write_all,
    .read_all = local_read_all,
    .close = local_close,
    .exchange = local_exchange,
    .peek = local_peek,
    .wait = local_wait,
    .shutdown = local_shutdown,
};

/* ---- connections --------------------------------------------------------- */

/* Socket buffers of at least LAB_NET_SOCK_BUF each way (the kernel caps them at
 * net.core.wmem_max / rmem_max; errors, as on a pipe, are ignored). The
 * default ~200 KB makes a sender of a MB-sized frame stop and wait for the
 * reader every few hundred KB, a poll and a wake-up each time; with a
 * frame's worth of room both sides copy at once (measured: a 4 MB message
 * reaches the peer about twice as fast). */
static void sock_buffers(int fd)
{
    static const int opts[] = {SO_SNDBUF, SO_RCVBUF};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        int cur = 0, want = LAB_NET_SOCK_BUF;
        socklen_t len = sizeof cur;
        /* getsockopt reports twice what was set (the kernel's bookkeeping) */
        if (getsockopt(fd, SOL_SOCKET, opts[i], &cur, &len) == 0 && cur < 2 * want)
            setsockopt(fd, SOL_SOCKET, opts[i], &want, sizeof want);
    }
}

void lab_net_conn_init_local(struct lab_net_conn *c, int fd, const struct lab_net_link_cfg *link,
                             atomic_int *cancel)
{
    memset(c, 0, sizeof *c);
    c->ops = &lab_net_transport_local;
    c->fd = fd;
    if (link)
        c->link = *link;
    c->cancel = cancel;
    core_buf_init(&c->rx);
    core_buf_init(&c->pend);
    if (fd >= 0)
        sock_buffers(fd);
}

void lab_net_conn_close(struct lab_net_conn *c)
{
    if (c->ops && c->ops->close)
        c->ops->close(c);
    core_buf_fini(&c->rx);
    core_buf_fini(&c->pend);
    c->pend_full = 0;
}

void lab_net_conn_shutdown(struct lab_net_conn *c)
{
    if (c->fd >= 0 && c->ops && c->ops->shutdown)
        c->ops->shutdown(c);
}

void lab_net_conn_share_link(struct lab_net_conn *c, double *free_at)
{
    c->shared_free_at = free_at;
}

int lab_net_link_parse(const char *text, double *bytes_per_s, struct core_err *err)
{
    if (!text)
        text = "";
    if (strcasecmp(text, "off") == 0) {
        *bytes_per_s = 0;
        return 0;
    }
    double v = 0;
    size_t used = 0;
    int rc = core_num_parse(text, strlen(text), 0, &v, &used, NULL);
    /* An SI prefix in either case, then "bps" exactly: "GBps" is bytes per
     * second, and reading it as bits would make the link 8 times slower
     * than the student meant, so it is refused. */
    double mult = 0;
    const char *u = text + used;
    if (rc == 0) {
        static const char prefixes[] = "kKmMgGtT";
        static const double mults[] = {1e3, 1e3, 1e6, 1e6, 1e9, 1e9, 1e12, 1e12};
        double pm = 1;
        const char *at = *u ? strchr(prefixes, *u) : NULL;
        if (at) {
            pm = mults[at - prefixes];
            u++;
        }
        if (strcmp(u, "bps") == 0)
            mult = pm;
    }
    if (mult == 0 || !isfinite(v) || v <= 0 || !isfinite(v * mult) ||
        isspace((unsigned char)*text) || *text == '+' || *text == '-')
        return core_err_set(err, CORE_ERR_INVALID,
                            "link '%s': expected off or a positive rate in bits per second "
                            "such as 100Mbps, 1Gbps, 2.5Gbps, 800Kbps%s",
                            text,
                            mult == 0 && strcasecmp(u, "bps") == 0
                                ? " (bits: b, not bytes: B; 1 GB/s is 8Gbps)"
                                : "");
    *bytes_per_s = v * mult / 8.0;
    return 0;
}

/* ---- frames ---------------------------------------------------------------- */

struct frame {
    uint32_t type;
    int64_t a, b;
    uint64_t len;
    double deliver_at;
    bool at_once; /* the sender's link is off: deliver on arrival */
};

/* A frame's header; the delivery time goes on the wire relative to the
 * connection's clock base. */
static void frame_pack(unsigned char h[LAB_NET_HDR_BYTES], const struct frame *f, double base)
{
    uint32_t magic = LAB_NET_MAGIC;
    /* (at or after the clock base, so >= 0; "at once" is written as
     * -(t + 1), always below zero) */
    double at = f->deliver_at - base;
    if (f->at_once)
        at = -(at > 0 ? at : 0) - 1.0;
    memcpy(h + LAB_NET_HDR_MAGIC, &magic, 4);
    memcpy(h + LAB_NET_HDR_TYPE, &f->type, 4);
    memcpy(h + LAB_NET_HDR_A, &f->a, 8);
    memcpy(h + LAB_NET_HDR_B, &f->b, 8);
    memcpy(h + LAB_NET_HDR_LEN, &f->len, 8);
    memcpy(h + LAB_NET_HDR_DELIVER, &at, 8);
}

/* The delivery time of a packed header, on this process's clock. */
static double frame_deliver_at(const unsigned char h[LAB_NET_HDR_BYTES], double base)
{
    double at;
    memcpy(&at, h + LAB_NET_HDR_DELIVER, 8);
    return (at < 0 ? -at - 1.0 : at) + base;
}

static int frame_unpack(const unsigned char h[LAB_NET_HDR_BYTES], double base, struct frame *f,
                        struct core_err *err)
{
    uint32_t magic;
    memcpy(&magic, h + LAB_NET_HDR_MAGIC, 4);
    memcpy(&f->type, h + LAB_NET_HDR_TYPE, 4);
    memcpy(&f->a, h + LAB_NET_HDR_A, 8);
    memcpy(&f->b, h + LAB_NET_HDR_B, 8);
    memcpy(&f->len, h + LAB_NET_HDR_LEN, 8);
    f->deliver_at = frame_deliver_at(h, base);
    double raw;
    memcpy(&raw, h + LAB_NET_HDR_DELIVER, 8);
    f->at_once = raw < 0;
    if (magic != LAB_NET_MAGIC)
        return core_err_set(err, CORE_ERR_IO, "corrupt message from peer (bad magic 0x%08x)",
                            (unsigned)magic);
    if (f->len > LAB_NET_MSG_MAX)
        return core_err_set(err, CORE_ERR_IO,
                            "corrupt message from peer (length %llu over the %llu-byte limit)",
                            (unsigned long long)f->len, (unsigned long long)LAB_NET_MSG_MAX);
    /* A day ahead is no emulated link: a garbled stamp would hang us. */
    if (!isfinite(f->deliver_at) || f->deliver_at > core_time_mono() + 86400.0)
        return core_err_set(err, CORE_ERR_IO, "corrupt message from peer (delivery time %g)",
                            f->deliver_at);
    return 0;
}

static int broken_err(struct core_err *err)
{
    return core_err_set(err, CORE_ERR_IO,
                        "connection unusable after an earlier error in the middle of a message");
}

/* Rewrites a time-limit error to name the caller's limit. */
static int limit_err(int rc, int timeout_ms, const char *what, struct core_err *err)
{
    if (rc == CORE_ERR_LIMIT)
        return core_err_set(err, CORE_ERR_LIMIT, "%s: nothing from peer within %d ms", what,
                            timeout_ms);
    return rc;
}

/* A charge to a link, kept so a message that never left can give it back. */
struct link_charge {
    double *free_at; /* NULL: nothing charged */
    double before, after, ser;
};

/* Charges S bytes to c's outgoing link: returns the delivery time. A
 * shared link is charged with a compare-and-swap: a server shard sends to
 * its workers from one thread each, all on its one NIC. */
static double link_charge(struct lab_net_conn *c, uint64_t S, struct link_charge *ch)
{
    double now = core_time_mono();
    ch->free_at = NULL;
    if (c->link.bytes_per_s <= 0)
        return now + c->link.latency_s;
    double *free_at = c->shared_free_at ? c->shared_free_at : &c->link_free_at;
    double ser = (double)S / c->link.bytes_per_s;
    double before, after;
    __atomic_load(free_at, &before, __ATOMIC_ACQUIRE);
    do {
        after = (before > now ? before : now) + ser;
    } while (!__atomic_compare_exchange(free_at, &before, &after, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE));
    *ch = (struct link_charge){free_at, before, after, ser};
    c->st.wire_s += ser;
    return after + c->link.latency_s;
}

/* Gives a charge back (the message did not go): the link's next idle time
 * goes back unless another message was charged after it. */
static void link_refund(struct lab_net_conn *c, const struct link_charge *ch)
{
    if (!ch->free_at)
        return;
    double expect = ch->after, back = ch->before;
    __atomic_compare_exchange(ch->free_at, &expect, &back, false, __ATOMIC_ACQ_REL,
                              __ATOMIC_ACQUIRE);
    c->st.wire_s -= ch->ser;
}

static size_t parts_total(const struct lab_net_part *parts, size_t n_parts)
{
    size_t total = 0;
    for (size_t i = 0; i < n_parts; i++)
        total += parts[i].n;
    return total;
}

/* The local transport's send: header and parts in one gather list. */
static int local_send(struct lab_net_conn *c, const unsigned char *h,
                      const struct lab_net_part *parts, size_t n_parts, double end, int timeout_ms,
                      bool *clean, struct core_err *err)
{
    struct iovec stack[8];
    struct iovec *ov = n_parts + 1 <= 8 ? stack : core_xmalloc((n_parts + 1) * sizeof *ov);
    struct xfer x = {c, ov, 0, LAB_NET_HDR_BYTES + parts_total(parts, n_parts), NULL, NULL, 0, 0};
    x.on = iov_fill(ov, h, LAB_NET_HDR_BYTES, parts, n_parts);
    int rc = xfer_run(&x, false, end, timeout_ms, err);
    *clean = x.moved == 0;
    if (ov != stack)
        free(ov);
    return rc;
}

int lab_net_send(struct lab_net_conn *c, uint32_t type, int64_t a, int64_t b,
                 const struct lab_net_part *parts, size_t n_parts, int timeout_ms,
                 struct core_err *err)
{
    if (c->broken)
        return broken_err(err);
    if (c->fd < 0)
        return closed_err(err);
    size_t total = parts_total(parts, n_parts);
    if ((uint64_t)total > LAB_NET_MSG_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "message of %zu bytes is over the %llu-byte limit", total,
                            (unsigned long long)LAB_NET_MSG_MAX);
    double end = deadline_of(timeout_ms);
    unsigned char h[LAB_NET_HDR_BYTES];
    struct frame f = {type, a, b, total, 0, c->link.bytes_per_s <= 0 && c->link.latency_s <= 0};
    struct link_charge ch;
    f.deliver_at = link_charge(c, LAB_NET_HDR_BYTES + (uint64_t)total, &ch);
    frame_pack(h, &f, c->t_base);
    bool clean = false;
    int rc;
    if (c->ops == &lab_net_transport_local) {
        rc = local_send(c, h, parts, n_parts, end, timeout_ms, &clean, err);
    } else {
        rc = c->ops->write_all(c, h, LAB_NET_HDR_BYTES, ms_left(end), err);
        for (size_t i = 0; rc == 0 && i < n_parts; i++)
            if (parts[i].n > 0)
                rc = c->ops->write_all(c, parts[i].p, parts[i].n, ms_left(end), err);
    }
    if (rc && clean) {
        /* nothing moved: the stream is sound, the link was not used */
        link_refund(c, &ch);
        return limit_err(rc, timeout_ms, "send", err);
    }
    if (rc) {
        c->broken = 1; /* some of the frame may be out */
        return limit_err(rc, timeout_ms, "send", err);
    }
    c->st.bytes_sent += LAB_NET_HDR_BYTES + (uint64_t)total;
    c->st.msgs_sent++;
    return 0;
}

/* Receive buffers. A payload of up to LAB_NET_RX_UPFRONT bytes gets its whole
 * room before the first byte is read, so it is read in one piece straight
 * into the buffer it is handed out in. Beyond that the room doubles as the
 * bytes come (each byte copied O(1) times on average): a garbled length
 * that passes the LAB_NET_MSG_MAX check costs at most LAB_NET_RX_UPFRONT plus twice
 * what the peer really sent, never 2 GiB up front. */

/* How far to read next: got = 0 is a new payload. */
static size_t rx_next(size_t got, size_t len)
{
    size_t want = got == 0 ? LAB_NET_RX_UPFRONT : 2 * got;
    return want < len ? want : len;
}

/* Makes room for `want` payload bytes (+ a NUL) in c->pend, keeping the
 * first `keep` (none: the old bytes are not copied). */
static void pend_room(struct lab_net_conn *c, size_t want, size_t keep, size_t len)
{
    if (c->pend.cap >= want + 1)
        return;
    size_t cap = 2 * c->pend.cap > want + 1 ? 2 * c->pend.cap : want + 1;
    if (cap > len + 1)
        cap = len + 1;
    if (keep == 0) {
        free(c->pend.data);
        c->pend.data = core_xmalloc(cap);
    } else {
        c->pend.data = core_xrealloc(c->pend.data, cap);
    }
    c->pend.cap = cap;
}

/* Marks the pending buffer as holding len payload bytes, NUL after. */
static void pend_set_len(struct lab_net_conn *c, size_t len)
{
    pend_room(c, len, len, len); /* the room is there already, unless len = 0 */
    c->pend.len = len;
    c->pend.data[len] = '\0';
}

/* Reads a payload of len bytes into the pending buffer. (A transport of
 * messages — MPI — knows each message's real size before it takes it: its
 * room is taken whole, so a large payload is received in place.) */
static int pend_read_payload(struct lab_net_conn *c, size_t len, double end, struct core_err *err)
{
    size_t got = 0;
    if (c->ops != &lab_net_transport_local && len > 0) {
        pend_room(c, len, 0, len);
        int rc = c->ops->read_all(c, c->pend.data, len, ms_left(end), err);
        if (rc == 0)
            pend_set_len(c, len);
        return rc;
    }
    while (got < len) {
        size_t want = rx_next(got, len);
        pend_room(c, want, got, len);
        int rc = c->ops->read_all(c, c->pend.data + got, want - got, ms_left(end), err);
        if (rc)
            return rc;
        got = want;
    }
    pend_set_len(c, len);
    return 0;
}

/* Reads the next frame into c->pend (nothing when one is there already).
 * A limit before its first byte leaves c usable; anything later breaks it. */
static int pend_fill(struct lab_net_conn *c, double end, int timeout_ms, struct core_err *err)
{
    if (c->pend_full)
        return 0;
    int rc;
    bool clean;
    if (c->ops == &lab_net_transport_local) {
        /* the whole header in one read when it is there */
        struct xfer x = {NULL, NULL, 0, 0, c, (char *)c->pend_hdr, LAB_NET_HDR_BYTES, 0};
        rc = xfer_run(&x, false, end, timeout_ms, err);
        clean = x.moved == 0;
    } else {
        rc = c->ops->read_all(c, c->pend_hdr, 1, ms_left(end), err);
        clean = rc != 0;
        if (rc == 0)
            rc = c->ops->read_all(c, c->pend_hdr + 1, LAB_NET_HDR_BYTES - 1, ms_left(end), err);
    }
    if (rc && clean)
        return limit_err(rc, timeout_ms, "receive", err);
    struct frame f;
    if (rc == 0)
        rc = frame_unpack(c->pend_hdr, c->t_base, &f, err);
    if (rc == 0)
        rc = pend_read_payload(c, (size_t)f.len, end, err);
    if (rc) {
        c->broken = 1;
        return limit_err(rc, timeout_ms, "receive", err);
    }
    c->pend_full = 1;
    return 0;
}

/* Waits for the pending frame's delivery time, then hands it out as m (the
 * pending buffer becomes rx). */
static int pend_deliver(struct lab_net_conn *c, struct lab_net_msg *m, double end, int timeout_ms,
                        struct core_err *err)
{
    struct frame f;
    int rc = frame_unpack(c->pend_hdr, c->t_base, &f, err);
    if (rc)
        return rc;
    /* A sender without an emulated link asks for nothing to wait for (on
     * one machine its stamp is in the past anyway; between hosts it carries
     * their clocks' skew, which must not delay a real link). */
    rc = f.at_once ? 0 : sleep_until(f.deliver_at, end, c->cancel, err);
    if (rc)
        return rc == CORE_ERR_LIMIT
                   ? core_err_set(err, CORE_ERR_LIMIT,
                                  "receive: message not delivered within %d ms", timeout_ms)
                   : rc;
    struct core_buf t = c->rx;
    c->rx = c->pend;
    c->pend = t;
    c->pend_full = 0;
    c->st.bytes_recv += LAB_NET_HDR_BYTES + f.len;
    c->st.msgs_recv++;
    *m = (struct lab_net_msg){f.type, f.a, f.b, f.len, c->rx.data ? c->rx.data : ""};
    return 0;
}

int lab_net_recv(struct lab_net_conn *c, struct lab_net_msg *m, int timeout_ms,
                 struct core_err *err)
{
    if (c->broken)
        return broken_err(err);
    if (c->fd < 0 && !c->pend_full)
        return closed_err(err);
    double t0 = core_time_mono();
    double end = deadline_of(timeout_ms);
    int rc = pend_fill(c, end, timeout_ms, err);
    if (rc == 0)
        rc = pend_deliver(c, m, end, timeout_ms, err);
    c->st.wait_rx_s += core_time_mono() - t0;
    return rc;
}

/* lab_net_sendrecv on the local transport: our frame goes out in one gather
 * list while the incoming header, then the incoming payload (in the
 * growing pieces above), are read; then the rest of ours. *clean: no byte
 * moved either way. */
static int local_sendrecv(struct lab_net_conn *out, const unsigned char *h, const void *data,
                          size_t len, struct lab_net_conn *in, double end, int timeout_ms,
                          bool *clean, struct core_err *err)
{
    struct iovec ov[2];
    struct lab_net_part part = {data, len};
    size_t hin = in->pend_full ? 0 : LAB_NET_HDR_BYTES;
    struct xfer x = {out, ov, 0, LAB_NET_HDR_BYTES + len, in, (char *)in->pend_hdr, hin, 0};
    x.on = iov_fill(ov, h, LAB_NET_HDR_BYTES, &part, 1);
    int rc = xfer_run(&x, true, end, timeout_ms, err);
    if (rc == 0 && hin) {
        struct frame g;
        rc = frame_unpack(in->pend_hdr, in->t_base, &g, err);
        size_t glen = rc == 0 ? (size_t)g.len : 0, got = 0;
        while (rc == 0 && got < glen) {
            size_t want = rx_next(got, glen);
            pend_room(in, want, got, glen);
            x.ip = in->pend.data + got;
            x.in_left = want - got;
            rc = xfer_run(&x, true, end, timeout_ms, err);
            got = want;
        }
        if (rc == 0)
            pend_set_len(in, glen);
    }
    if (rc == 0)
        rc = xfer_run(&x, false, end, timeout_ms, err); /* the rest of ours */
    *clean = x.moved == 0;
    return rc;
}

int lab_net_sendrecv(struct lab_net_conn *out, uint32_t type, int64_t a, int64_t b,
                     const void *data, size_t len, struct lab_net_conn *in, struct lab_net_msg *m,
                     int timeout_ms, struct core_err *err)
{
    if (out->broken || in->broken)
        return broken_err(err);
    if (out->fd < 0)
        return closed_err(err);
    if ((uint64_t)len > LAB_NET_MSG_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "message of %zu bytes is over the %llu-byte limit", len,
                            (unsigned long long)LAB_NET_MSG_MAX);
    if (out->ops != in->ops || !out->ops->exchange)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "lab_net_sendrecv: connections of different transports");
    double t0 = core_time_mono();
    double end = deadline_of(timeout_ms);
    unsigned char h[LAB_NET_HDR_BYTES];
    struct frame f = {type, a, b, len, 0, out->link.bytes_per_s <= 0 && out->link.latency_s <= 0};
    struct link_charge ch;
    f.deliver_at = link_charge(out, LAB_NET_HDR_BYTES + (uint64_t)len, &ch);
    frame_pack(h, &f, out->t_base);
    int rc;
    if (out->ops == &lab_net_transport_local) {
        bool clean = false;
        rc = local_sendrecv(out, h, data, len, in, end, timeout_ms, &clean, err);
        if (rc && clean) {
            /* nothing moved either way: both streams are sound */
            link_refund(out, &ch);
            rc = limit_err(rc, timeout_ms, "send/receive", err);
            goto out;
        }
    } else {
        /* Headers both ways (they always fit the socket buffers), then the
         * payloads both ways: every rank of a ring can do this at once. (The
         * payload's room is taken whole here: an exchange cannot stop
         * half-way through its write.) */
        size_t hin = in->pend_full ? 0 : LAB_NET_HDR_BYTES;
        struct frame g = {0};
        rc = out->ops->exchange(out, h, sizeof h, in, in->pend_hdr, hin, ms_left(end), err);
        if (rc == 0 && hin) {
            rc = frame_unpack(in->pend_hdr, in->t_base, &g, err);
            if (rc == 0)
                pend_room(in, (size_t)g.len, 0, (size_t)g.len);
        }
        if (rc == 0)
            rc = out->ops->exchange(out, data, len, in, in->pend.data, hin ? (size_t)g.len : 0,
                                    ms_left(end), err);
        if (rc == 0 && hin)
            pend_set_len(in, (size_t)g.len);
    }
    if (rc) {
        out->broken = in->broken = 1;
        rc = limit_err(rc, timeout_ms, "send/receive", err);
        goto out;
    }
    in->pend_full = 1;
    out->st.bytes_sent += LAB_NET_HDR_BYTES + (uint64_t)len;
    out->st.msgs_sent++;
    rc = pend_deliver(in, m, end, timeout_ms, err);
out:
    in->st.wait_rx_s += core_time_mono() - t0;
    return rc;
}

/* ---- waiting on many connections ------------------------------------------ */

/* Whether one of cs has a message (or an end) to report now. */
static bool any_ready(struct lab_net_conn *const *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct lab_net_conn *c = cs[i];
        if (!c || (c->fd < 0 && !c->pend_full))
            continue;
        if (c->pend_full || c->broken)
            return true;
        unsigned char h[LAB_NET_HDR_BYTES];
        bool part;
        struct core_err pe;
        if (c->ops->peek(c, h, sizeof h, &part, &pe) != 0)
            return true;
    }
    return false;
}

static bool fd_readable(int fd)
{
    struct pollfd p1 = {fd, POLLIN, 0};
    return fd >= 0 && poll(&p1, 1, 0) > 0;
}

int lab_net_wait_any_fd(struct lab_net_conn *const *cs, size_t n, int wake_fd, int timeout_ms,
                        struct core_err *err)
{
    double end = deadline_of(timeout_ms);
    atomic_int *cancel = NULL;
    const struct lab_net_ops *ops = NULL;
    size_t open = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cs[i])
            continue;
        if (cs[i]->cancel)
            cancel = cs[i]->cancel;
        if (cs[i]->fd >= 0 || cs[i]->pend_full) {
            if (ops && cs[i]->ops != ops)
                return core_err_set(err, CORE_ERR_INVALID,
                                    "lab_net_wait_any: connections of the %s and %s transports",
                                    ops->name, cs[i]->ops->name);
            ops = cs[i]->ops;
            open++;
        }
    }
    if (open == 0)
        return core_err_set(err, CORE_ERR_INVALID, "lab_net_wait_any: no open connection");
    for (;;) {
        /* Ready already: a whole pending frame or header, or an end. */
        int best = -1;
        double best_t = 0;
        bool partial = false;
        for (size_t i = 0; i < n; i++) {
            struct lab_net_conn *c = cs[i];
            if (!c || (c->fd < 0 && !c->pend_full))
                continue; /* closed (broken before or not): skipped */
            if (c->broken)
                return (int)i;
            double t;
            if (c->pend_full) {
                t = frame_deliver_at(c->pend_hdr, c->t_base);
            } else {
                unsigned char h[LAB_NET_HDR_BYTES];
                bool part = false;
                struct core_err pe;
                int r = c->ops->peek(c, h, sizeof h, &part, &pe);
                if (r < 0)
                    return (int)i; /* closed or failed: lab_net_recv says how */
                partial |= part;
                if (r == 0)
                    continue;
                t = frame_deliver_at(h, c->t_base);
            }
            if (best < 0 || t < best_t)
                best = (int)i, best_t = t;
        }
        if (best >= 0)
            return best;
        if (fd_readable(wake_fd))
            return (int)n;
        if (is_cancelled(cancel))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        double now = core_time_mono();
        if (end >= 0 && now >= end)
            break;
        if (partial) {
            /* The rest of a header is on its way (and the transport would
             * say "readable" at once): wait a moment instead. */
            int rc = sleep_until(now + 0.0005, end, cancel, err);
            if (rc == CORE_ERR_LIMIT)
                break;
            if (rc)
                return rc;
            continue;
        }
        /* slices of 50 ms when a cancel flag or a deadline must be seen */
        int slice = cancel || end >= 0 ? 50 : 1000;
        if (end >= 0 && (end - now) * 1000 < slice)
            slice = (int)((end - now) * 1000) + 1;
        int rc = ops->wait(cs, n, wake_fd, slice, err);
        if (rc)
            return rc;
        if (fd_readable(wake_fd) && !any_ready(cs, n))
            return (int)n;
    }
    return core_err_set(err, CORE_ERR_LIMIT, "no message from any peer within %d ms", timeout_ms);
}

int lab_net_wait_any(struct lab_net_conn *const *cs, size_t n, int timeout_ms, struct core_err *err)
{
    return lab_net_wait_any_fd(cs, n, -1, timeout_ms, err);
}
