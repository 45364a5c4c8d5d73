/*
 * test_lab_ps_net.c — the parameter-server lab's communication layer:
 * framing over real socketpairs between real forked processes, corrupt and
 * oversize frames, a peer that closes, cancel and time limits, the emulated
 * link (its rate from the counters and wall time, its latency), lab_net_wait_any,
 * compression round trips within their stated error, lab_net_sendrecv with
 * messages of several MB around a ring, and ring all-reduce for W = 1..5
 * against the serial sum, bit-identical on every rank; payloads past the
 * up-front receive room, frames of many parts, the socket buffers.
 *
 * The link checks are lower bounds only (a message is never delivered
 * before its time, a link never carries more than its rate): how close to
 * the configured rate the emulator comes depends on the machine's load, so
 * that figure is a benchmark, `test_lab_ps_net bench` (run by
 * scripts/bench-paramserver.sh), which runs the three link tests and prints
 * it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "labs/lab_author.h"
#include "labs/paramserver/lab_ps.h"
#include "labs/transport/lab_net.h"
#include "proc_test_util.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

/* Forks a child running fn(arg), which _exits with its return value; the
 * child dies with the test (PR_SET_PDEATHSIG). */
static pid_t fork_child(int (*fn)(void *arg), void *arg)
{
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        _exit(fn(arg) & 0xff);
    }
    return pid;
}

static void reap_ok(pid_t pid)
{
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void *shm(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 0, bytes);
    return p;
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (unsigned char)(x >> 24);
    }
}

static float rnd(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return (float)((double)(*x >> 8) / (double)(1u << 24) * 2.0 - 1.0);
}

/* A child ending: print why it failed. */
static int child_fail(const char *what, const struct core_err *e)
{
    fprintf(stderr, "child: %s: %s\n", what, e ? e->msg : "");
    return 1;
}

/* ---- link parsing ----------------------------------------------------------- */

static void test_link_parse(void **state)
{
    (void)state;
    struct core_err e = {0};
    double b = -1;
    assert_int_equal(lab_net_link_parse("off", &b, &e), 0);
    assert_true(b == 0);
    assert_int_equal(lab_net_link_parse("1Gbps", &b, &e), 0);
    assert_true(fabs(b - 125e6) < 1e-6);
    assert_int_equal(lab_net_link_parse("10Gbps", &b, &e), 0);
    assert_true(fabs(b - 1.25e9) < 1e-3);
    assert_int_equal(lab_net_link_parse("100Mbps", &b, &e), 0);
    assert_true(fabs(b - 12.5e6) < 1e-6);
    assert_int_equal(lab_net_link_parse("2.5Gbps", &b, &e), 0);
    assert_true(fabs(b - 312.5e6) < 1e-6);
    assert_int_equal(lab_net_link_parse("800Kbps", &b, &e), 0);
    assert_true(fabs(b - 1e5) < 1e-9);
    const char *bad[] = {"",    "fast",    "1 Gbps", "-1Gbps", "0Gbps",
                         "1GB", "nanGbps", "1Gbpsx", "Gbps"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e = (struct core_err){0};
        assert_int_equal(lab_net_link_parse(bad[i], &b, &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "link"));
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        assert_non_null(strstr(e.msg, quoted));
    }
}

/* ---- framing ------------------------------------------------------------------ */

struct echo_args {
    int fd, other;
};

/* Echoes every message back until one of type 0. */
static int echo_main(void *arg)
{
    struct echo_args *a = arg;
    close(a->other);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, a->fd, NULL, NULL);
    struct core_err e = {0};
    int rc = 0;
    for (;;) {
        struct lab_net_msg m;
        if (lab_net_recv(&c, &m, 10000, &e)) {
            rc = child_fail("echo recv", &e);
            break;
        }
        if (m.type == 0)
            break;
        struct lab_net_part p = {m.data, (size_t)m.len};
        if (lab_net_send(&c, m.type, m.a, m.b, &p, 1, 10000, &e)) {
            rc = child_fail("echo send", &e);
            break;
        }
    }
    lab_net_conn_close(&c);
    return rc;
}

/* Starts an echo child on a new socketpair; c is this end. Reap the child
 * with reap_ok after sending it a message of type 0. */
static pid_t echo_start(struct lab_net_conn *c)
{
    int sv[2];
    pair(sv);
    struct echo_args a = {sv[1], sv[0]};
    pid_t pid = fork_child(echo_main, &a);
    close(sv[1]);
    lab_net_conn_init_local(c, sv[0], NULL, NULL);
    return pid;
}

static void test_frame_round_trip(void **state)
{
    (void)state;
    struct lab_net_conn c;
    pid_t pid = echo_start(&c);
    struct core_err e = {0};

    size_t big = 3u << 20;
    unsigned char *p1 = malloc(big), *p2 = malloc(1000);
    fill_pattern(p1, big, 1);
    fill_pattern(p2, 1000, 2);
    struct {
        struct lab_net_part parts[3];
        size_t n_parts, total;
    } cases[] = {
        {{{NULL, 0}}, 0, 0},                          /* no parts */
        {{{p2, 0}, {p1, 0}}, 2, 0},                   /* empty parts */
        {{{p2, 1}}, 1, 1},                            /* one byte */
        {{{p2, 1000}, {p1, 0}, {p1, 4096}}, 3, 5096}, /* multi-part */
        {{{p1, big}, {p2, 1000}}, 2, big + 1000},     /* several MB */
    };
    uint64_t sent_bytes = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(lab_net_send(&c, 7 + (uint32_t)k, -5 - (int64_t)k, INT64_MAX - (int64_t)k,
                                      cases[k].parts, cases[k].n_parts, 10000, &e),
                         0);
        sent_bytes += LAB_NET_HDR_BYTES + cases[k].total;
        struct lab_net_msg m;
        assert_int_equal(lab_net_recv(&c, &m, 10000, &e), 0);
        assert_int_equal(m.type, 7 + k);
        assert_true(m.a == -5 - (int64_t)k);
        assert_true(m.b == INT64_MAX - (int64_t)k);
        assert_int_equal(m.len, cases[k].total);
        assert_non_null(m.data);
        /* the payload is the parts, concatenated */
        const unsigned char *d = m.data;
        for (size_t i = 0; i < cases[k].n_parts; i++) {
            if (cases[k].parts[i].n)
                assert_memory_equal(d, cases[k].parts[i].p, cases[k].parts[i].n);
            d += cases[k].parts[i].n;
        }
    }
    assert_int_equal(c.st.msgs_sent, 5);
    assert_int_equal(c.st.msgs_recv, 5);
    assert_int_equal(c.st.bytes_sent, sent_bytes);
    assert_int_equal(c.st.bytes_recv, sent_bytes);
    assert_true(c.st.wire_s == 0); /* no emulated link */
    assert_int_equal(lab_net_send(&c, 0, 0, 0, NULL, 0, 1000, &e), 0);
    reap_ok(pid);
    lab_net_conn_close(&c);
    lab_net_conn_close(&c); /* idempotent */
    assert_int_equal(c.fd, -1);
    free(p1);
    free(p2);
}

static void raw_header(unsigned char h[LAB_NET_HDR_BYTES], uint32_t magic, uint64_t len)
{
    memset(h, 0, LAB_NET_HDR_BYTES);
    uint32_t type = 1;
    double t = 0;
    memcpy(h + LAB_NET_HDR_MAGIC, &magic, 4);
    memcpy(h + LAB_NET_HDR_TYPE, &type, 4);
    memcpy(h + LAB_NET_HDR_LEN, &len, 8);
    memcpy(h + LAB_NET_HDR_DELIVER, &t, 8);
}

