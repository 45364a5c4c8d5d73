/*
 * lab_ps_config.c — the parameter-server lab's configuration: every
 * parameter read and cross-checked into a struct ps_cfg (lab_ps.h) before
 * anything runs — the MPI ranks, the link, the straggler, compression and
 * the injected faults, what mode=allreduce allows, a link too slow for the
 * model, the work per step and the memory — with messages that name the
 * parameters; then, for the run, the hang timeout and the notes on
 * parameters the mode ignores.
 *
 * Uses the lab framework (lab_author.h: parameters, the MPI launcher's rank count)
 * and the small formats and course arithmetic (lab_ps_spec.c).
 */
#include "labs/paramserver/lab_ps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *lab_ps_mode_name(int m)
{
    static const char *const names[] = {"sync", "async", "ssp", "allreduce"};
    return names[m];
}

static int mode_of(const char *s)
{
    return strcmp(s, "async") == 0       ? PS_ASYNC
           : strcmp(s, "ssp") == 0       ? PS_SSP
           : strcmp(s, "allreduce") == 0 ? PS_ALLREDUCE
                                         : PS_SYNC;
}

/* "42 s", "3.5 minutes", "7.4 days". */
static void format_duration(double s, char *buf, size_t n)
{
    if (s < 120)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, n, "%.1f minutes", s / 60);
    else if (s < 2 * 86400.0)
        snprintf(buf, n, "%.1f hours", s / 3600);
    else
        snprintf(buf, n, "%.1f days", s / 86400);
}

/* "125 B", "3.2 kB", "40 MB" (then `per`). */
static void format_bytes(double b, const char *per, char *buf, size_t n)
{
    if (b < 1e3)
        snprintf(buf, n, "%.3g B%s", b, per);
    else if (b < 1e6)
        snprintf(buf, n, "%.3g kB%s", b / 1e3, per);
    else
        snprintf(buf, n, "%.3g MB%s", b / 1e6, per);
}

/* transport=mpi: the build has it, and the workers fit the job's ranks
 * (rank 0, the shards, then the workers): when `workers` is not set it is
 * what the ranks leave, else the two must agree. */
static int psm_cfg_mpi(const struct lab_params *p, struct ps_cfg *c, struct core_err *err)
{
    c->mpi = lab_mpi_params_use(p);
    if (!c->mpi)
        return 0;
    if (!lab_mpi_built())
        return core_err_set(err, CORE_ERR_INVALID,
                            "transport=mpi: this build has no Open MPI (install libopenmpi-dev "
                            "and openmpi-bin, then configure with -DWB_MPI=ON)");
    int ranks = 0;
    int rc = lab_mpi_ranks_given(p, &ranks, err);
    if (rc || ranks == 0)
        return rc;
    int fixed = 1 + c->servers;
    if (!lab_param_user_set(p, "workers")) {
        if (ranks - fixed < 1 || ranks - fixed > PS_MAX_WORKERS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "transport=mpi with %d ranks: rank 0 is the master and %d %s, "
                                "which leaves %d worker%s (1 to %d)",
                                ranks, c->servers,
                                c->servers == 1 ? "rank is the server shard"
                                                : "ranks are the server shards",
                                ranks - fixed, ranks - fixed == 1 ? "" : "s", PS_MAX_WORKERS);
        c->workers = ranks - fixed;
    } else if (fixed + c->workers != ranks) {
        return core_err_set(err, CORE_ERR_INVALID,
                            "transport=mpi: workers = %d and %d server shard%s take %d ranks with "
                            "the master, but the job has %d: leave 'workers' out (it is then what "
                            "the ranks leave) or change the number of ranks",
                            c->workers, c->servers, c->servers == 1 ? "" : "s", fixed + c->workers,
                            ranks);
    }
    return 0;
}

