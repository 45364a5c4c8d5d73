/*
 * lab_net.h — the communication layer of the distributed labs (private to
 * labs/): framed messages over a transport, an emulated link per
 * connection, gradient compression, and ring and tree all-reduce. The
 * parameter-server lab is built on it; the allreduce lab and the k-means
 * lab's MPI engine use its connections too.
 *
 * Transport. A struct lab_net_conn is one end of a reliable, ordered byte stream
 * between two processes, reached only through its ops table (struct
 * lab_net_ops): moving bytes, looking at what is waiting without taking
 * it, waiting on several connections, shutting one down and closing it. Two
 * tables exist. The local transport (lab_net_transport_local) is a Unix-domain
 * SOCK_STREAM socket (the socketpair lab_proc_spawn gives each child, or a
 * socketpair made before forking for worker-to-worker links). The MPI
 * transport (lab_net_mpi.c, built with Open MPI) carries the same byte
 * stream between two ranks of an MPI job as point-to-point messages on a
 * tag of their own (lab_net_conn_init_mpi); a closed or shut-down end is a
 * message the peer reads as end-of-file.
 *
 * Wire format (little-endian, this machine only; MPI will keep it): every
 * message is a 32-byte header followed by `len` payload bytes:
 *
 *     u32 magic   0x31535057 ("WPS1")
 *     u32 type    meaning chosen by the lab (PS_MSG_* in lab_ps.h)
 *     i64 a, b    two integers chosen by the lab (step, key offset, worker ...)
 *     u64 len     payload bytes (at most LAB_NET_MSG_MAX)
 *
 * plus the emulated delivery time (below): an f64 right after the header
 * (LAB_NET_HDR_DELIVER), so a frame is LAB_NET_HDR_BYTES (40) + len bytes and every
 * byte count below (link time, counters) counts those 40. The time is in
 * seconds after the connection's clock base (t_base: 0 on one machine, where
 * CLOCK_MONOTONIC is shared; under MPI each rank's monotonic time at the
 * run's common start, so ranks on different hosts agree to within that
 * start's skew). A sender whose link is off writes -(t + 1) instead: at
 * once, on arrival (between hosts the clocks' skew must not delay a real
 * link).
 * A bad magic, an oversize length or a nonsense delivery time is CORE_ERR_IO
 * "corrupt message from peer (...)" and the connection is unusable afterwards.
 *
 * Emulated link. Each direction of a connection is a link of `bytes_per_s`
 * with one-way `latency_s`. Sending a message of S bytes (header included)
 * occupies the sender's link for S / bytes_per_s seconds from when the link
 * is next free (after the messages sent before it); the message is stamped
 * with its delivery time (end of serialisation + latency, on CLOCK_MONOTONIC,
 * which every process on the machine shares) and the receiver does not
 * return it before then. The sender does NOT sleep: lab_net_send returns as soon
 * as the bytes are in the socket (as a kernel send buffer does), so one
 * process sending on several connections drives those links in parallel,
 * and the waiting shows up where it is real, in the receiver's lab_net_recv. (A
 * send still blocks while the receiver does not read a message larger than
 * the socket buffer, LAB_NET_SOCK_BUF: so the time lab_net_send takes is not the
 * time the peer needs to have the message, for messages of a few MB.)
 * Connections given one link with lab_net_conn_share_link share its bandwidth (a
 * server's single NIC: the hotspot). bytes_per_s = 0 and latency_s = 0 turn
 * the emulator off (raw speed). Counters record bytes and messages each way,
 * and the time the link spent serialising (the lab's "wire time").
 *
 * Cancellation and time limits: every blocking call waits at most timeout_ms
 * (-1: forever) and returns CORE_ERR_CANCELLED within ~50 ms once *cancel is
 * non-zero (cancel may be NULL); running out of time is CORE_ERR_LIMIT; a
 * closed peer is CORE_ERR_IO "peer closed the connection". No SIGPIPE.
 * A time limit reached before any byte of a message moved leaves the
 * connection usable (a lab_net_recv that timed out waiting for a message's
 * delivery time returns that message on the next call); an error in the
 * middle of a frame leaves it unusable (CORE_ERR_IO on every later call).
 * (lab_net_send and lab_net_sendrecv: a limit or cancel before the first byte of the
 * header moved does not charge the emulated link either.)
 *
 * Threads: a connection is used by one thread at a time; different
 * connections may be used from different threads at once, including
 * connections that share one link (it is charged atomically).
 *
 * Uses core only (the local transport tries each send/receive with
 * MSG_DONTWAIT and polls only when it would block: the fd's flags are never
 * changed; it raises the socket's buffers to LAB_NET_SOCK_BUF). A frame goes out
 * in one gather write (header and parts, no copy of ours); a payload is
 * read straight into the buffer it is handed out in.
 */