static void test_corrupt_frames(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    unsigned char h[LAB_NET_HDR_BYTES];
    /* bad magic */
    int sv[2];
    pair(sv);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    raw_header(h, 0xdeadbeef, 4);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(write(sv[1], "abcd", 4), 4);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "corrupt message from peer"));
    assert_non_null(strstr(e.msg, "magic"));
    /* unusable afterwards, even though good bytes follow */
    raw_header(h, LAB_NET_MAGIC, 0);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_int_equal(lab_net_send(&c, 1, 0, 0, NULL, 0, 1000, &e), CORE_ERR_IO);
    lab_net_conn_close(&c);
    close(sv[1]);

    /* oversize length */
    pair(sv);
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    raw_header(h, LAB_NET_MAGIC, LAB_NET_MSG_MAX + 1);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "corrupt message from peer"));
    assert_non_null(strstr(e.msg, "length"));
    lab_net_conn_close(&c);
    close(sv[1]);

    /* a good frame by hand is accepted (the test's frame layout is right) */
    pair(sv);
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    raw_header(h, LAB_NET_MAGIC, 3);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(write(sv[1], "xyz", 3), 3);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), 0);
    assert_int_equal(m.len, 3);
    assert_memory_equal(m.data, "xyz", 3);
    lab_net_conn_close(&c);
    close(sv[1]);
}

static int exit_main(void *arg)
{
    struct echo_args *a = arg;
    close(a->other);
    close(a->fd);
    return 0;
}

static void test_peer_close(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    int sv[2];
    pair(sv);
    struct echo_args a = {sv[1], sv[0]};
    pid_t pid = fork_child(exit_main, &a);
    close(sv[1]);
    reap_ok(pid);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed the connection"));
    /* sending to a dead peer is an error, not SIGPIPE */
    assert_int_equal(lab_net_send(&c, 1, 0, 0, NULL, 0, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed the connection"));
    lab_net_conn_close(&c);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);

    /* a peer that dies in the middle of a message */
    pair(sv);
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    unsigned char h[LAB_NET_HDR_BYTES];
    raw_header(h, LAB_NET_MAGIC, 100);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(write(sv[1], "abc", 3), 3);
    close(sv[1]);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed the connection"));
    lab_net_conn_close(&c);
}

struct canceller {
    atomic_int *flag;
    int delay_ms;
};

static void *cancel_later(void *arg)
{
    struct canceller *k = arg;
    struct timespec ts = {0, k->delay_ms * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(k->flag, 1);
    return NULL;
}

static void test_cancel(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    atomic_int cancel = 0;
    int sv[2];
    pair(sv);
    struct lab_net_conn c, d;
    lab_net_conn_init_local(&c, sv[0], NULL, &cancel);
    /* nothing ever comes, no time limit: only the flag ends the wait */
    struct canceller k = {&cancel, 80};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &k), 0);
    assert_int_equal(lab_net_recv(&c, &m, -1, &e), CORE_ERR_CANCELLED);
    pthread_join(th, NULL);
    assert_int_equal(atomic_load(&cancel), 1);

    /* a send blocked on a full socket (the peer never reads) */
    atomic_store(&cancel, 0);
    size_t big = 16u << 20;
    char *buf = calloc(1, big);
    struct lab_net_part p = {buf, big};
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &k), 0);
    assert_int_equal(lab_net_send(&c, 1, 0, 0, &p, 1, -1, &e), CORE_ERR_CANCELLED);
    pthread_join(th, NULL);
    free(buf);
    lab_net_conn_close(&c);
    close(sv[1]);

    /* a message waiting for its delivery time (latency 30 s) */
    atomic_store(&cancel, 0);
    pair(sv);
    struct lab_net_link_cfg slow = {0, 30.0};
    lab_net_conn_init_local(&c, sv[0], &slow, NULL);
    lab_net_conn_init_local(&d, sv[1], NULL, &cancel);
    assert_int_equal(lab_net_send(&c, 1, 2, 3, NULL, 0, 1000, &e), 0);
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &k), 0);
    assert_int_equal(lab_net_recv(&d, &m, -1, &e), CORE_ERR_CANCELLED);
    pthread_join(th, NULL);
    lab_net_conn_close(&c);
    lab_net_conn_close(&d);
}

static void test_timeouts(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    int sv[2];
    pair(sv);
    struct lab_net_conn c, d;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    lab_net_conn_init_local(&d, sv[1], NULL, NULL);
    /* nothing sent: a limit, and the connection stays usable */
    assert_int_equal(lab_net_recv(&d, &m, 30, &e), CORE_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "30 ms"));
    assert_int_equal(lab_net_send(&c, 4, 5, 6, NULL, 0, 1000, &e), 0);
    assert_int_equal(lab_net_recv(&d, &m, 1000, &e), 0);
    assert_int_equal(m.type, 4);

    /* the message is there but its delivery time is not yet: the limit,
     * then the same message on the next call */
    c.link.latency_s = 0.2;
    int v = 42;
    struct lab_net_part p = {&v, sizeof v};
    assert_int_equal(lab_net_send(&c, 9, 1, 2, &p, 1, 1000, &e), 0);
    assert_int_equal(lab_net_recv(&d, &m, 20, &e), CORE_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "not delivered within 20 ms"));
    assert_int_equal(lab_net_recv(&d, &m, 5000, &e), 0);
    assert_int_equal(m.type, 9);
    assert_int_equal(m.len, sizeof v);
    assert_int_equal(*(const int *)m.data, 42);
    assert_int_equal(d.st.msgs_recv, 2);

    /* a send the peer never reads: the limit */
    size_t big = 16u << 20;
    char *buf = calloc(1, big);
    p = (struct lab_net_part){buf, big};
    assert_int_equal(lab_net_send(&c, 1, 0, 0, &p, 1, 50, &e), CORE_ERR_LIMIT);
    free(buf);
    /* half a frame is out: unusable */
    assert_int_equal(lab_net_send(&c, 1, 0, 0, NULL, 0, 50, &e), CORE_ERR_IO);
    lab_net_conn_close(&c);
    lab_net_conn_close(&d);
}

/* ---- the emulated link ---------------------------------------------------------- */

struct sender_args {
    int fd, other;
    struct lab_net_link_cfg link;
    size_t msg_bytes;
    int n_msgs;
    double *t0;               /* shared: when the first send began */
    struct lab_net_stats *st; /* shared: the sender's counters at the end */
};

static int sender_main(void *arg)
{
    struct sender_args *a = arg;
    close(a->other);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, a->fd, &a->link, NULL);
    struct core_err e = {0};
    char *buf = calloc(1, a->msg_bytes ? a->msg_bytes : 1);
    struct lab_net_part p = {buf, a->msg_bytes};
    int rc = 0;
    *a->t0 = core_time_mono();
    for (int i = 0; i < a->n_msgs && rc == 0; i++)
        if (lab_net_send(&c, 1, i, 0, &p, 1, 10000, &e))
            rc = child_fail("send", &e);
    /* wait for the receiver's "done", so counters are final */
    struct lab_net_msg m;
    if (rc == 0 && lab_net_recv(&c, &m, 10000, &e))
        rc = child_fail("recv done", &e);
    *a->st = c.st;
    free(buf);
    lab_net_conn_close(&c);
    return rc;
}

