/*
 * lab_mpi.c — the MPI runtime of the distributed labs (contract in
 * lab_mpi.h): initialisation, the clock base, rank 0's orders and the
 * listener that takes them on the other ranks, the hosts of the job, and
 * the drained finalise. Built only with Open MPI (lab_nompi.c otherwise).
 *
 * Every MPI error is returned (MPI_ERRORS_RETURN on MPI_COMM_WORLD) and
 * turned into CORE_ERR_IO with MPI's own words; no MPI code leaves labs/.
 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"

#include <mpi.h>

#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_NAP_S 0.002 /* the listener looks for orders this often */
#define ORDER_HDR 16       /* i32 kind, i32 pad, i64 a; the payload follows */

static struct {
    bool up, done;
    int rank, size;
    double t_base, t_start;
    pid_t parent;
    pthread_t listener;
    bool listening;
    atomic_int stop_listening;
    atomic_int ended;
    atomic_int epoch;
    void (*kill_hook)(void);
    /* orders for lab_mpi_next_order: a small queue under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct lab_mpi_order q[8];
    int qn;
} g = {.rank = -1, .size = -1, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

bool lab_mpi_built(void)
{
    return true;
}

/* MPI's words for an error code, into err as CORE_ERR_IO. */
static int mpi_err(int code, const char *what, struct core_err *err)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", code);
    return core_err_set(err, CORE_ERR_IO, "%s: MPI: %s", what, s);
}

void lab_mpi_backoff_start(struct lab_mpi_backoff *b)
{
    b->n = 0;
    b->t0 = core_time_mono();
}

void lab_mpi_backoff_wait(struct lab_mpi_backoff *b)
{
    /* A ring step or a ping-pong answers within microseconds: spinning
     * (with a yield, for ranks sharing cores) keeps that latency; a rank
     * idle for longer sleeps so that oversubscribed ranks and other work
     * get the cores. */
    double waited = core_time_mono() - b->t0;
    b->n++;
    if (waited < LAB_MPI_SPIN_S) {
        sched_yield();
        return;
    }
    int k = b->n < 7 ? b->n : 7;
    double s = 10e-6 * (double)(1 << k);
    core_sleep(s < 1e-3 ? s : 1e-3);
}

/* ---- orders ------------------------------------------------------------------ */

static void queue_push(int kind, int64_t a, void *payload, size_t n)
{
    pthread_mutex_lock(&g.mu);
    if (g.qn < (int)(sizeof g.q / sizeof g.q[0]))
        g.q[g.qn++] = (struct lab_mpi_order){kind, a, payload, n};
    else
        free(payload); /* rank 0 never sends more than a few */
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
}

/* Takes one order off the system tag, if one is there. */
static void listen_once(void)
{
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    if (MPI_Improbe(0, LAB_MPI_TAG_SYS, MPI_COMM_WORLD, &flag, &msg, &st) != MPI_SUCCESS || !flag)
        return;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    unsigned char *buf = core_xmalloc(count > 0 ? (size_t)count : 1);
    if (MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        count < ORDER_HDR) {
        free(buf);
        return;
    }
    int32_t kind;
    int64_t a;
    memcpy(&kind, buf, 4);
    memcpy(&a, buf + 8, 8);
    size_t n = (size_t)count - ORDER_HDR;
    void *payload = NULL;
    if (n > 0) {
        payload = core_xmalloc(n);
        memcpy(payload, buf + ORDER_HDR, n);
    }
    free(buf);
    if (kind == LAB_MPI_KILL) {
        free(payload);
        lab_mpi_kill_self();
    } else if (kind == LAB_MPI_END) {
        free(payload);
        atomic_store(&g.ended, 1);
        queue_push(LAB_MPI_END, a, NULL, 0);
    } else {
        queue_push(kind, a, payload, n);
    }
}

static void *listener_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&g.stop_listening)) {
        if (getppid() != g.parent)
            _exit(1); /* mpirun (or its daemon) is gone: so are we */
        if (!atomic_load(&g.ended))
            listen_once();
        core_sleep(LISTEN_NAP_S);
    }
    return NULL;
}

/* Rank 0 watches its parent too (a second small thread). */
static void *watchdog_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&g.stop_listening)) {
        if (getppid() != g.parent)
            _exit(1);
        core_sleep(0.2);
    }
    return NULL;
}