#ifndef WB_LAB_PS_NET_H
#define WB_LAB_PS_NET_H

#include "core/core.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_NET_MAGIC 0x31535057u
#define LAB_NET_MSG_MAX ((uint64_t)1 << 31) /* 2 GiB: 10^7 floats are 40 MB */
#define LAB_NET_HDR_BYTES 40                /* header + delivery time, per message */
/* Offsets of the header's fields. */
#define LAB_NET_HDR_MAGIC 0
#define LAB_NET_HDR_TYPE 4
#define LAB_NET_HDR_A 8
#define LAB_NET_HDR_B 16
#define LAB_NET_HDR_LEN 24
#define LAB_NET_HDR_DELIVER 32
/* Receive room taken before a payload's first byte (the payload is read
 * straight into it); beyond this the room doubles as bytes come, so a
 * corrupt length never costs 2 GiB up front. */
#define LAB_NET_RX_UPFRONT ((size_t)16 << 20)
/* Socket buffers each way the local transport asks for (the kernel caps
 * them at net.core.wmem_max / rmem_max): a MB-sized frame goes out in one
 * call while the peer copies it out. */
#define LAB_NET_SOCK_BUF (4 << 20)

struct lab_net_link_cfg {
    double bytes_per_s; /* 0: unlimited */
    double latency_s;   /* one way; 0: none */
};

/* Parses "off", "1Gbps", "10Gbps", "100Mbps", "2.5Gbps", "800Kbps" (bits per
 * second, SI prefixes k/M/G/T in either case, then "bps" in lower case) into
 * bytes per second (0 for "off"). CORE_ERR_INVALID naming the text otherwise,
 * "1GBps" (bytes per second) included. */
int lab_net_link_parse(const char *text, double *bytes_per_s, struct core_err *err);

struct lab_net_conn;

/* A transport: how bytes move. All calls follow the timeout/cancel rules
 * above. */
struct lab_net_ops {
    const char *name; /* "local", "mpi" */
    int (*write_all)(struct lab_net_conn *c, const void *buf, size_t n, int timeout_ms,
                     struct core_err *err);
    int (*read_all)(struct lab_net_conn *c, void *buf, size_t n, int timeout_ms,
                    struct core_err *err);
    void (*close)(struct lab_net_conn *c);
    /* Writes out_n bytes to `out` while reading in_n bytes from `in` (either
     * count may be 0; out and in may be the same connection), so neither
     * blocks the other on full buffers. */
    int (*exchange)(struct lab_net_conn *out, const void *obuf, size_t out_n,
                    struct lab_net_conn *in, void *ibuf, size_t in_n, int timeout_ms,
                    struct core_err *err);
    /* Looks at the next n bytes of the incoming stream without taking them
     * and without blocking: 1 when all n are there (copied to buf), 0 when
     * not (*partial: some are), or a negative error when the peer closed or
     * the connection failed (a read then says how). */
    int (*peek)(struct lab_net_conn *c, void *buf, size_t n, bool *partial, struct core_err *err);
    /* Blocks at most ms (>= 0) until one of cs[0..n) (open connections of
     * this transport; NULL entries skipped) may have bytes or an end to
     * report, or the plain descriptor wake_fd (-1: none) is readable.
     * Returns 0 (also when the time ran out: callers look again) or
     * CORE_ERR_IO. */
    int (*wait)(struct lab_net_conn *const *cs, size_t n, int wake_fd, int ms,
                struct core_err *err);
    /* Ends both directions, as shutdown(2) does: the peer reads the end
     * after what was sent before it and its sends fail; this end's reads
     * see the end at once. The connection must still be closed. May be
     * called from another thread than the one using c. */
    void (*shutdown)(struct lab_net_conn *c);
};
extern const struct lab_net_ops lab_net_transport_local;