static void test_link_rate(void **state)
{
    (void)state;
    /* 8 MB at 100 Mbps (12.5 MB/s): about 0.67 s */
    double *t0 = shm(sizeof(double) + sizeof(struct lab_net_stats));
    struct lab_net_stats *st = (struct lab_net_stats *)(t0 + 1);
    int sv[2];
    pair(sv);
    struct core_err e = {0};
    double rate = 0;
    assert_int_equal(lab_net_link_parse("100Mbps", &rate, &e), 0);
    struct sender_args a = {sv[1], sv[0], {rate, 0}, 1u << 20, 8, t0, st};
    pid_t pid = fork_child(sender_main, &a);
    close(sv[1]);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    for (int i = 0; i < 8; i++) {
        struct lab_net_msg m;
        assert_int_equal(lab_net_recv(&c, &m, 10000, &e), 0);
        assert_int_equal(m.a, i);
        assert_int_equal(m.len, 1u << 20);
    }
    double t1 = core_time_mono();
    assert_int_equal(lab_net_send(&c, 2, 0, 0, NULL, 0, 1000, &e), 0);
    reap_ok(pid);
    uint64_t bytes = 8 * (LAB_NET_HDR_BYTES + (1u << 20));
    assert_int_equal(st->bytes_sent, bytes);
    assert_int_equal(c.st.bytes_recv, bytes);
    assert_int_equal(st->msgs_sent, 8);
    /* the wire time is exactly bytes / rate */
    assert_true(fabs(st->wire_s - (double)bytes / rate) < 1e-9);
    double achieved = (double)c.st.bytes_recv / (t1 - *t0);
    printf("link rate: %.0f bytes in %.3f s = %.3f MB/s, configured %.3f MB/s (ratio %.3f)\n",
           (double)bytes, t1 - *t0, achieved / 1e6, rate / 1e6, achieved / rate);
    /* never faster than the link: the last byte is due bytes / rate after
     * the first send began */
    assert_true(t1 - *t0 >= (double)bytes / rate - 1e-6);
    lab_net_conn_close(&c);
    munmap(t0, sizeof(double) + sizeof(struct lab_net_stats));
}

struct stamp_args {
    int fd, other;
    struct lab_net_link_cfg link;
};

/* Sends its send time (ns, monotonic) in a, three times. */
static int stamp_main(void *arg)
{
    struct stamp_args *a = arg;
    close(a->other);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, a->fd, &a->link, NULL);
    struct core_err e = {0};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++) {
        int64_t ns = (int64_t)(core_time_mono() * 1e9);
        if (lab_net_send(&c, 1, ns, i, NULL, 0, 10000, &e))
            rc = child_fail("send", &e);
        struct lab_net_msg m;
        if (rc == 0 && lab_net_recv(&c, &m, 10000, &e)) /* the echo: one at a time */
            rc = child_fail("recv", &e);
    }
    lab_net_conn_close(&c);
    return rc;
}

static void test_link_latency(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    struct stamp_args a = {sv[1], sv[0], {0, 0.060}};
    pid_t pid = fork_child(stamp_main, &a);
    close(sv[1]);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    struct core_err e = {0};
    double delays[3];
    for (int i = 0; i < 3; i++) {
        struct lab_net_msg m;
        assert_int_equal(lab_net_recv(&c, &m, 10000, &e), 0);
        double delay = core_time_mono() - (double)m.a / 1e9;
        /* never before send time + latency (the clock is shared) */
        assert_true(delay >= 0.060 - 1e-6);
        delays[i] = delay;
        assert_int_equal(lab_net_send(&c, 1, 0, 0, NULL, 0, 1000, &e), 0);
    }
    printf("link latency: configured 60.0 ms, delivered after %.1f / %.1f / %.1f ms\n",
           delays[0] * 1e3, delays[1] * 1e3, delays[2] * 1e3);
    reap_ok(pid);
    lab_net_conn_close(&c);
}

/* Two connections on one shared link: together they get its rate. */
struct shared_args {
    int fd[2], other[2];
    double rate;
    double *t0;
};

static int shared_main(void *arg)
{
    struct shared_args *a = arg;
    close(a->other[0]);
    close(a->other[1]);
    struct lab_net_link_cfg link = {a->rate, 0};
    struct lab_net_conn c[2];
    double nic = 0;
    for (int k = 0; k < 2; k++) {
        lab_net_conn_init_local(&c[k], a->fd[k], &link, NULL);
        lab_net_conn_share_link(&c[k], &nic);
    }
    struct core_err e = {0};
    size_t n = 1u << 20;
    char *buf = calloc(1, n);
    struct lab_net_part p = {buf, n};
    int rc = 0;
    *a->t0 = core_time_mono();
    for (int i = 0; i < 4 && rc == 0; i++)
        for (int k = 0; k < 2 && rc == 0; k++)
            if (lab_net_send(&c[k], 1, i, k, &p, 1, 10000, &e))
                rc = child_fail("send", &e);
    for (int k = 0; k < 2 && rc == 0; k++) {
        struct lab_net_msg m;
        if (lab_net_recv(&c[k], &m, 10000, &e))
            rc = child_fail("recv", &e);
    }
    free(buf);
    lab_net_conn_close(&c[0]);
    lab_net_conn_close(&c[1]);
    return rc;
}