int lab_mpi_init(struct core_err *err)
{
    if (g.up)
        return 0;
    if (g.done)
        return core_err_set(err, CORE_ERR_INVALID,
                            "MPI was finalised already in this process: one MPI run per process");
    int inited = 0, prov = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &prov) != MPI_SUCCESS)
        return core_err_set(err, CORE_ERR_IO, "MPI_Init_thread failed");
    if (inited)
        MPI_Query_thread(&prov);
    if (prov < MPI_THREAD_MULTIPLE) {
        MPI_Finalize();
        g.done = true;
        return core_err_set(err, CORE_ERR_IO,
                            "this MPI library gives thread level %d, not MPI_THREAD_MULTIPLE (%d): "
                            "a server shard serves its workers from one thread each",
                            prov, MPI_THREAD_MULTIPLE);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (!flag || !ub || *ub < LAB_MPI_TAG_SYS) {
        MPI_Finalize();
        g.done = true;
        return core_err_set(err, CORE_ERR_IO,
                            "this MPI library allows message tags up to %d; the labs need %d",
                            flag && ub ? *ub : 0, LAB_MPI_TAG_SYS);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    g.parent = getppid();
    g.up = true;
    atomic_store(&g.stop_listening, 0);
    if (pthread_create(&g.listener, NULL, g.rank == 0 ? watchdog_main : listener_main, NULL) == 0)
        g.listening = true;
    return 0;
}

int lab_mpi_rank(void)
{
    return g.up ? g.rank : -1;
}

int lab_mpi_size(void)
{
    return g.up ? g.size : -1;
}

int lab_mpi_sync_clocks(struct core_err *err)
{
    /* Ranks on one kernel (one machine, network namespaces included) share
     * CLOCK_MONOTONIC exactly: base 0. Otherwise each rank's time as it
     * leaves a barrier. */
    char boot[64] = "";
    core_file_first_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    unsigned char mine[64], lo[64];
    memset(mine, 0, sizeof mine);
    memcpy(mine, boot, strlen(boot));
    int rc = MPI_Allreduce(mine, lo, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD);
    int same = rc == MPI_SUCCESS && boot[0] && memcmp(mine, lo, sizeof mine) == 0, all = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_err(rc, "aligning the ranks' clocks", err);
    g.t_start = core_time_mono();
    g.t_base = all ? 0 : g.t_start;
    return 0;
}

double lab_mpi_t_base(void)
{
    return g.t_base;
}

double lab_mpi_t_start(void)
{
    return g.t_start;
}

int lab_mpi_bcast(void *buf, size_t n, struct core_err *err)
{
    for (size_t off = 0; off < n;) {
        size_t k = n - off < ((size_t)1 << 30) ? n - off : ((size_t)1 << 30);
        int rc = MPI_Bcast((char *)buf + off, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_err(rc, "sending the data to every rank", err);
        off += k;
    }
    return 0;
}

static MPI_Comm workers_comm = MPI_COMM_NULL;

int lab_mpi_workers_begin(struct core_err *err)
{
    int rc = MPI_Comm_split(MPI_COMM_WORLD, g.rank == 0 ? MPI_UNDEFINED : 1, g.rank, &workers_comm);
    if (rc != MPI_SUCCESS)
        return mpi_err(rc, "making the workers' communicator", err);
    if (workers_comm != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(workers_comm, MPI_ERRORS_RETURN);
    return 0;
}

void lab_mpi_workers_end(void)
{
    if (workers_comm != MPI_COMM_NULL)
        MPI_Comm_free(&workers_comm);
}

int lab_mpi_allreduce(float *buf, size_t n, struct core_err *err)
{
    if (workers_comm == MPI_COMM_NULL || n > 0x7fffffff)
        return core_err_set(err, CORE_ERR_INTERNAL, "MPI_Allreduce: no workers' communicator");
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, workers_comm);
    return rc == MPI_SUCCESS ? 0 : mpi_err(rc, "MPI_Allreduce", err);
}

int lab_mpi_pingpong(void *buf, size_t n, struct core_err *err)
{
    if (workers_comm == MPI_COMM_NULL || n > 0x7fffffff)
        return core_err_set(err, CORE_ERR_INTERNAL, "ping-pong: no workers' communicator");
    int me = 0, size = 0, rc = MPI_SUCCESS;
    MPI_Comm_rank(workers_comm, &me);
    MPI_Comm_size(workers_comm, &size);
    if (size < 2 || me > 1)
        return 0;
    int tag = LAB_MPI_TAG(LAB_MPI_KIND_BENCH, 0, 1);
    if (me == 0) {
        rc = MPI_Send(buf, (int)n, MPI_BYTE, 1, tag, workers_comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(buf, (int)n, MPI_BYTE, 1, tag, workers_comm, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, workers_comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(buf, (int)n, MPI_BYTE, 0, tag, workers_comm);
    }
    return rc == MPI_SUCCESS ? 0 : mpi_err(rc, "MPI ping-pong", err);
}

int lab_mpi_order(int rank, int kind, int64_t a, const void *payload, size_t n, int timeout_ms,
                  struct core_err *err)
{
    if (n > (size_t)0x7fffffff - ORDER_HDR)
        return core_err_set(err, CORE_ERR_INVALID, "an order of %zu bytes is too large", n);
    unsigned char *buf = core_xmalloc(ORDER_HDR + n);
    int32_t k = kind, pad = 0;
    memcpy(buf, &k, 4);
    memcpy(buf + 4, &pad, 4);
    memcpy(buf + 8, &a, 8);
    if (n > 0)
        memcpy(buf + ORDER_HDR, payload, n);
    MPI_Request req;
    int rc =
        MPI_Isend(buf, (int)(ORDER_HDR + n), MPI_BYTE, rank, LAB_MPI_TAG_SYS, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return mpi_err(rc, "sending an order", err);
    }
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    struct lab_mpi_backoff b;
    lab_mpi_backoff_start(&b);
    for (;;) {
        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (end >= 0 && core_time_mono() > end) {
            /* the rank does not listen (it is stuck in MPI itself): the
             * send stays queued and the buffer with it */
            MPI_Request_free(&req);
            return core_err_set(err, CORE_ERR_LIMIT, "rank %d took no order within %d ms", rank,
                                timeout_ms);
        }
        lab_mpi_backoff_wait(&b);
    }
    free(buf);
    return 0;
}

void lab_mpi_end_all(void)
{
    if (!g.up || g.rank != 0)
        return;
    for (int r = 1; r < g.size; r++) {
        struct core_err e;
        lab_mpi_order(r, LAB_MPI_END, 0, NULL, 0, 2000, &e);
    }
}

int lab_mpi_next_order(struct lab_mpi_order *o, struct core_err *err)
{
    memset(o, 0, sizeof *o);
    if (!g.up || g.rank == 0)
        return core_err_set(err, CORE_ERR_INTERNAL, "lab_mpi_next_order on rank %d", g.rank);
    pthread_mutex_lock(&g.mu);
    while (g.qn == 0)
        pthread_cond_wait(&g.cv, &g.mu);
    *o = g.q[0];
    memmove(g.q, g.q + 1, (size_t)(g.qn - 1) * sizeof g.q[0]);
    g.qn--;
    pthread_mutex_unlock(&g.mu);
    return 0;
}

void lab_mpi_order_fini(struct lab_mpi_order *o)
{
    free(o->payload);
    memset(o, 0, sizeof *o);
}

bool lab_mpi_ended(void)
{
    return atomic_load(&g.ended) != 0;
}

int lab_mpi_epoch(void)
{
    return atomic_load(&g.epoch);
}

void lab_mpi_set_kill_hook(void (*hook)(void))
{
    g.kill_hook = hook;
}

void lab_mpi_kill_self(void)
{
    atomic_fetch_add(&g.epoch, 1);
    if (g.kill_hook)
        g.kill_hook();
}

/* ---- hosts --------------------------------------------------------------------- */

#define HOST_REC 512 /* name[64], cpu[128], cores, pid, addresses[312] */

/* This host's IPv4 addresses other than loopback, "eth0 10.0.0.2, ...". */
static void addresses(char *out, size_t size)
{
    out[0] = '\0';
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return;
    size_t len = 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        char a[INET_ADDRSTRLEN];
        const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)i->ifa_addr;
        if (!inet_ntop(AF_INET, &sin->sin_addr, a, sizeof a) || strncmp(a, "127.", 4) == 0)
            continue;
        int w = snprintf(out + len, size - len, "%s%s %s", len ? ", " : "", i->ifa_name, a);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
    freeifaddrs(ifs);
}

/* The BTL and PML components this Open MPI has (from the names of their MCA
 * variables, which MPI_T lists), e.g. "self, tcp, vader". */
static void components(const char *framework, char *out, size_t size)
{
    out[0] = '\0';
    int prov, n = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        n = 0;
    char seen[16][32];
    int n_seen = 0;
    size_t plen = strlen(framework);
    for (int i = 0; i < n; i++) {
        char name[256], desc[8];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) !=
            MPI_SUCCESS)
            continue;
        if (strncmp(name, framework, plen) != 0 || name[plen] != '_')
            continue;
        char comp[32];
        const char *p = name + plen + 1, *u = strchr(p, '_');
        size_t cl = u ? (size_t)(u - p) : strlen(p);
        if (!u || cl == 0 || cl >= sizeof comp || strncmp(p, "base", cl) == 0)
            continue;
        memcpy(comp, p, cl);
        comp[cl] = '\0';
        bool dup = false;
        for (int k = 0; k < n_seen; k++)
            dup |= strcmp(seen[k], comp) == 0;
        if (dup || n_seen == 16)
            continue;
        snprintf(seen[n_seen++], sizeof seen[0], "%s", comp);
    }
    MPI_T_finalize();
    /* sorted, for a stable record */
    for (int a = 0; a < n_seen; a++)
        for (int b = a + 1; b < n_seen; b++)
            if (strcmp(seen[b], seen[a]) < 0) {
                char t[32];
                memcpy(t, seen[a], sizeof t);
                memcpy(seen[a], seen[b], sizeof t);
                memcpy(seen[b], t, sizeof t);
            }
    size_t len = 0;
    for (int k = 0; k < n_seen; k++) {
        int w = snprintf(out + len, size - len, "%s%s", k ? ", " : "", seen[k]);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
}

int lab_mpi_hosts(char *hosts, size_t hosts_size, int *n_hosts, char *interconnect, size_t ic_size,
                  struct lab_mpi_rankinfo *ranks, struct core_err *err)
{
    unsigned char mine[HOST_REC];
    memset(mine, 0, sizeof mine);
    char name[MPI_MAX_PROCESSOR_NAME];
    int nl = 0;
    if (MPI_Get_processor_name(name, &nl) != MPI_SUCCESS)
        snprintf(name, sizeof name, "?");
    snprintf((char *)mine, 64, "%.63s", name);
    struct lab_machine m;
    lab_machine_probe(&m);
    snprintf((char *)mine + 64, 128, "%s", m.cpu_model[0] ? m.cpu_model : "unknown CPU");
    int32_t cores = m.cores_online;
    memcpy(mine + 192, &cores, 4);
    int32_t pid = (int32_t)getpid();
    memcpy(mine + 196, &pid, 4);
    addresses((char *)mine + 200, HOST_REC - 200);
    unsigned char *all = g.rank == 0 ? core_xmalloc((size_t)g.size * HOST_REC) : NULL;
    int rc = MPI_Gather(mine, HOST_REC, MPI_BYTE, all, HOST_REC, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpi_err(rc, "gathering the hosts", err);
    }
    if (g.rank != 0)
        return 0;
    for (int r = 0; ranks && r < g.size; r++) {
        int32_t p;
        memcpy(&p, all + (size_t)r * HOST_REC + 196, 4);
        ranks[r].pid = p;
        snprintf(ranks[r].host, sizeof ranks[r].host, "%s",
                 (const char *)all + (size_t)r * HOST_REC);
    }
    /* hosts in rank order of first appearance, with their rank ranges */
    size_t len = 0;
    *n_hosts = 0;
    hosts[0] = '\0';
    bool *done = core_xcalloc((size_t)g.size, sizeof *done);
    for (int r = 0; r < g.size; r++) {
        if (done[r])
            continue;
        const char *hn = (const char *)all + (size_t)r * HOST_REC;
        char list[160] = "";
        size_t rl = 0;
        int run_start = -1, prev = -2;
        for (int q = r; q <= g.size; q++) {
            bool same =
                q < g.size && !done[q] && strcmp(hn, (const char *)all + (size_t)q * HOST_REC) == 0;
            if (same)
                done[q] = true;
            if (same && q == prev + 1) {
                prev = q;
                continue;
            }
            if (run_start >= 0 && rl < sizeof list) {
                int w = run_start == prev
                            ? snprintf(list + rl, sizeof list - rl, "%s%d", rl ? "," : "", prev)
                            : snprintf(list + rl, sizeof list - rl, "%s%d-%d", rl ? "," : "",
                                       run_start, prev);
                if (w > 0)
                    rl += (size_t)w;
            }
            run_start = same ? q : -1;
            prev = same ? q : -2;
        }
        int32_t c;
        memcpy(&c, all + (size_t)r * HOST_REC + 192, 4);
        const char *ad = (const char *)all + (size_t)r * HOST_REC + 200;
        int w = snprintf(hosts + len, hosts_size - len, "%s%s (%s, %d cores; ranks %s%s%s)",
                         len ? "; " : "", hn, (const char *)all + (size_t)r * HOST_REC + 64, (int)c,
                         list, *ad ? "; " : "", ad);
        if (w > 0 && (size_t)w < hosts_size - len)
            len += (size_t)w;
        (*n_hosts)++;
    }
    free(done);
    free(all);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING], btl[200], pml[120];
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    char *comma = strchr(lib, ',');
    if (comma)
        *comma = '\0';
    components("btl", btl, sizeof btl);
    components("pml", pml, sizeof pml);
    bool has_sm = strstr(btl, "vader") || strstr(btl, "sm");
    snprintf(interconnect, ic_size, "%s; pml %s; btl %s: %s%s%s", lib, *pml ? pml : "?",
             *btl ? btl : "?", has_sm ? "shared memory (vader) between ranks on one host" : "",
             *n_hosts > 1 ? (has_sm ? ", " : "") : "",
             *n_hosts > 1 ? (strstr(btl, "tcp") ? "tcp between hosts" : "the network between hosts")
                          : "");
    return 0;
}

/* ---- the end ------------------------------------------------------------------------ */

static pthread_mutex_t end_mu = PTHREAD_MUTEX_INITIALIZER;
static MPI_Request *lost;
static size_t n_lost, cap_lost;
static void **deferred;
static size_t n_deferred, cap_deferred;

void lab_mpi_lose_request(void *req)
{
    pthread_mutex_lock(&end_mu);
    if (n_lost == cap_lost) {
        cap_lost = cap_lost ? 2 * cap_lost : 16;
        lost = core_xrealloc(lost, cap_lost * sizeof *lost);
    }
    lost[n_lost++] = *(MPI_Request *)req;
    *(MPI_Request *)req = MPI_REQUEST_NULL;
    pthread_mutex_unlock(&end_mu);
}

void lab_mpi_defer_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&end_mu);
    if (n_deferred == cap_deferred) {
        cap_deferred = cap_deferred ? 2 * cap_deferred : 16;
        deferred = core_xrealloc(deferred, cap_deferred * sizeof *deferred);
    }
    deferred[n_deferred++] = p;
    pthread_mutex_unlock(&end_mu);
}