struct lab_net_stats {
    uint64_t bytes_sent, bytes_recv; /* headers included */
    uint64_t msgs_sent, msgs_recv;
    double wire_s;    /* time spent serialising on the emulated link (sender) */
    double wait_rx_s; /* time spent in lab_net_recv/ps_sendrecv waiting for a message */
};

struct lab_net_conn {
    const struct lab_net_ops *ops;
    int fd;                       /* local: the socket; mpi: the peer's rank; -1 once closed */
    void *tx;                     /* the transport's own state (mpi), or NULL */
    double t_base;                /* clock base of the delivery times on the wire (above) */
    struct lab_net_link_cfg link; /* this end's outgoing link */
    double link_free_at;          /* CLOCK_MONOTONIC seconds when the link is next idle */
    atomic_int *cancel;
    struct lab_net_stats st;
    struct core_buf rx; /* payload of the last message received */
    /* private to lab_net.c */
    double *shared_free_at; /* NULL, or the shared link's link_free_at */
    struct core_buf pend;   /* a message read whose delivery time is ahead */
    unsigned char pend_hdr[LAB_NET_HDR_BYTES];
    int pend_full; /* pend + pend_hdr hold a whole message */
    int broken;    /* an earlier error left the stream mid-frame */
};

/* Wraps fd (taken over: closed by lab_net_conn_close) in the local transport. */
void lab_net_conn_init_local(struct lab_net_conn *c, int fd, const struct lab_net_link_cfg *link,
                             atomic_int *cancel);
/* A connection to rank `peer` of the MPI job on tag `tag` (both ends use the
 * same tag; one tag, one connection between two ranks), its delivery times
 * relative to t_base. The MPI runtime must be up (lab_mpi_init). Without
 * Open MPI in the build this is the closed connection (fd -1). */
void lab_net_conn_init_mpi(struct lab_net_conn *c, int peer, int tag, double t_base,
                           const struct lab_net_link_cfg *link, atomic_int *cancel);
/* The transport's shutdown (see struct lab_net_ops); nothing on a
 * closed connection. */
void lab_net_conn_shutdown(struct lab_net_conn *c);
/* Closes the transport and frees buffers; idempotent. */
void lab_net_conn_close(struct lab_net_conn *c);
/* Makes c send over the link whose "next idle" time is *free_at (borrowed;
 * must outlive c; start it at 0): every connection given the same pointer
 * shares one outgoing link of c->link's bandwidth, as the connections of one
 * NIC do. NULL goes back to c's own link. */
void lab_net_conn_share_link(struct lab_net_conn *c, double *free_at);

struct lab_net_msg {
    uint32_t type;
    int64_t a, b;
    uint64_t len;
    const void *data; /* borrowed from the connection until it receives again
                         (or closes); aligned as malloc's, so a payload of
                         floats may be read in place */
};

/* Sends one message whose payload is the concatenation of n_parts buffers
 * (n_parts may be 0). Applies the emulated link. */