static void test_link_shared_and_wait_any(void **state)
{
    (void)state;
    double *t0 = shm(sizeof(double));
    int s0[2], s1[2];
    pair(s0);
    pair(s1);
    struct shared_args a = {{s0[1], s1[1]}, {s0[0], s1[0]}, 12.5e6, t0};
    pid_t pid = fork_child(shared_main, &a);
    close(s0[1]);
    close(s1[1]);
    struct lab_net_conn c[2];
    lab_net_conn_init_local(&c[0], s0[0], NULL, NULL);
    lab_net_conn_init_local(&c[1], s1[0], NULL, NULL);
    struct lab_net_conn *cs[3] = {&c[0], NULL, &c[1]};
    struct core_err e = {0};
    int got[2] = {0, 0};
    int64_t last_i = -1;
    for (int j = 0; j < 8; j++) {
        int i = lab_net_wait_any(cs, 3, 10000, &e);
        assert_true(i == 0 || i == 2);
        struct lab_net_msg m;
        assert_int_equal(lab_net_recv(cs[i], &m, 10000, &e), 0);
        /* delivered in the order they went onto the shared link */
        assert_int_equal(m.b, i / 2);
        assert_true(m.a >= last_i);
        last_i = m.a;
        got[i / 2]++;
    }
    double t1 = core_time_mono();
    assert_int_equal(got[0], 4);
    assert_int_equal(got[1], 4);
    double bytes = 8.0 * (LAB_NET_HDR_BYTES + (1u << 20));
    double achieved = bytes / (t1 - *t0);
    printf("shared link rate: %.0f bytes on 2 connections in %.3f s = %.3f MB/s, configured "
           "%.3f MB/s (ratio %.3f)\n",
           bytes, t1 - *t0, achieved / 1e6, 12.5, achieved / 12.5e6);
    /* together never faster than the one link they share */
    assert_true(t1 - *t0 >= bytes / 12.5e6 - 1e-6);
    assert_int_equal(lab_net_send(&c[0], 2, 0, 0, NULL, 0, 1000, &e), 0);
    assert_int_equal(lab_net_send(&c[1], 2, 0, 0, NULL, 0, 1000, &e), 0);
    reap_ok(pid);
    /* both peers gone: wait_any names a closed one, lab_net_recv says so */
    int i = lab_net_wait_any(cs, 3, 1000, &e);
    assert_true(i == 0 || i == 2);
    struct lab_net_msg m;
    assert_int_equal(lab_net_recv(cs[i], &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed"));
    /* nothing open: invalid; a silent open one: the limit */
    lab_net_conn_close(&c[0]);
    lab_net_conn_close(&c[1]);
    assert_int_equal(lab_net_wait_any(cs, 3, 100, &e), CORE_ERR_INVALID);
    int sv[2];
    pair(sv);
    struct lab_net_conn q;
    lab_net_conn_init_local(&q, sv[0], NULL, NULL);
    struct lab_net_conn *qs[1] = {&q};
    assert_int_equal(lab_net_wait_any(qs, 1, 30, &e), CORE_ERR_LIMIT);
    lab_net_conn_close(&q);
    close(sv[1]);
    munmap(t0, sizeof(double));
}

/* ---- compression ------------------------------------------------------------------ */

static void test_q8(void **state)
{
    (void)state;
    size_t sizes[] = {1, 255, 256, 257, 1000, 4096 + 17};
    struct core_buf b;
    core_buf_init(&b);
    struct core_err e = {0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        float *g = malloc(n * sizeof *g), *acc = malloc(n * sizeof *acc);
        uint32_t x = (uint32_t)n;
        for (size_t i = 0; i < n; i++)
            g[i] = rnd(&x) * (float)(1 + i % 5) * 1e-3f;
        if (n > 300)
            for (size_t i = 256; i < 512 && i < n; i++)
                g[i] = 0; /* an all-zero block */
        lab_ps_q8_encode(g, n, &b);
        size_t nb = (n + PS_Q8_BLOCK - 1) / PS_Q8_BLOCK;
        assert_int_equal(b.len, 8 + 4 * nb + n);
        for (size_t i = 0; i < n; i++)
            acc[i] = 1.0f;
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, acc, n, &e), 0);
        for (size_t blk = 0; blk < nb; blk++) {
            float mx = 0;
            size_t lo = blk * PS_Q8_BLOCK, hi = lo + PS_Q8_BLOCK < n ? lo + PS_Q8_BLOCK : n;
            for (size_t i = lo; i < hi; i++)
                mx = fabsf(g[i]) > mx ? fabsf(g[i]) : mx;
            double scale = mx / 127.0;
            for (size_t i = lo; i < hi; i++) {
                double dec = (double)acc[i] - 1.0;
                /* scale/2, plus the float rounding of adding to 1.0 */
                assert_true(fabs(dec - g[i]) <= scale / 2 * (1 + 1e-5) + 1.2e-7);
            }
        }
        /* decode_add accumulates: zeros + decode twice = 2 x decode */
        float *z = calloc(n, sizeof *z), *z2 = calloc(n, sizeof *z2);
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, z, n, &e), 0);
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, z2, n, &e), 0);
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, z2, n, &e), 0);
        for (size_t i = 0; i < n; i++) {
            assert_true(z2[i] == 2 * z[i]);
        }
        /* malformed: wrong size, wrong n, truncated */
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, z, n + 1, &e), CORE_ERR_INVALID);
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len - 1, z, n, &e), CORE_ERR_INVALID);
        assert_int_equal(lab_ps_q8_decode_add(b.data, 5, z, n, &e), CORE_ERR_INVALID);
        free(z);
        free(z2);
        free(g);
        free(acc);
    }
    /* a NaN stays visible */
    float g[3] = {1, NAN, 2}, acc[3] = {0, 0, 0};
    lab_ps_q8_encode(g, 3, &b);
    assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, acc, 3, &e), 0);
    assert_true(isnan(acc[0]) && isnan(acc[1]));
    core_buf_fini(&b);
}

/* Reference: indices sorted by |g| descending, ties by index ascending. */
static const float *cmp_g;
static int cmp_idx(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    float a = fabsf(cmp_g[i]), b = fabsf(cmp_g[j]);
    if (a != b)
        return a > b ? -1 : 1;
    return i < j ? -1 : i > j;
}

static void test_topk(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    struct core_err e = {0};
    size_t sizes[] = {1, 2, 10, 1000, 20011};
    double fracs[] = {0.0, 0.001, 0.01, 0.1, 0.5, 1.0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        float *g = malloc(n * sizeof *g);
        uint32_t x = 7 + (uint32_t)n;
        for (size_t i = 0; i < n; i++)
            /* coarse values: many ties, both signs */
            g[i] = (float)((int)(rnd(&x) * 20)) / 4.0f;
        size_t *idx = malloc(n * sizeof *idx);
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        cmp_g = g;
        qsort(idx, n, sizeof *idx, cmp_idx);
        for (size_t fi = 0; fi < sizeof fracs / sizeof fracs[0]; fi++) {
            size_t k = (size_t)floor(fracs[fi] * (double)n + 0.5);
            k = k < 1 ? 1 : k > n ? n : k;
            lab_ps_topk_encode(g, n, fracs[fi], &b);
            assert_int_equal(b.len, 8 + 8 * k);
            float *acc = calloc(n, sizeof *acc);
            unsigned char *want = calloc(n, 1);
            for (size_t j = 0; j < k; j++)
                want[idx[j]] = 1;
            /* decoded into a marker-filled array: exactly the top k changed */
            for (size_t i = 0; i < n; i++)
                acc[i] = 1000.0f;
            assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, n, &e), 0);
            /* entries sorted by index, exactly the reference set */
            const unsigned char *p = (const unsigned char *)b.data + 8;
            int64_t prev = -1;
            for (size_t j = 0; j < k; j++) {
                uint32_t ix;
                float v;
                memcpy(&ix, p + 8 * j, 4);
                memcpy(&v, p + 8 * j + 4, 4);
                assert_true((int64_t)ix > prev);
                prev = ix;
                assert_true(want[ix]);
                assert_true(v == g[ix]);
            }
            for (size_t i = 0; i < n; i++)
                assert_true(acc[i] == (want[i] ? 1000.0f + g[i] : 1000.0f));
            /* accumulates */
            assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, n, &e), 0);
            for (size_t i = 0; i < n; i++)
                if (want[i])
                    assert_true(acc[i] == (1000.0f + g[i]) + g[i]);
            free(acc);
            free(want);
        }
        free(idx);
        free(g);
    }
    /* malformed: index out of range, out of order, wrong n; acc untouched */
    float g[4] = {5, -6, 7, 1}, acc[4] = {0, 0, 0, 0};
    lab_ps_topk_encode(g, 4, 0.5, &b); /* keeps indices 1 and 2 */
    assert_int_equal(b.len, 8 + 16);
    uint32_t bad = 4;
    memcpy(b.data + 16, &bad, 4);
    assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, 4, &e), CORE_ERR_INVALID);
    bad = 0;
    memcpy(b.data + 16, &bad, 4);
    assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, 4, &e), CORE_ERR_INVALID);
    for (int i = 0; i < 4; i++)
        assert_true(acc[i] == 0);
    assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, 5, &e), CORE_ERR_INVALID);
    assert_int_equal(lab_ps_topk_decode_add(b.data, b.len - 1, acc, 4, &e), CORE_ERR_INVALID);
    assert_int_equal(lab_ps_topk_decode_add(b.data, 4, acc, 4, &e), CORE_ERR_INVALID);
    /* NaN counts as the largest */
    float h[4] = {5, NAN, 7, 1};
    lab_ps_topk_encode(h, 4, 0.25, &b);
    uint32_t ix;
    memcpy(&ix, b.data + 8, 4);
    assert_int_equal(ix, 1);
    core_buf_fini(&b);
}

/* ---- rings ------------------------------------------------------------------------ */

struct ring {
    int W;
    int (*sv)[2]; /* sv[i]: rank i's right (0) to rank i+1's left (1) */
};

