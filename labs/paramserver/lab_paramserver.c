/*
 * lab_paramserver.c — lab "paramserver": S server shards and W worker
 * processes train logistic (or linear) regression by minibatch SGD in one of
 * four modes — sync (a barrier each step), async (apply on arrival), ssp
 * (bounded staleness) and allreduce (no server: a ring all-reduce of the
 * gradients) — over Unix-domain sockets with an emulated link, so the
 * course's communication arithmetic (pull + push = 2 x 4 B x params at the
 * link's rate, against the compute time) is measured rather than assumed.
 *
 * The master is four files: this one holds the lab's definition and the
 * run's outline; lab_ps_config.c reads and checks the parameters;
 * lab_ps_master.c starts the processes and their connections (lab_ps.h
 * says how they are wired) and runs the loop that gathers each worker's
 * step reports and each shard's statistics into live series, with the
 * fault handling (a dead worker: the others go on, or the ring stops; a
 * dead shard: the lab stops, or with recover=on the shard is restarted
 * from its last checkpoint, which the master keeps in memory; a hung
 * worker or shard — stop_worker/stop_server make one with SIGSTOP — is
 * ended with SIGKILL after the hang timeout and then handled as a dead one,
 * see psm_check_hangs); lab_ps_summary.c sets the summary figures the
 * lessons grade against.
 *
 * Timing figures leave out each worker's first step (connections warming,
 * the start-up barrier) when there are at least three.
 *
 * Figures (the lesson's table explains them all; the ones that need care):
 *   comm_fraction  (step_ms - compute_ms_mean) / step_ms, measured; waiting
 *                  for a barrier or the staleness bound counts as
 *                  communication, as in the course.
 *   pushpull_mb_s  (sync, async, ssp) the rate one data connection moves a
 *                  pull reply at: the replies' bytes (frames included)
 *                  over their time from the shard starting to send to the
 *                  worker holding the last byte, summed over the timed
 *                  steps, then the mean of the workers. Pushes carry the
 *                  same bytes the other way (uncompressed) but are not
 *                  timed: a send returns once the bytes are in the 4 MiB
 *                  socket buffer, long before the shard has them, which
 *                  would overstate the rate. Held time (barrier, bound) is
 *                  not in it. On an emulated link a reply is delivered no
 *                  earlier than its serialisation plus latency, so the
 *                  figure stays at or below link_mb_s; with link=off it is
 *                  comparable to `warpbench bench paramserver`'s raw
 *                  socketpair rate. Absent in allreduce (see busbw_gbs).
 *
 * Uses the lab framework (lab_author.h), the communication layer (lab_net.h)
 * and the shard/worker/model code (lab_ps.h).
 */
#include "labs/paramserver/lab_ps.h"

#include <stdlib.h>
#include <string.h>

/* ---- the run -------------------------------------------------------------------------- */

