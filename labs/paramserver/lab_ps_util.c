/*
 * lab_ps_util.c — what the parameter-server lab's processes share: the
 * clock every report uses, sleeping, closing the inherited descriptors that
 * belong to other processes, log lines to the master, and passing a
 * descriptor over a Unix socket (SCM_RIGHTS) for a restarted shard.
 */
#include "labs/paramserver/lab_ps.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double lab_ps_now(const struct ps_cfg *c)
{
    return core_time_mono() - c->t0;
}

void lab_ps_child_close_others(const struct ps_child *ch, int n_own)
{
    for (size_t i = 0; i < ch->n_data_fds; i++) {
        int fd = ch->data_fds[i];
        bool mine = false;
        for (int k = 0; k < n_own; k++)
            mine |= ch->own[k] == fd;
        if (fd >= 0 && !mine)
            close(fd);
    }
}

void lab_ps_child_ctl(const struct ps_child *ch, int ctl_fd, struct lab_net_conn *c)
{
    if (ch->mpi)
        lab_net_conn_init_mpi(c, 0, ch->ctl_tag, lab_mpi_t_base(), NULL, NULL);
    else
        lab_net_conn_init_local(c, ctl_fd, NULL, NULL);
}

void lab_ps_child_conn(const struct ps_child *ch, int k, const struct lab_net_link_cfg *link,
                       struct lab_net_conn *c)
{
    if (ch->mpi && ch->own[k] >= 0)
        lab_net_conn_init_mpi(c, ch->own[k], ch->tag[k], lab_mpi_t_base(), link, NULL);
    else if (ch->mpi)
        lab_net_conn_init_local(c, -1, NULL, NULL);
    else
        lab_net_conn_init_local(c, ch->own[k], link, NULL);
}

void lab_ps_child_die(const struct ps_child *ch)
{
    if (!ch->mpi)
        raise(SIGKILL);
    lab_mpi_kill_self();
}

void lab_ps_child_hang(const struct ps_child *ch)
{
    if (!ch->mpi) {
        raise(SIGSTOP); /* a real hang, until the master's SIGKILL */
        return;
    }
    /* Answer nothing until rank 0's KILL order (or the end of the job). */
    int epoch = lab_mpi_epoch();
    while (lab_mpi_epoch() == epoch && !lab_mpi_ended())
        core_sleep(0.01);
}

int lab_ps_child_reconnect(const struct ps_child *ch, struct lab_net_conn *ctl, int s, int gen,
                           struct lab_net_conn *out, struct core_err *err)
{
    const struct ps_cfg *c = ch->cfg;
    if (ch->mpi) {
        if (gen > LAB_MPI_MAX_GEN)
            return core_err_set(err, CORE_ERR_INVALID, "shard %d restarted too often", s + 1);
        lab_net_conn_close(out);
        lab_net_conn_init_mpi(out, lab_ps_rank_of(c, 0, s),
                              LAB_MPI_TAG(LAB_MPI_KIND_DATA, gen, ch->index * PS_MAX_SERVERS + s),
                              lab_mpi_t_base(), &c->link, NULL);
        return 0;
    }
    int fd = -1;
    int rc = lab_ps_fd_recv(ctl->fd, 5000, &fd, err);
    if (rc) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    lab_net_conn_close(out);
    lab_net_conn_init_local(out, fd, &c->link, NULL);
    return 0;
}

int lab_ps_rank_of(const struct ps_cfg *c, int role, int index)
{
    return role == 0 ? 1 + index : 1 + c->servers + index;
}

void lab_ps_child_log(struct lab_net_conn *ctl, int level, int worker, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    struct lab_net_part part = {line, len};
    struct core_err e;
    lab_net_send(ctl, PS_MSG_LOG, level, worker, &part, 1, 5000, &e);
}

int lab_ps_fd_send(int sock, int fd, struct core_err *err)
{
    char byte = 'F';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    for (;;) {
        ssize_t r = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (r == 1)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        return core_err_set(err, CORE_ERR_IO, "passing a connection to a worker: %s",
                            r < 0 ? strerror(errno) : "short write");
    }
}

int lab_ps_fd_recv(int sock, int timeout_ms, int *fd, struct core_err *err)
{
    *fd = -1;
    double end = core_time_mono() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((end - core_time_mono()) * 1000);
        if (left <= 0)
            return core_err_set(err, CORE_ERR_LIMIT,
                                "no connection arrived from the master within %d ms", timeout_ms);
        struct pollfd p = {sock, POLLIN, 0};
        int pr = poll(&p, 1, left);
        if (pr < 0 && errno != EINTR)
            return core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
        if (pr <= 0)
            continue;
        char byte;
        struct iovec iov = {&byte, 1};
        union {
            struct cmsghdr h;
            char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr msg = {0};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = u.buf;
        msg.msg_controllen = sizeof u.buf;
        ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return core_err_set(err, CORE_ERR_IO, "the master closed its connection");
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                c->cmsg_len >= CMSG_LEN(sizeof(int)))
                memcpy(fd, CMSG_DATA(c), sizeof *fd);
        if (*fd < 0)
            return core_err_set(err, CORE_ERR_IO, "the master's message carried no connection");
        return 0;
    }
}