static void ring_make(struct ring *r, int W)
{
    r->W = W;
    r->sv = calloc((size_t)W, sizeof *r->sv);
    for (int i = 0; i < W; i++)
        pair(r->sv[i]);
}

/* In a child: keeps rank's two ends, closes the rest. */
static void ring_take(struct ring *r, int rank, const struct lab_net_link_cfg *link,
                      struct lab_net_conn *left, struct lab_net_conn *right)
{
    int W = r->W;
    int li = (rank - 1 + W) % W;
    for (int i = 0; i < W; i++) {
        if (i != rank)
            close(r->sv[i][0]);
        if (i != li)
            close(r->sv[i][1]);
    }
    lab_net_conn_init_local(right, r->sv[rank][0], link, NULL);
    lab_net_conn_init_local(left, r->sv[li][1], link, NULL);
}

static void ring_close_all(struct ring *r)
{
    for (int i = 0; i < r->W; i++) {
        close(r->sv[i][0]);
        close(r->sv[i][1]);
    }
    free(r->sv);
}

struct ar_args {
    struct ring *ring;
    int rank;
    size_t n;
    int kind;   /* 0: small integers (exact sums), 1: random floats */
    float *out; /* shared: W * n floats */
    struct lab_net_link_cfg link;
};

static float ar_value(int kind, int rank, size_t i, uint32_t *x)
{
    if (kind == 0)
        return (float)((rank + 1) * (int)(i % 13) - 3 * rank);
    return rnd(x) * (float)(1 + rank);
}

static int ar_main(void *arg)
{
    struct ar_args *a = arg;
    struct lab_net_conn left, right;
    ring_take(a->ring, a->rank, &a->link, &left, &right);
    float *data = malloc((a->n ? a->n : 1) * sizeof *data);
    uint32_t x = 99 + (uint32_t)a->rank * 7919;
    for (size_t i = 0; i < a->n; i++)
        data[i] = ar_value(a->kind, a->rank, i, &x);
    float *scratch = malloc((a->n / (size_t)a->ring->W + 1) * sizeof *scratch);
    struct core_err e = {0};
    int rc = 0;
    if (lab_net_ring_allreduce(&left, &right, a->rank, a->ring->W, data, a->n, scratch, 20000, &e))
        rc = child_fail("allreduce", &e);
    else if (a->n)
        memcpy(a->out + (size_t)a->rank * a->n, data, a->n * sizeof *data);
    free(data);
    free(scratch);
    lab_net_conn_close(&left);
    lab_net_conn_close(&right);
    return rc;
}

static void run_allreduce(int W, size_t n, int kind, const struct lab_net_link_cfg *link)
{
    struct ring r;
    ring_make(&r, W);
    size_t bytes = (size_t)W * (n ? n : 1) * sizeof(float);
    float *out = shm(bytes);
    struct ar_args *args = calloc((size_t)W, sizeof *args);
    pid_t *pids = calloc((size_t)W, sizeof *pids);
    for (int k = 0; k < W; k++) {
        args[k] = (struct ar_args){&r, k, n, kind, out, {0, 0}};
        if (link)
            args[k].link = *link;
        pids[k] = fork_child(ar_main, &args[k]);
    }
    ring_close_all(&r);
    for (int k = 0; k < W; k++)
        reap_ok(pids[k]);
    /* the serial sum */
    double *want = calloc(n ? n : 1, sizeof *want);
    for (int k = 0; k < W; k++) {
        uint32_t x = 99 + (uint32_t)k * 7919;
        for (size_t i = 0; i < n; i++)
            want[i] += ar_value(kind, k, i, &x);
    }
    for (size_t i = 0; i < n; i++) {
        if (kind == 0)
            assert_true((double)out[i] == want[i]); /* exact */
        else
            assert_true(fabs((double)out[i] - want[i]) <= 1e-5 * W * W);
    }
    /* bit-identical on every rank */
    for (int k = 1; k < W; k++)
        if (n)
            assert_memory_equal(out, out + (size_t)k * n, n * sizeof(float));
    free(want);
    free(args);
    free(pids);
    munmap(out, bytes);
}