/* The parameters as they are, before any cross-check. */
static void psm_cfg_params(const struct lab_params *p, struct ps_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->mode = mode_of(lab_param_str(p, "mode"));
    c->model = strcmp(lab_param_str(p, "model"), "linear") == 0 ? PS_LINEAR : PS_LOGISTIC;
    c->workers = (int)lab_param_num(p, "workers");
    c->servers = (int)lab_param_num(p, "servers");
    c->params = (int64_t)lab_param_num(p, "params");
    c->hot = c->params < PS_HOT ? (int)c->params : PS_HOT;
    c->nnz = lab_ps_model_nnz(c->params, lab_param_num(p, "sparsity"));
    c->batch = (int)lab_param_num(p, "batch");
    c->steps = (int64_t)lab_param_num(p, "steps");
    c->lr = lab_param_num(p, "lr");
    c->compute_s = lab_param_num(p, "compute_ms") / 1000.0;
    c->link.latency_s = lab_param_num(p, "latency_ms") / 1000.0;
    c->staleness = (int)lab_param_num(p, "staleness");
    c->checkpoint_every = (int)lab_param_num(p, "checkpoint_every");
    c->recover = lab_param_num(p, "recover") != 0;
    c->trace = lab_param_num(p, "trace") != 0;
    c->seed = (uint64_t)lab_param_num(p, "seed");
    c->server_nic_shared = strcmp(lab_param_str(p, "server_nic"), "shared") == 0;
    if (c->mode == PS_ALLREDUCE)
        c->servers = 0;
}

/* The straggler, compression and the injected faults. */
static int psm_cfg_faults(const struct lab_params *p, struct ps_cfg *c, struct core_err *err)
{
    int rc = lab_param_straggler(p, c->workers, &c->straggler, err);
    if (rc == 0)
        rc = lab_ps_compress_parse(lab_param_str(p, "compress"), &c->comp, &c->topk_frac, err);
    if (rc == 0)
        rc = lab_ps_kill_parse(lab_param_str(p, "kill_worker"), "kill_worker", c->workers, c->steps,
                               &c->kill_worker, &c->kill_worker_step, err);
    if (rc == 0)
        rc = lab_ps_kill_parse(lab_param_str(p, "kill_server"), "kill_server",
                               c->mode == PS_ALLREDUCE ? PS_MAX_SERVERS : c->servers, c->steps,
                               &c->kill_server, &c->kill_server_step, err);
    if (rc == 0)
        rc = lab_ps_kill_parse(lab_param_str(p, "stop_worker"), "stop_worker", c->workers, c->steps,
                               &c->stop_worker, &c->stop_worker_step, err);
    if (rc == 0)
        rc = lab_ps_kill_parse(lab_param_str(p, "stop_server"), "stop_server",
                               c->mode == PS_ALLREDUCE ? PS_MAX_SERVERS : c->servers, c->steps,
                               &c->stop_server, &c->stop_server_step, err);
    if (rc)
        return rc;

    if (c->kill_worker >= 0 && c->workers == 1)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kill_worker with workers = 1 leaves no worker to go on training: "
                            "set workers to 2 or more");
    if (c->stop_worker >= 0 && c->workers == 1)
        return core_err_set(err, CORE_ERR_INVALID,
                            "stop_worker with workers = 1 leaves no worker to go on training "
                            "once the hung one is dropped: set workers to 2 or more");
    return 0;
}

/* What mode=allreduce allows (no server), and the shards' keys and
 * connections otherwise. */
