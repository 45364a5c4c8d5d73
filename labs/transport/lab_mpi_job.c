/*
 * lab_mpi_job.c — the start of an Open MPI job, written once for the
 * distributed labs (contracts in lab_mpi.h): rank 0 checks the job's size,
 * orders every rank to START with its part of the configuration, and both
 * sides align their clocks and exchange their hosts, which go into the
 * run's machine record and its log; a rank of a lab that starts once takes
 * its START, serves and waits for the END in lab_mpi_job_serve. Built with or without Open MPI (the
 * runtime's functions then say "this build has no Open MPI").
 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"

#include <stdlib.h>

#define LAB_MPI_ORDER_MS 10000 /* a rank takes its START order */
#define LAB_MPI_HOSTS_MAX 2048

int lab_mpi_job_start(struct lab_ctx *cx, int ranks, const char *needs,
                      void (*fill)(int rank, void *buf, void *ud), size_t start_size, void *ud,
                      struct lab_mpi_rankinfo *rankinfo, struct core_err *err)
{
    int size = lab_mpi_size();
    if (size != ranks)
        return core_err_set(err, CORE_ERR_INVALID, "the MPI job has %d ranks; %s", size, needs);
    void *buf = core_xcalloc(1, start_size ? start_size : 1);
    int rc = 0;
    for (int r = 1; r < size && rc == 0; r++) {
        fill(r, buf, ud);
        if ((rc = lab_mpi_order(r, LAB_MPI_START, 0, buf, start_size, LAB_MPI_ORDER_MS, err)))
            core_err_prefix(err, "starting rank %d", r);
    }
    free(buf);
    if (rc == 0)
        rc = lab_mpi_sync_clocks(err);
    char *hosts = core_xmalloc(LAB_MPI_HOSTS_MAX), ic[320];
    int n_hosts = 0;
    if (rc == 0)
        rc = lab_mpi_hosts(hosts, LAB_MPI_HOSTS_MAX, &n_hosts, ic, sizeof ic, rankinfo, err);
    if (rc == 0) {
        lab_ctx_set_hosts(cx, n_hosts, hosts, ic);
        lab_log(cx, LAB_LOG_INFO, "Open MPI job of %d ranks on %d host%s: %s", size, n_hosts,
                n_hosts == 1 ? "" : "s", hosts);
        lab_log(cx, LAB_LOG_INFO, "interconnect: %s", ic);
    }
    free(hosts);
    return rc;
}

int lab_mpi_job_started(struct core_err *err)
{
    int rc = lab_mpi_sync_clocks(err);
    if (rc == 0)
        rc = lab_mpi_hosts(NULL, 0, NULL, NULL, 0, NULL, err);
    return rc;
}

int lab_mpi_job_serve(size_t start_size, int (*serve)(const void *start, void *ud), void *ud,
                      struct core_err *err)
{
    int rc = lab_mpi_init(err);
    if (rc)
        return rc;
    bool started = false;
    for (;;) {
        struct lab_mpi_order o;
        rc = lab_mpi_next_order(&o, err);
        if (rc || o.kind == LAB_MPI_END) {
            lab_mpi_order_fini(&o);
            break;
        }
        if (o.kind != LAB_MPI_START || started || o.n != start_size) {
            lab_mpi_order_fini(&o);
            continue;
        }
        started = true;
        rc = lab_mpi_job_started(err);
        if (rc == 0)
            rc = serve(o.payload, ud);
        lab_mpi_order_fini(&o);
        if (rc)
            break;
    }
    lab_mpi_finish();
    return rc;
}