static int psm_run(struct lab_ctx *cx, struct core_err *err)
{
    struct psm *r = core_xcalloc(1, sizeof *r);
    bool relayed = false, mpi_up = false;
    int rc = lab_ps_cfg(lab_ctx_params(cx), &r->cfg, err);
    if (rc)
        goto out;
    struct ps_cfg *c = &r->cfg;
    r->cx = cx;
    r->ps = lab_ctx_procs(cx);
    for (int i = 0; i < PS_MAX_SERVERS; i++)
        lab_net_conn_init_local(&r->srv[i].ctl, -1, NULL, NULL);
    for (int i = 0; i < PS_MAX_WORKERS; i++)
        lab_net_conn_init_local(&r->wrk[i].ctl, -1, NULL, NULL);
    if (c->mpi && lab_mpi_env_rank() < 0) {
        /* a front end: Open MPI's mpirun runs the job, rank 0 reports here */
        relayed = true;
        rc = lab_mpi_launch(cx, 1 + c->servers + c->workers, err);
        goto out;
    }
    if (c->mpi) {
        rc = lab_mpi_init(err);
        if (rc)
            goto out;
        mpi_up = true;
        r->ranks = core_xcalloc((size_t)lab_mpi_size(), sizeof *r->ranks);
    }
    r->W = c->workers;
    r->S = c->servers;
    r->agg = core_xcalloc((size_t)c->steps, sizeof *r->agg);
    r->loss_by_step = core_xcalloc((size_t)c->steps, sizeof *r->loss_by_step);

    lab_ps_cfg_run(cx, c);
    lab_progress(cx, 0, "starting the processes");
    c->t0 = core_time_mono();
    rc = lab_ps_start(r, err);
    if (rc)
        goto out;
    rc = lab_ps_loop(r, err);
    if (rc)
        goto out;
    rc = lab_ps_final(r, err);
    if (rc)
        goto out;
    lab_progress(cx, 1, "done");
    if (c->kill_server >= 0 && r->restarts == 0)
        lab_log(cx, LAB_LOG_WARN,
                "kill_server = %d@%d did not fire: shard %d counts steps by the slowest worker "
                "still training (mode=%s), and that never reached step %d (the others had "
                "finished or died)",
                c->kill_server + 1, c->kill_server_step, c->kill_server + 1,
                lab_ps_mode_name(c->mode), c->kill_server_step);
    lab_ps_summary(r);
out:
    if (rc && rc != CORE_ERR_CANCELLED && r->next_emit > 0 && r->cx)
        lab_ps_summary(r); /* what was measured before it stopped */
    if (rc == 0 && !relayed)
        lab_ps_stop_children(r); /* otherwise lab_run kills them: a cancel must be quick */
    if (rc && lab_mpi_term_noted())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "Open MPI ended the job (rank 0 had SIGTERM from mpirun): another rank "
                          "died or mpirun was stopped; mpirun's own message names the rank");
    for (int i = 0; i < PS_MAX_SERVERS; i++) {
        lab_net_conn_close(&r->srv[i].ctl);
        free(r->ckpt[i]);
    }
    for (int i = 0; i < PS_MAX_WORKERS; i++)
        lab_net_conn_close(&r->wrk[i].ctl);
    if (mpi_up && !lab_mpi_term_noted()) {
        lab_mpi_end_all(); /* every rank lets go, whatever state it is in */
        lab_mpi_finish();
    } /* (else Open MPI is ending the job: record the run while it can) */
    free(r->agg);
    free(r->loss_by_step);
    free(r->final_w);
    free(r->ranks);
    free(r);
    return rc;
}

/* ---- the definition ----------------------------------------------------------------------- */