static int psm_cfg_mode(const struct lab_params *p, const struct ps_cfg *c, struct core_err *err)
{
    if (c->mode == PS_ALLREDUCE) {
        if (lab_param_user_set(p, "servers"))
            return core_err_set(err, CORE_ERR_INVALID,
                                "mode=allreduce has no parameter server: the workers sum their "
                                "gradients among themselves with a ring all-reduce, so 'servers' "
                                "does not apply (leave it out, or pick mode=sync|async|ssp)");
        if (c->comp != PS_COMP_NONE)
            return core_err_set(
                err, CORE_ERR_INVALID,
                "'compress' applies to pushes to a parameter server; mode=allreduce "
                "sums dense gradients (use compress=none)");
        if (c->kill_server >= 0 || c->stop_server >= 0)
            return core_err_set(err, CORE_ERR_INVALID,
                                "'%s' needs a server: mode=allreduce has none",
                                c->kill_server >= 0 ? "kill_server" : "stop_server");
    } else {
        if (c->servers > c->params)
            return core_err_set(err, CORE_ERR_INVALID,
                                "servers = %d is more than params = %lld: every shard needs at "
                                "least one key",
                                c->servers, (long long)c->params);
        if ((int64_t)c->workers * c->servers > PS_MAX_CONNS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "workers x servers = %d connections; at most %d (each worker "
                                "talks to every shard)",
                                c->workers * c->servers, PS_MAX_CONNS);
    }
    return 0;
}

/* A link on which one step would take longer than PS_MAX_STEP_LINK_S is
 * refused, with what it would take. */
static int psm_cfg_link(const struct lab_params *p, const struct ps_cfg *c, struct core_err *err)
{
    double link_s = lab_ps_step_link_s(c);
    if (link_s > PS_MAX_STEP_LINK_S) {
        /* (kept under the 255 characters of an error message) */
        char took[32], rate[32], head[160];
        format_duration(link_s, took, sizeof took);
        char slice[32];
        format_bytes(c->link.bytes_per_s, "/s", rate, sizeof rate);
        format_bytes(4.0 * ceil((double)c->params / (c->servers > 0 ? c->servers : 1)), "", slice,
                     sizeof slice);
        snprintf(head, sizeof head, "parameter 'link' = %.16s (%s) is too slow for params = %lld",
                 lab_param_str(p, "link"), rate, (long long)c->params);
        if (c->mode == PS_ALLREDUCE)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: a ring all-reduce over %d workers takes about %s per step, "
                                "over the %.0f s allowed; raise 'link' or lower 'params'",
                                head, c->workers, took, PS_MAX_STEP_LINK_S);
        if (c->server_nic_shared)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s with server_nic=shared: %d workers' pulls queue on a shard's "
                                "link, about %s per step, over the %.0f s allowed; raise 'link', "
                                "lower 'params' or use server_nic=per_link",
                                head, c->workers, took, PS_MAX_STEP_LINK_S);
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: a step's pull and push (%s each way per connection) take "
                            "about %s on the link, over the %.0f s allowed; raise 'link', lower "
                            "'params' or add 'servers'",
                            head, slice, took, PS_MAX_STEP_LINK_S);
    }
    return 0;
}

/* recover needs checkpoints; a step's work and the memory must fit. */
static int psm_cfg_limits(const struct ps_cfg *c, struct core_err *err)
{
    if (c->recover && c->mode != PS_ALLREDUCE && c->checkpoint_every == 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "recover=on restarts a dead shard from its last checkpoint: set "
                            "checkpoint_every above 0");
    double work = (double)c->batch * (double)c->nnz;
    if (work > PS_MAX_NNZ_WORK)
        return core_err_set(err, CORE_ERR_INVALID,
                            "batch x non-zero features per example = %d x %lld = %.3g per worker "
                            "step, over the %.0g this lab allows (each step would take seconds of "
                            "CPU): lower 'batch' or raise 'sparsity'",
                            c->batch, (long long)c->nnz, work, PS_MAX_NNZ_WORK);

    /* Memory: each worker keeps weights, gradient, the connections' two
     * message buffers (x2 more with top-k's residual); the shards their
     * slices, sums, checkpoints and each connection's buffers; the master
     * checkpoints and the final weights. */
    double P = 4.0 * (double)c->params, Wd = c->workers;
    double need = Wd * P * (4 + (c->comp == PS_COMP_TOPK ? 2 : 0)) +
                  (c->mode != PS_ALLREDUCE ? Wd * P * (c->mode == PS_SYNC ? 2 : 4) + 4 * P : 0) +
                  3 * P;
    double mem = (double)lab_machine_mem_bytes();
    if (mem > 0 && need > mem / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "params = %lld with workers = %d needs about %.0f MiB of memory, more "
                            "than half of this machine's %.0f MiB: lower 'params' or 'workers'",
                            (long long)c->params, c->workers, need / 1048576.0, mem / 1048576.0);
    return 0;
}