static void test_ring_allreduce(void **state)
{
    (void)state;
    size_t ns[] = {1, 3, 4, 10, 1001};
    for (int W = 1; W <= 5; W++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
            for (int kind = 0; kind < 2; kind++)
                run_allreduce(W, ns[j], kind, NULL);
    /* over an emulated link too */
    struct lab_net_link_cfg link = {1.25e9, 0.0005};
    run_allreduce(3, 10007, 1, &link);
    /* messages of several MB (chunks of 4 MB): no deadlock */
    run_allreduce(3, 3u << 20, 1, NULL);
}

/* ---- trees -------------------------------------------------------------------------- */

#define TREE_LV 4 /* up to 16 ranks */

struct tree {
    int W;
    int sv[TREE_LV][16][2]; /* sv[l][lo]: the link (lo, lo + 2^l); -1 when none */
};

static void tree_make(struct tree *t, int W)
{
    t->W = W;
    for (int l = 0; l < TREE_LV; l++)
        for (int r = 0; r < 16; r++) {
            t->sv[l][r][0] = t->sv[l][r][1] = -1;
            if (r < W && lab_net_tree_linked(r, W, l) && !(r & (1 << l)))
                pair(t->sv[l][r]);
        }
}

static void tree_close_all(struct tree *t, int keep_rank)
{
    for (int l = 0; l < TREE_LV; l++)
        for (int r = 0; r < 16; r++)
            for (int e = 0; e < 2; e++) {
                int owner = e == 0 ? r : r + (1 << l);
                if (t->sv[l][r][e] >= 0 && owner != keep_rank)
                    close(t->sv[l][r][e]);
            }
}

struct tree_args {
    struct tree *tree;
    int rank;
    size_t n;
    float *out;
};

static int tree_main(void *arg)
{
    struct tree_args *a = arg;
    int W = a->tree->W;
    tree_close_all(a->tree, a->rank);
    struct lab_net_conn links[TREE_LV];
    struct lab_net_conn *lp[TREE_LV];
    for (int l = 0; l < TREE_LV; l++) {
        int fd = -1;
        if (lab_net_tree_linked(a->rank, W, l)) {
            int lo = a->rank & ~(1 << l);
            fd = a->tree->sv[l][lo][a->rank == lo ? 0 : 1];
        }
        lab_net_conn_init_local(&links[l], fd, NULL, NULL);
        lp[l] = &links[l];
    }
    float *data = malloc((a->n ? a->n : 1) * sizeof *data);
    uint32_t x = 99 + (uint32_t)a->rank * 7919;
    for (size_t i = 0; i < a->n; i++)
        data[i] = ar_value(0, a->rank, i, &x);
    struct core_err e = {0};
    int rc = 0;
    if (lab_net_tree_allreduce(lp, a->rank, W, data, a->n, 20000, &e))
        rc = child_fail("tree allreduce", &e);
    else if (a->n)
        memcpy(a->out + (size_t)a->rank * a->n, data, a->n * sizeof *data);
    free(data);
    for (int l = 0; l < TREE_LV; l++)
        lab_net_conn_close(&links[l]);
    return rc;
}

/* The binomial tree sums exactly (small integers) and leaves every rank
 * with the same bits, for W that are and are not powers of two. */
static void test_tree_allreduce(void **state)
{
    (void)state;
    assert_int_equal(lab_net_tree_levels(1), 0);
    assert_int_equal(lab_net_tree_levels(5), 3);
    assert_true(lab_net_tree_linked(4, 5, 2) && !lab_net_tree_linked(4, 5, 0) &&
                lab_net_tree_linked(0, 5, 2));
    size_t ns[] = {1, 1001};
    for (int W = 1; W <= 6; W++)
        for (size_t j = 0; j < 2; j++) {
            size_t n = ns[j];
            struct tree t;
            tree_make(&t, W);
            size_t bytes = (size_t)W * n * sizeof(float);
            float *out = shm(bytes);
            struct tree_args args[16];
            pid_t pids[16];
            for (int k = 0; k < W; k++) {
                args[k] = (struct tree_args){&t, k, n, out};
                pids[k] = fork_child(tree_main, &args[k]);
            }
            tree_close_all(&t, -1);
            for (int k = 0; k < W; k++)
                reap_ok(pids[k]);
            for (size_t i = 0; i < n; i++) {
                double want = 0;
                for (int k = 0; k < W; k++) {
                    uint32_t x = 0;
                    want += ar_value(0, k, i, &x);
                }
                assert_true((double)out[i] == want);
            }
            for (int k = 1; k < W; k++)
                assert_memory_equal(out, out + (size_t)k * n, n * sizeof(float));
            munmap(out, bytes);
        }
}

/* W = 1 needs no connection at all. */
static void test_ring_single(void **state)
{
    (void)state;
    float d[3] = {1, 2, 3};
    struct core_err e = {0};
    assert_int_equal(lab_net_ring_allreduce(NULL, NULL, 0, 1, d, 3, NULL, 100, &e), 0);
    assert_true(d[0] == 1 && d[1] == 2 && d[2] == 3);
}

struct sr_args {
    struct ring *ring;
    int rank;
    size_t bytes;
    int same; /* W = 2 over one socketpair (left == right) */
    int fd, other;
};

static int sr_main(void *arg)
{
    struct sr_args *a = arg;
    struct lab_net_conn left, right, one;
    struct lab_net_conn *L, *R;
    if (a->same) {
        close(a->other);
        lab_net_conn_init_local(&one, a->fd, NULL, NULL);
        L = R = &one;
    } else {
        ring_take(a->ring, a->rank, NULL, &left, &right);
        L = &left;
        R = &right;
    }
    int W = a->same ? 2 : a->ring->W;
    unsigned char *buf = malloc(a->bytes), *want = malloc(a->bytes);
    struct core_err e = {0};
    int rc = 0;
    for (int round = 0; round < 2 && rc == 0; round++) {
        fill_pattern(buf, a->bytes, (unsigned)(a->rank * 10 + round));
        struct lab_net_msg m;
        if (lab_net_sendrecv(R, 3, round, a->rank, buf, a->bytes, L, &m, 20000, &e)) {
            rc = child_fail("sendrecv", &e);
            break;
        }
        int from = (a->rank - 1 + W) % W;
        fill_pattern(want, a->bytes, (unsigned)(from * 10 + round));
        if (m.type != 3 || m.a != round || m.b != from || m.len != a->bytes ||
            memcmp(m.data, want, a->bytes) != 0)
            rc = child_fail("wrong message", NULL);
    }
    free(buf);
    free(want);
    if (a->same) {
        lab_net_conn_close(&one);
    } else {
        lab_net_conn_close(&left);
        lab_net_conn_close(&right);
    }
    return rc;
}

static void test_sendrecv_large_ring(void **state)
{
    (void)state;
    size_t bytes = 6u << 20;
    struct ring r;
    ring_make(&r, 4);
    struct sr_args args[4];
    pid_t pids[4];
    for (int k = 0; k < 4; k++) {
        args[k] = (struct sr_args){&r, k, bytes, 0, -1, -1};
        pids[k] = fork_child(sr_main, &args[k]);
    }
    ring_close_all(&r);
    for (int k = 0; k < 4; k++)
        reap_ok(pids[k]);

    /* two ranks over one connection each way at once */
    int sv[2];
    pair(sv);
    struct sr_args a0 = {NULL, 0, bytes, 1, sv[0], sv[1]};
    struct sr_args a1 = {NULL, 1, bytes, 1, sv[1], sv[0]};
    pid_t p0 = fork_child(sr_main, &a0), p1 = fork_child(sr_main, &a1);
    close(sv[0]);
    close(sv[1]);
    reap_ok(p0);
    reap_ok(p1);
    assert_int_equal(proc_test_children(NULL), 0);
}

/* ---- review: regressions ------------------------------------------------------ */

/* A send that times out (or is cancelled) before any byte of its frame
 * moved leaves the connection usable, as the contract says: the socket is
 * full of whole frames the peer has not read yet. */
static void test_send_limit_before_any_byte(void **state)
{
    (void)state;
    struct core_err e = {0};
    atomic_int cancel = 0;
    int sv[2];
    pair(sv);
    struct lab_net_conn c, d;
    lab_net_conn_init_local(&c, sv[0], NULL, &cancel);
    lab_net_conn_init_local(&d, sv[1], NULL, NULL);
    /* header-only frames, each written whole or not at all, until full */
    int64_t sent = 0;
    int rc = 0;
    while ((rc = lab_net_send(&c, 5, sent, 0, NULL, 0, 0, &e)) == 0 && sent < 1000000)
        sent++;
    assert_int_equal(rc, CORE_ERR_LIMIT);
    assert_true(sent > 0);
    /* still usable: a second limit, then a cancel, both before any byte */
    assert_int_equal(lab_net_send(&c, 5, sent, 0, NULL, 0, 20, &e), CORE_ERR_LIMIT);
    atomic_store(&cancel, 1);
    assert_int_equal(lab_net_send(&c, 5, sent, 0, NULL, 0, 1000, &e), CORE_ERR_CANCELLED);
    atomic_store(&cancel, 0);
    /* the peer drains: every frame arrives whole and in order, and the
     * next send works */
    for (int64_t i = 0; i < sent; i++) {
        struct lab_net_msg m;
        assert_int_equal(lab_net_recv(&d, &m, 1000, &e), 0);
        assert_int_equal(m.type, 5);
        assert_true(m.a == i);
    }
    assert_int_equal(lab_net_send(&c, 6, 77, 0, NULL, 0, 1000, &e), 0);
    struct lab_net_msg m;
    assert_int_equal(lab_net_recv(&d, &m, 1000, &e), 0);
    assert_int_equal(m.type, 6);
    assert_true(m.a == 77);
    assert_int_equal(c.st.msgs_sent, (uint64_t)sent + 1);
    /* the socket's flags were never changed (MSG_DONTWAIT per call) */
    assert_false(fcntl(sv[0], F_GETFL) & O_NONBLOCK);
    assert_false(fcntl(sv[1], F_GETFL) & O_NONBLOCK);
    lab_net_conn_close(&c);
    lab_net_conn_close(&d);
}

/* A header whose length passes the LAB_NET_MSG_MAX check but whose peer sends
 * a few bytes and dies: the receiver allocates about what came, not the
 * 2 GiB the header claims. */
static void test_huge_length_small_payload(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    int sv[2];
    pair(sv);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    unsigned char h[LAB_NET_HDR_BYTES];
    raw_header(h, LAB_NET_MAGIC, LAB_NET_MSG_MAX - 8);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(write(sv[1], "0123456789", 10), 10);
    close(sv[1]);
    assert_int_equal(lab_net_recv(&c, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed"));
    assert_true(c.pend.cap <= LAB_NET_RX_UPFRONT + 1);
    lab_net_conn_close(&c);

    /* the same in the middle of lab_net_sendrecv (a ring step): our message goes
     * out on one connection, the garbled one comes in on another */
    int so[2];
    pair(so);
    pair(sv);
    struct lab_net_conn out, in;
    lab_net_conn_init_local(&out, so[0], NULL, NULL);
    lab_net_conn_init_local(&in, sv[0], NULL, NULL);
    assert_int_equal(write(sv[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(write(sv[1], "0123456789", 10), 10);
    close(sv[1]);
    int v = 7;
    e = (struct core_err){0};
    assert_int_equal(lab_net_sendrecv(&out, 1, 0, 0, &v, sizeof v, &in, &m, 1000, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "peer closed"));
    assert_true(in.pend.cap <= LAB_NET_RX_UPFRONT + 1);
    lab_net_conn_close(&out);
    lab_net_conn_close(&in);
    close(so[1]);
}

/* ---- review: throughput changes ---------------------------------------------- */

/* Payloads past LAB_NET_RX_UPFRONT (read in doubling pieces), through lab_net_recv
 * and through lab_net_sendrecv both ways over one socket (bigger than the socket
 * buffers, so neither side can finish its write before the other reads),
 * and a frame of more parts than one gather write takes. */
static void test_beyond_upfront_and_many_parts(void **state)
{
    (void)state;
    struct lab_net_conn c;
    pid_t pid = echo_start(&c);
    struct core_err e = {0};
    size_t big = LAB_NET_RX_UPFRONT + 3 * 4096 + 5;
    unsigned char *p = malloc(big);
    fill_pattern(p, big, 3);
    struct lab_net_part one = {p, big};
    struct lab_net_msg m;
    assert_int_equal(lab_net_send(&c, 2, 1, 2, &one, 1, 20000, &e), 0);
    assert_int_equal(lab_net_recv(&c, &m, 20000, &e), 0);
    assert_int_equal(m.len, big);
    assert_memory_equal(m.data, p, big);

    /* 150 parts of 0..~40 KB (some empty), in order */
    enum { NP = 150 };
    struct lab_net_part parts[NP];
    size_t off = 0;
    for (int i = 0; i < NP; i++) {
        size_t n = i % 7 == 3 ? 0 : (size_t)(i * 263) % 40000 + 1;
        parts[i] = (struct lab_net_part){p + off, n};
        off += n;
    }
    assert_true(off <= big);
    assert_int_equal(lab_net_send(&c, 3, 4, 5, parts, NP, 20000, &e), 0);
    assert_int_equal(lab_net_recv(&c, &m, 20000, &e), 0);
    assert_int_equal(m.type, 3);
    assert_int_equal(m.len, off);
    assert_memory_equal(m.data, p, off);
    assert_int_equal(c.st.bytes_sent, 2 * LAB_NET_HDR_BYTES + big + off);
    assert_int_equal(lab_net_send(&c, 0, 0, 0, NULL, 0, 1000, &e), 0);
    reap_ok(pid);
    lab_net_conn_close(&c);
    free(p);

    /* lab_net_sendrecv, two ranks over one connection, past LAB_NET_RX_UPFRONT */
    int sv[2];
    pair(sv);
    struct sr_args a0 = {NULL, 0, big, 1, sv[0], sv[1]};
    struct sr_args a1 = {NULL, 1, big, 1, sv[1], sv[0]};
    pid_t p0 = fork_child(sr_main, &a0), p1 = fork_child(sr_main, &a1);
    close(sv[0]);
    close(sv[1]);
    reap_ok(p0);
    reap_ok(p1);
    assert_int_equal(proc_test_children(NULL), 0);
}

/* A number from a /proc file, -1 when unreadable. */
static long proc_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* A wrapped socket gets LAB_NET_SOCK_BUF buffers each way (as far as the
 * system's maximum allows), without its file flags changing. */
static void test_socket_buffers(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    int flags = fcntl(sv[0], F_GETFL);
    struct lab_net_conn c;
    lab_net_conn_init_local(&c, sv[0], NULL, NULL);
    const int opts[] = {SO_SNDBUF, SO_RCVBUF};
    const char *max_path[] = {"/proc/sys/net/core/wmem_max", "/proc/sys/net/core/rmem_max"};
    for (int i = 0; i < 2; i++) {
        int v = 0;
        socklen_t len = sizeof v;
        assert_int_equal(getsockopt(sv[0], SOL_SOCKET, opts[i], &v, &len), 0);
        long max = proc_long(max_path[i]);
        long want = max > 0 && max < LAB_NET_SOCK_BUF ? max : LAB_NET_SOCK_BUF;
        /* the kernel reports twice what was set */
        assert_true((long)v >= 2 * want);
    }
    assert_int_equal(fcntl(sv[0], F_GETFL), flags);
    lab_net_conn_close(&c);
    close(sv[1]);
}

/* A connection that broke (a corrupt frame) and was then closed is skipped
 * by lab_net_wait_any like any closed entry. */
static void test_wait_any_skips_closed_broken(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_net_msg m;
    int s0[2], s1[2];
    pair(s0);
    pair(s1);
    struct lab_net_conn a, b;
    lab_net_conn_init_local(&a, s0[0], NULL, NULL);
    lab_net_conn_init_local(&b, s1[0], NULL, NULL);
    unsigned char h[LAB_NET_HDR_BYTES];
    raw_header(h, 0xdeadbeef, 0);
    assert_int_equal(write(s0[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(lab_net_recv(&a, &m, 1000, &e), CORE_ERR_IO);
    lab_net_conn_close(&a);
    struct lab_net_conn *cs[2] = {&a, &b};
    assert_int_equal(lab_net_wait_any(cs, 2, 30, &e), CORE_ERR_LIMIT);
    /* b's message is found */
    raw_header(h, LAB_NET_MAGIC, 0);
    assert_int_equal(write(s1[1], h, sizeof h), (ssize_t)sizeof h);
    assert_int_equal(lab_net_wait_any(cs, 2, 1000, &e), 1);
    /* only the closed one left: nothing open */
    lab_net_conn_close(&b);
    assert_int_equal(lab_net_wait_any(cs, 2, 30, &e), CORE_ERR_INVALID);
    close(s0[1]);
    close(s1[1]);
}

/* Several threads of one process (a server shard: one per worker) sending
 * on connections that share one link: the link is charged atomically, so
 * the delivery stamps, read raw off the sockets, are at least one
 * message's serialisation time apart. */
enum { SHR_THREADS = 2, SHR_MSGS = 30000 }; /* a lost update shows in most runs */

struct shr_sender {
    struct lab_net_conn c;
    int rc;
};

static void *shr_send_main(void *arg)
{
    struct shr_sender *s = arg;
    struct core_err e = {0};
    for (int i = 0; i < SHR_MSGS && s->rc == 0; i++)
        s->rc = lab_net_send(&s->c, 1, i, 0, NULL, 0, 10000, &e);
    return NULL;
}

struct shr_reader {
    int fd;
    double *stamps;
};

static void *shr_read_main(void *arg)
{
    struct shr_reader *r = arg;
    size_t want = (size_t)SHR_MSGS * LAB_NET_HDR_BYTES, got = 0;
    unsigned char *buf = malloc(want);
    while (got < want) {
        ssize_t n = read(r->fd, buf + got, want - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    for (size_t i = 0; i < got / LAB_NET_HDR_BYTES; i++)
        memcpy(&r->stamps[i], buf + i * LAB_NET_HDR_BYTES + LAB_NET_HDR_DELIVER, 8);
    free(buf);
    return NULL;
}

static void test_shared_link_threads(void **state)
{
    (void)state;
    /* 40-byte frames at 400 kB/s: 100 us each, far slower than a send, so
     * the link is always busy and every charge starts where the last ended */
    double rate = 4e5, ser = LAB_NET_HDR_BYTES / rate;
    double nic = 0;
    struct shr_sender snd[SHR_THREADS];
    struct shr_reader rd[SHR_THREADS];
    pthread_t ts[SHR_THREADS], tr[SHR_THREADS];
    double *stamps = calloc((size_t)SHR_THREADS * SHR_MSGS, sizeof *stamps);
    struct lab_net_link_cfg link = {rate, 0};
    for (int k = 0; k < SHR_THREADS; k++) {
        int sv[2];
        pair(sv);
        lab_net_conn_init_local(&snd[k].c, sv[0], &link, NULL);
        lab_net_conn_share_link(&snd[k].c, &nic);
        snd[k].rc = 0;
        rd[k] = (struct shr_reader){sv[1], stamps + (size_t)k * SHR_MSGS};
    }
    for (int k = 0; k < SHR_THREADS; k++) {
        assert_int_equal(pthread_create(&tr[k], NULL, shr_read_main, &rd[k]), 0);
        assert_int_equal(pthread_create(&ts[k], NULL, shr_send_main, &snd[k]), 0);
    }
    double wire = 0;
    for (int k = 0; k < SHR_THREADS; k++) {
        pthread_join(ts[k], NULL);
        pthread_join(tr[k], NULL);
        assert_int_equal(snd[k].rc, 0);
        wire += snd[k].c.st.wire_s;
        lab_net_conn_close(&snd[k].c);
        close(rd[k].fd);
    }
    size_t total = (size_t)SHR_THREADS * SHR_MSGS;
    assert_true(fabs(wire - (double)total * ser) < 1e-6);
    lab_stats_sort(stamps, total);
    size_t overlaps = 0;
    for (size_t i = 1; i < total; i++)
        overlaps += stamps[i] - stamps[i - 1] < ser * (1 - 1e-6);
    if (overlaps)
        printf("shared link: %zu of %zu messages overlapped another on the link\n", overlaps,
               total);
    assert_int_equal(overlaps, 0);
    /* the link's busy time is every message's, back to back */
    assert_true(nic >= stamps[0] + (double)(total - 1) * ser * (1 - 1e-6));
    free(stamps);
}

/* Top-k with a fraction that is not a number keeps one entry (the
 * contract's max(1, ...)), instead of a k out of range. */
static void test_topk_odd_fractions(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    struct core_err e = {0};
    float g[10] = {1, -9, 3, 0, 2, 8, -7, 0, 5, 4};
    const double fr[] = {NAN, -1.0, -INFINITY, INFINITY, 1e300, 0.0};
    const size_t want_k[] = {1, 1, 1, 10, 10, 1};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        lab_ps_topk_encode(g, 10, fr[i], &b);
        assert_int_equal(b.len, 8 + 8 * want_k[i]);
        float acc[10] = {0};
        assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, acc, 10, &e), 0);
        if (want_k[i] == 1)
            assert_true(acc[1] == -9);
    }
    /* n = 0: an empty gradient encodes and decodes */
    lab_ps_topk_encode(NULL, 0, 0.5, &b);
    assert_int_equal(b.len, 8);
    assert_int_equal(lab_ps_topk_decode_add(b.data, b.len, NULL, 0, &e), 0);
    core_buf_fini(&b);
}

/* q8 on subnormal gradients: the block scale max|x|/127 would round to 0
 * (or far below max|x|/127): each value must still decode within half the
 * block's transmitted scale, as the contract states. */
static void test_q8_subnormal(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    struct core_err e = {0};
    const float u = 1.40129846e-45f; /* the smallest subnormal */
    const int maxes[] = {1, 3, 100, 190, 127 * 127 + 5, 200000};
    for (size_t t = 0; t < sizeof maxes / sizeof maxes[0]; t++) {
        float g[7];
        int mx = maxes[t];
        int vals[7] = {mx, -mx, mx / 2, -(mx / 3), 1, 0, mx - 1};
        for (int i = 0; i < 7; i++)
            g[i] = (float)vals[i] * u;
        lab_ps_q8_encode(g, 7, &b);
        float scale;
        memcpy(&scale, b.data + 8, 4);
        assert_true(scale > 0);
        assert_true((double)scale * 127.0 >= (double)mx * (double)u);
        float acc[7] = {0};
        assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, acc, 7, &e), 0);
        for (int i = 0; i < 7; i++)
            assert_true(fabs((double)acc[i] - (double)g[i]) <= (double)scale / 2);
    }
    /* ordinary values: the transmitted scale is max|x|/127 within a float
     * rounding, never below it */
    float g[3] = {0.3f, -1.7f, 1e-3f}, acc[3] = {0, 0, 0};
    lab_ps_q8_encode(g, 3, &b);
    float scale;
    memcpy(&scale, b.data + 8, 4);
    assert_true((double)scale * 127.0 >= 1.7f);
    assert_true((double)scale <= 1.7f / 127.0 * (1 + 3e-7));
    assert_int_equal(lab_ps_q8_decode_add(b.data, b.len, acc, 3, &e), 0);
    for (int i = 0; i < 3; i++)
        assert_true(fabs((double)acc[i] - (double)g[i]) <= (double)scale / 2 * (1 + 1e-6));
    core_buf_fini(&b);
}

/* Link rates are bits per second: "GBps" (bytes) is refused, not read as
 * bits, which would make the link 8 times slower than meant. */
static void test_link_parse_bytes(void **state)
{
    (void)state;
    struct core_err e = {0};
    double b = -1;
    const char *bad[] = {"1GBps", "100MBps", "1GBPS", "5KBps"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e = (struct core_err){0};
        assert_int_equal(lab_net_link_parse(bad[i], &b, &e), CORE_ERR_INVALID);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        assert_non_null(strstr(e.msg, quoted));
    }
    assert_int_equal(lab_net_link_parse("1gbps", &b, &e), 0);
    assert_true(fabs(b - 125e6) < 1e-6);
    assert_int_equal(lab_net_link_parse("OFF", &b, &e), 0);
    assert_true(b == 0);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_DFL); /* a SIGPIPE would kill the test: none may come */
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        /* the link's figures: achieved rate and delay against the configured */
        const struct CMUnitTest bench[] = {
            cmocka_unit_test(test_link_rate),
            cmocka_unit_test(test_link_latency),
            cmocka_unit_test(test_link_shared_and_wait_any),
        };
        return cmocka_run_group_tests(bench, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_parse),
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_corrupt_frames),
        cmocka_unit_test(test_peer_close),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_timeouts),
        cmocka_unit_test(test_link_rate),
        cmocka_unit_test(test_link_latency),
        cmocka_unit_test(test_link_shared_and_wait_any),
        cmocka_unit_test(test_q8),
        cmocka_unit_test(test_topk),
        cmocka_unit_test(test_ring_allreduce),
        cmocka_unit_test(test_ring_single),
        cmocka_unit_test(test_tree_allreduce),
        cmocka_unit_test(test_sendrecv_large_ring),
        cmocka_unit_test(test_send_limit_before_any_byte),
        cmocka_unit_test(test_wait_any_skips_closed_broken),
        cmocka_unit_test(test_huge_length_small_payload),
        cmocka_unit_test(test_shared_link_threads),
        cmocka_unit_test(test_topk_odd_fractions),
        cmocka_unit_test(test_q8_subnormal),
        cmocka_unit_test(test_link_parse_bytes),
        cmocka_unit_test(test_beyond_upfront_and_many_parts),
        cmocka_unit_test(test_socket_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