static const struct lab_param_def psm_params[] = {
    {"mode", LAB_P_ENUM, "sync", NULL, 0, 0, "sync|async|ssp|allreduce", "",
     "sync: barrier each step; async: apply on arrival; ssp: bounded staleness; allreduce: ring"},
    {"workers", LAB_P_INT, "4", NULL, 1, PS_MAX_WORKERS, NULL, "", "worker processes"},
    {"servers", LAB_P_INT, "1", NULL, 1, PS_MAX_SERVERS, NULL, "",
     "server shards (keys split by range; not with allreduce)"},
    {"params", LAB_P_INT, "100000", NULL, 10, 10000000, NULL, "", "model parameters (floats)"},
    {"sparsity", LAB_P_REAL, "0.999", NULL, 0, 0.9999, NULL, "",
     "fraction of zero features per example (0: dense)"},
    {"batch", LAB_P_INT, "32", NULL, 1, 4096, NULL, "", "examples per worker step"},
    {"lr", LAB_P_REAL, "0.5", NULL, 1e-6, 1000, NULL, "", "learning rate of SGD"},
    {"steps", LAB_P_INT, "100", NULL, 1, 100000, NULL, "", "training steps per worker"},
    {"staleness", LAB_P_INT, "2", NULL, 0, 1000, NULL, "steps",
     "ssp: how many steps a worker may run ahead of the slowest"},
    {"compute_ms", LAB_P_REAL, "10", NULL, 0, 10000, NULL, "ms",
     "extra compute per step (emulates a bigger model; a sleep)"},
    {"link", LAB_P_STR, "1Gbps", NULL, 0, 0, NULL, "",
     "emulated link per connection: off, 100Mbps, 1Gbps, 10Gbps, ..."},
    {"latency_ms", LAB_P_REAL, "0", NULL, 0, 1000, NULL, "ms", "one-way latency of the link"},
    {"straggler", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "W:FACTOR: worker W (from 1) computes FACTOR times as long, 1 to 1000 (e.g. 2:3)"},
    {"compress", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "pushes: none, q8 (8-bit) or topk:F (largest fraction F, error feedback)"},
    {"checkpoint_every", LAB_P_INT, "10", NULL, 0, 100000, NULL, "steps",
     "shards send the master a checkpoint this often (0: never)"},
    {"seed", LAB_P_INT, "1", NULL, 0, 2147483647, NULL, "", "seed of the synthetic data"},
    {"model", LAB_P_ENUM, "logistic", NULL, 0, 0, "logistic|linear", "",
     "logistic or linear regression"},
    {"server_nic", LAB_P_ENUM, "per_link", NULL, 0, 0, "per_link|shared", "",
     "shared: a shard's replies share one outgoing link (its NIC)"},
    {"kill_worker", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP kills worker N at that step (SIGKILL)"},
    {"kill_server", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP kills server shard N at that step (SIGKILL)"},
    {"stop_worker", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP stops worker N at that step (SIGSTOP: a hang)"},
    {"stop_server", LAB_P_STR, "none", NULL, 0, 0, NULL, "",
     "fault: N@STEP stops server shard N at that step (SIGSTOP: a hang)"},
    {"hang_timeout_ms", LAB_P_REAL, "0", NULL, 0, 3600000, NULL, "ms",
     "a worker silent this long, or a shard half as long, is ended (0: 5 s + 20 steps)"},
    {"recover", LAB_P_BOOL, "off", NULL, 0, 0, NULL, "",
     "restart a dead or hung shard from its last checkpoint and go on"},
    {"trace", LAB_P_BOOL, "off", NULL, 0, 0, NULL, "",
     "also emit each worker's step clocks (trace_pull, trace_push)"},
    {"transport", LAB_P_ENUM, "local", NULL, 0, 0, "local|mpi", "",
     "local: processes on this machine; mpi: ranks of an Open MPI job"},
    {"hosts", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across hosts: NAME:SLOTS,... (Warpbench runs mpirun)"},
    {"hostfile", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across the hosts of an Open MPI hostfile"},
};

static const struct lab_series_def psm_series[] = {
    {"loss", "training loss (mean of the workers)", "", "loss vs steps", "step"},
    {"loss_time", "training loss (each worker's latest, mean)", "", "loss vs wall time",
     "wall time (ms)"},
    {"compute_ms", "compute per step", "ms", "time per step", "step"},
    {"comm_ms", "communication per step", "ms", "time per step", "step"},
    {"wait_ms", "held by barrier/staleness", "ms", "time per step", "step"},
    {"updates_per_s", "gradient updates per second", "/s", "updates per second", "wall time (ms)"},
    {"wire_s1", "shard 1", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s2", "shard 2", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s3", "shard 3", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s4", "shard 4", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s5", "shard 5", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s6", "shard 6", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s7", "shard 7", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"wire_s8", "shard 8", "MB/s", "wire MB/s per shard", "wall time (ms)"},
    {"staleness", "worker steps with this staleness", "", "staleness histogram",
     "staleness (steps)"},
    {"worker_compute_ms", "compute per step", "ms", "per worker", "worker"},
    {"worker_comm_ms", "communication per step", "ms", "per worker", "worker"},
    {"worker_wait_ms", "held per step", "ms", "per worker", "worker"},
};

/* Re-sent while the run goes on; front ends keep the latest per step. */
static const char *const psm_snapshot[] = {"staleness", "worker_compute_ms", "worker_comm_ms",
                                           "worker_wait_ms", NULL};

/* lab_def.mpi_workers: rank 0 and the shards take theirs (allreduce: none). */
static int psm_mpi_workers(const struct lab_params *p, int ranks)
{
    bool ring = strcmp(lab_param_str(p, "mode"), "allreduce") == 0;
    return ranks - 1 - (ring ? 0 : (int)lab_param_num(p, "servers"));
}

const struct lab_def lab_ps_def = {
    .name = "paramserver",
    .title = "Parameter server and all-reduce SGD",
    .summary = "sync/async/ssp SGD over server shards and worker processes on an emulated link, "
               "ring all-reduce to compare; stragglers, compression, faults",
    .params = psm_params,
    .n_params = sizeof psm_params / sizeof psm_params[0],
    .series = psm_series,
    .n_series = sizeof psm_series / sizeof psm_series[0],
    .check = lab_ps_check,
    .run = psm_run,
    .snapshot = psm_snapshot,
    .mpi_workers = psm_mpi_workers,
    .rank = lab_ps_mpi_rank_main,
};