int lab_ps_cfg(const struct lab_params *p, struct ps_cfg *c, struct core_err *err)
{
    psm_cfg_params(p, c);
    int rc = psm_cfg_mpi(p, c, err);
    if (rc)
        return rc;
    rc = lab_net_link_parse(lab_param_str(p, "link"), &c->link.bytes_per_s, err);
    if (rc)
        return core_err_prefix(err, "parameter 'link'");
    if ((rc = psm_cfg_faults(p, c, err)) != 0 || (rc = psm_cfg_mode(p, c, err)) != 0 ||
        (rc = psm_cfg_link(p, c, err)) != 0)
        return rc;
    return psm_cfg_limits(c, err);
}

int lab_ps_check(const struct lab_params *p, struct core_err *err)
{
    struct ps_cfg c;
    return lab_ps_cfg(p, &c, err);
}

void lab_ps_cfg_run(struct lab_ctx *cx, struct ps_cfg *c)
{
    /* the hang timeout: a silent worker (dropped from a sync barrier, or the
     * slowest in async/ssp) or shard is ended after 5 s plus twenty of the
     * expected steps, unless hang_timeout_ms says otherwise */
    double comm = lab_ps_step_link_s(c); /* server_nic=shared: the queue of replies too */
    double expect = c->compute_s * c->straggler.factor + comm + 4 * c->link.latency_s +
                    (double)c->batch * (double)c->nnz * 2e-8;
    c->sync_timeout_ms = (int)(1000 * lab_hang_limit_s(expect)); /* the shared rule */
    double hang_ms = lab_param_num(lab_ctx_params(cx), "hang_timeout_ms");
    if (hang_ms > 0)
        c->sync_timeout_ms = (int)hang_ms;

    if (lab_param_user_set(lab_ctx_params(cx), "staleness") && c->mode != PS_SSP)
        lab_log(cx, LAB_LOG_WARN, "staleness = %d applies to mode=ssp only; mode=%s ignores it",
                c->staleness, lab_ps_mode_name(c->mode));
    if (c->mode == PS_ALLREDUCE) {
        static const char *const shard_only[] = {"checkpoint_every", "recover", "server_nic"};
        for (size_t i = 0; i < sizeof shard_only / sizeof shard_only[0]; i++) {
            if (lab_param_user_set(lab_ctx_params(cx), shard_only[i]))
                lab_log(cx, LAB_LOG_WARN,
                        "%s applies to server shards; mode=allreduce has none and ignores it",
                        shard_only[i]);
        }
    }
    const struct lab_machine *mach = lab_ctx_machine(cx);
    lab_log(cx, LAB_LOG_INFO,
            "%s: %d workers, %d server shard%s, %lld parameters (%lld non-zero features per "
            "example), link %s, compute %.0f ms per step",
            lab_ps_mode_name(c->mode), c->workers, c->servers, c->servers == 1 ? "" : "s",
            (long long)c->params, (long long)c->nnz, lab_param_str(lab_ctx_params(cx), "link"),
            c->compute_s * 1000);
    if (mach->cores_online > 0 && c->compute_s == 0 && c->workers + c->servers > mach->cores_online)
        lab_log(cx, LAB_LOG_INFO,
                "%d processes share %d cores: with compute_ms = 0 they compete for the CPU",
                c->workers + c->servers, mach->cores_online);
    if (c->mode == PS_ALLREDUCE && c->workers == 1)
        lab_log(cx, LAB_LOG_INFO, "one worker: nothing to all-reduce (bus bandwidth 0)");
}
