/*
 * lab_nompi.c — the MPI runtime and transport when this build has no Open
 * MPI (CMake did not find it, or -DWB_MPI=OFF): the same functions as
 * lab_mpi.c and lab_net_mpi.c, saying so. transport=mpi is refused before a
 * run starts (lab_mpi_built), so none of these is reached by a lab run.
 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"
#include "labs/transport/lab_net.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static int no_mpi(struct core_err *err)
{
    return core_err_set(err, CORE_ERR_INVALID,
                        "this build has no Open MPI (install libopenmpi-dev and openmpi-bin, then "
                        "configure with -DWB_MPI=ON)");
}

bool lab_mpi_built(void)
{
    return false;
}

int lab_mpi_init(struct core_err *err)
{
    return no_mpi(err);
}

int lab_mpi_rank(void)
{
    return -1;
}

int lab_mpi_size(void)
{
    return -1;
}

int lab_mpi_sync_clocks(struct core_err *err)
{
    return no_mpi(err);
}

double lab_mpi_t_base(void)
{
    return 0;
}

double lab_mpi_t_start(void)
{
    return 0;
}

int lab_mpi_bcast(void *buf, size_t n, struct core_err *err)
{
    (void)buf, (void)n;
    return no_mpi(err);
}

int lab_mpi_workers_begin(struct core_err *err)
{
    return no_mpi(err);
}

void lab_mpi_workers_end(void)
{
}

int lab_mpi_allreduce(float *buf, size_t n, struct core_err *err)
{
    (void)buf, (void)n;
    return no_mpi(err);
}

int lab_mpi_pingpong(void *buf, size_t n, struct core_err *err)
{
    (void)buf, (void)n;
    return no_mpi(err);
}

int lab_mpi_order(int rank, int kind, int64_t a, const void *payload, size_t n, int timeout_ms,
                  struct core_err *err)
{
    (void)rank, (void)kind, (void)a, (void)payload, (void)n, (void)timeout_ms;
    return no_mpi(err);
}

void lab_mpi_end_all(void)
{
}

int lab_mpi_next_order(struct lab_mpi_order *o, struct core_err *err)
{
    memset(o, 0, sizeof *o);
    return no_mpi(err);
}

void lab_mpi_order_fini(struct lab_mpi_order *o)
{
    free(o->payload);
    memset(o, 0, sizeof *o);
}

bool lab_mpi_ended(void)
{
    return false;
}

int lab_mpi_epoch(void)
{
    return 0;
}

void lab_mpi_kill_self(void)
{
}

void lab_mpi_set_kill_hook(void (*hook)(void))
{
    (void)hook;
}

int lab_mpi_hosts(char *hosts, size_t hosts_size, int *n_hosts, char *interconnect, size_t ic_size,
                  struct lab_mpi_rankinfo *ranks, struct core_err *err)
{
    (void)hosts, (void)hosts_size, (void)n_hosts, (void)interconnect, (void)ic_size, (void)ranks;
    return no_mpi(err);
}

void lab_mpi_lose_request(void *req)
{
    (void)req;
}

void lab_mpi_defer_free(void *p)
{
    free(p); /* no MPI send can be reading it */
}

void lab_mpi_finish(void)
{
}

void lab_mpi_backoff_start(struct lab_mpi_backoff *b)
{
    b->n = 0;
    b->t0 = core_time_mono();
}

void lab_mpi_backoff_wait(struct lab_mpi_backoff *b)
{
    b->n++;
    sched_yield();
}

void lab_net_conn_init_mpi(struct lab_net_conn *c, int peer, int tag, double t_base,
                           const struct lab_net_link_cfg *link, atomic_int *cancel)
{
    (void)peer, (void)tag, (void)t_base;
    lab_net_conn_init_local(c, -1, link, cancel); /* closed */
}