/* Tests the lost sends; true when none is left. */
static bool lost_done(void)
{
    pthread_mutex_lock(&end_mu);
    for (size_t i = 0; i < n_lost;) {
        int done = 0;
        if (MPI_Test(&lost[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
            lost[i] = lost[--n_lost];
        else
            i++;
    }
    bool none = n_lost == 0;
    pthread_mutex_unlock(&end_mu);
    return none;
}

/* Receives and drops every message addressed to this rank that is there. */
static void drain(void)
{
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st) !=
                MPI_SUCCESS ||
            !flag)
            return;
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        void *buf = core_xmalloc(count > 0 ? (size_t)count : 1);
        MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        free(buf);
    }
}

/* A barrier that keeps draining while it waits, so that a send to this rank
 * that nobody would read (a peer that was ended mid-message) completes. */
static void drained_barrier(void)
{
    MPI_Request req;
    if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS)
        return;
    struct lab_mpi_backoff b;
    lab_mpi_backoff_start(&b);
    for (;;) {
        int done = 0;
        drain();
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
            return;
        lab_mpi_backoff_wait(&b);
    }
}

void lab_mpi_finish(void)
{
    if (!g.up)
        return;
    atomic_store(&g.stop_listening, 1);
    if (g.listening)
        pthread_join(g.listener, NULL);
    g.listening = false;
    drained_barrier();
    /* the lost sends: every rank drains until its own are taken (or 2 s) */
    double until = core_time_mono() + 2.0;
    struct lab_mpi_backoff b;
    lab_mpi_backoff_start(&b);
    while (!lost_done() && core_time_mono() < until) {
        drain();
        lab_mpi_backoff_wait(&b);
    }
    drained_barrier();
    pthread_mutex_lock(&end_mu);
    for (size_t i = 0; i < n_lost; i++)
        MPI_Request_free(&lost[i]);
    free(lost);
    lost = NULL;
    n_lost = cap_lost = 0;
    pthread_mutex_unlock(&end_mu);
    MPI_Finalize();
    pthread_mutex_lock(&end_mu);
    for (size_t i = 0; i < n_deferred; i++)
        free(deferred[i]);
    free(deferred);
    deferred = NULL;
    n_deferred = cap_deferred = 0;
    pthread_mutex_unlock(&end_mu);
    g.up = false;
    g.done = true;
    pthread_mutex_lock(&g.mu);
    for (int i = 0; i < g.qn; i++)
        free(g.q[i].payload);
    g.qn = 0;
    pthread_mutex_unlock(&g.mu);
}