struct lab_net_part {
    const void *p;
    size_t n;
};
int lab_net_send(struct lab_net_conn *c, uint32_t type, int64_t a, int64_t b,
                 const struct lab_net_part *parts, size_t n_parts, int timeout_ms,
                 struct core_err *err);
/* Receives the next message (waiting until its emulated delivery time). */
int lab_net_recv(struct lab_net_conn *c, struct lab_net_msg *m, int timeout_ms,
                 struct core_err *err);
/* Sends one message on `out` while receiving one on `in` at the same time
 * (both may be large: neither side can deadlock on full socket buffers, as a
 * ring step where every rank sends right and receives left needs). */
int lab_net_sendrecv(struct lab_net_conn *out, uint32_t type, int64_t a, int64_t b,
                     const void *data, size_t len, struct lab_net_conn *in, struct lab_net_msg *m,
                     int timeout_ms, struct core_err *err);
/* Waits until one of cs[0..n) has a message to read, or its peer closed,
 * and returns its index: of several with messages, the one delivered first
 * (earliest delivery time); lab_net_recv on it then returns that message (after
 * its delivery time) or the peer's error. Entries may be NULL or closed
 * (skipped); the open ones share one transport (through its peek and wait).
 * A server serving many workers calls this instead of poll(). Errors:
 * CORE_ERR_LIMIT, CORE_ERR_CANCELLED (cancel flag of any of them),
 * CORE_ERR_INVALID when no connection is open or they mix transports. */
int lab_net_wait_any(struct lab_net_conn *const *cs, size_t n, int timeout_ms,
                     struct core_err *err);
/* lab_net_wait_any that also watches the plain descriptor wake_fd (an eventfd;
 * -1: none) and returns n when it is readable and no message is. */
int lab_net_wait_any_fd(struct lab_net_conn *const *cs, size_t n, int wake_fd, int timeout_ms,
                        struct core_err *err);

/* ---- ring all-reduce --------------------------------------------------------- */

/* Sums data[0..n) across the W ranks of a ring (this rank sends to `right`
 * and receives from `left`), in place: reduce-scatter then all-gather, each
 * W-1 steps moving one of W near-equal chunks. On return every rank holds the
 * same bits (each chunk is summed in the same ring order, then copied).
 * scratch holds at least ceil(n / W) floats (the local transport does not
 * use it: NULL is fine). W = 1 returns at once. Message
 * types LAB_NET_RING_MSG (0x52494e47) are used on the ring connections only. */
#define LAB_NET_RING_MSG 0x52494e47u
int lab_net_ring_allreduce(struct lab_net_conn *left, struct lab_net_conn *right, int rank, int W,
                           float *data, size_t n, float *scratch, int timeout_ms,
                           struct core_err *err);

/* ---- tree all-reduce (lab_net_tree.c) -------------------------------------------- */

/* Sums data[0..n) across W ranks along a binomial tree, in place: a reduce
 * to rank 0, then a broadcast, each ceil(log2 W) steps moving all n floats
 * (the course's 2 log2(p) (alpha + M/B)). links[l] is this rank's link at
 * level l, to rank ^ 2^l, where lab_net_tree_linked says there is one (NULL or
 * unused elsewhere). Every rank ends with the same bits (one summing
 * order, then copies). Message type LAB_NET_TREE_MSG (0x54524545) on the tree
 * links only. W = 1 returns at once. */
#define LAB_NET_TREE_MSG 0x54524545u
int lab_net_tree_allreduce(struct lab_net_conn *const *links, int rank, int W, float *data,
                           size_t n, int timeout_ms, struct core_err *err);
/* Levels of a tree of W ranks: ceil(log2 W). */
int lab_net_tree_levels(int W);
/* Whether rank has a link at level l in a tree of W ranks: its lower l bits
 * are zero and rank ^ 2^l exists. */
bool lab_net_tree_linked(int rank, int W, int level);

#endif /* WB_LAB_PS_NET_H */
