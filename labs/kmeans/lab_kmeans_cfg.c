/*
 * lab_kmeans_cfg.c — the k-means lab's configuration: its parameters read
 * and cross-checked into a struct km_cfg (lab_kmeans.h) before anything
 * runs — the points file's shape (a CSV file is read through, so a bad line
 * is reported with its line), k and tasks against n, init and init_file,
 * the MPI ranks, the straggler, what device=gpu allows, and what fits in
 * memory — so the check (`lab_params_check`) and the run resolve the same
 * way.
 *
 * Uses the lab framework (lab_author.h: parameters, the MPI launcher's rank count)
 * and the points loaders (lab_kmeans_data.c).
 */
#include "labs/kmeans/lab_kmeans.h"
#include "labs/transport/lab_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* For the run (deep = false) a CSV file's shape is counted, not parsed:
 * the check parsed it moments ago, and the load reports any change. The
 * count streams the file (no copy of it in memory) and asks `stop`. */
static int km_file_shape(const char *path, enum km_format fmt, const char *what, int d_in,
                         bool deep, bool (*stop)(void *), void *ud, size_t *n, int *d,
                         struct core_err *err)
{
    if (deep || fmt == KM_FMT_F32)
        return lab_km_points_read(path, fmt, what, d_in, NULL, 0, n, d, NULL, NULL, err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "kmeans: %s '%s': %s", what, path, strerror(errno));
    enum { CHUNK = 1 << 20 };
    char *buf = core_xmalloc(CHUNK);
    size_t lines = 0;
    int cols = 1, rc = 0;
    bool header = true, blank = true;
    for (;;) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = core_err_set(err, CORE_ERR_IO, "kmeans: %s '%s': %s", what, path, strerror(errno));
            goto out;
        }
        /* at the end of the file, one more '\n' ends a last line without one */
        ssize_t len = got > 0 ? got : 1;
        for (ssize_t i = 0; i < len; i++) {
            char ch = got > 0 ? buf[i] : '\n';
            if (ch == '\n') {
                if (header)
                    header = false;
                else if (!blank)
                    lines++;
                blank = true;
                continue;
            }
            if (header && ch == ',')
                cols++;
            if (ch != ' ' && ch != '\t' && ch != '\r')
                blank = false;
        }
        if (got == 0)
            break;
        if (stop && stop(ud)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
    }
    *n = lines;
    *d = cols;
out:
    free(buf);
    close(fd);
    return rc;
}

/* transport=mpi: the build has it, the map runs on the CPU, and the
 * workers are the job's ranks but rank 0 (when `workers` is not set; else
 * the two must agree). */
static int km_resolve_mpi(const struct lab_params *p, struct km_cfg *c, struct core_err *err)
{
    c->mpi = lab_mpi_params_use(p);
    if (!c->mpi)
        return 0;
    if (!lab_mpi_built())
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: transport=mpi: this build has no Open MPI (install "
                            "libopenmpi-dev and openmpi-bin, then configure with -DWB_MPI=ON)");
    if (c->gpu)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: transport=mpi runs the map on the ranks' CPUs: use "
                            "device=cpu with it");
    int ranks = 0;
    int rc = lab_mpi_ranks_given(p, &ranks, err);
    if (rc || ranks == 0)
        return rc;
    if (!lab_param_user_set(p, "workers")) {
        if (ranks < 2 || ranks - 1 > KM_MAX_WORKERS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: transport=mpi with %d rank%s: rank 0 is the master and "
                                "the others the workers (2 to %d ranks)",
                                ranks, ranks == 1 ? "" : "s", KM_MAX_WORKERS + 1);
        c->workers = ranks - 1;
    } else if (c->workers + 1 != ranks) {
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: transport=mpi: workers = %d with the master take %d ranks, "
                            "but the job has %d: leave 'workers' out (it is then the ranks but "
                            "one) or change the number of ranks",
                            c->workers, c->workers + 1, ranks);
    }
    return 0;
}

/* The parameters as they are, before any cross-check. */
static void km_cfg_params(const struct lab_params *p, struct km_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->n = (size_t)lab_param_num(p, "n");
    c->d = (int)lab_param_num(p, "d");
    c->k = (int)lab_param_num(p, "k");
    c->seed = (uint64_t)lab_param_num(p, "seed");
    c->spread = lab_param_num(p, "spread");
    c->file = lab_param_str(p, "file");
    c->init_file = lab_param_str(p, "init_file");
    c->workers = (int)lab_param_num(p, "workers");
    c->tasks = (int)lab_param_num(p, "tasks");
    c->combiner = lab_param_num(p, "combiner") != 0;
    c->max_iter = (int)lab_param_num(p, "max_iter");
    c->tol = lab_param_num(p, "tol");
    c->crash = lab_param_num(p, "crash");
    c->gpu = strcmp(lab_param_str(p, "device"), "gpu") == 0;
    c->scale_iters = (int)lab_param_num(p, "scale_iters");
    c->save = lab_param_str(p, "save");
    c->overwrite = lab_param_num(p, "overwrite") != 0;
    const char *init = lab_param_str(p, "init");
    c->init = strcmp(init, "first") == 0  ? KM_INIT_FIRST
              : strcmp(init, "file") == 0 ? KM_INIT_FILE
                                          : KM_INIT_RANDOM;
}

/* The points: n and d from the file when there is one (its shape; deep:
 * every CSV line parsed), then k and tasks against n. */
static int km_cfg_points(const struct lab_params *p, struct km_cfg *c, bool deep,
                         bool (*stop)(void *), void *ud, struct core_err *err)
{
    int rc;
    const char *src = "", *from = "", *end = "";
    if (*c->file) {
        size_t nf = 0;
        int df = 0;
        if ((rc = lab_km_format_pick(c->file, lab_param_str(p, "format"), "file", &c->fmt, err)) !=
            0)
            return rc;
        if (c->fmt == KM_FMT_F32 && !lab_param_user_set(p, "d"))
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: file '%s' is raw float32, which does not say its "
                                "dimension: set d (--set d=N)",
                                c->file);
        if ((rc = km_file_shape(c->file, c->fmt, "file", c->d, deep, stop, ud, &nf, &df, err)) != 0)
            return rc;
        if (c->fmt == KM_FMT_CSV && lab_param_user_set(p, "d") && c->d != df)
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: d = %d, but file '%s' has %d columns (a CSV file sets d: "
                                "leave it unset or make it %d)",
                                c->d, c->file, df, df);
        if (df > KERN_KM_MAX_D)
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: file '%s' has %d dimensions; at "
                                "most %d are allowed",
                                c->file, df, KERN_KM_MAX_D);
        c->d = df;
        c->n_file = nf;
        if (lab_param_user_set(p, "n")) {
            if (c->n > nf)
                return core_err_set(err, CORE_ERR_INVALID,
                                    "kmeans: n = %zu, but file '%s' has only %zu points (n takes "
                                    "the first n; leave it unset to use them all)",
                                    c->n, c->file, nf);
        } else {
            c->n = nf;
        }
        if (c->n > KM_MAX_N)
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: file '%s' has %zu points; at most %d are used: set n",
                                c->file, c->n, KM_MAX_N);
        from = " (the points used from file '";
        src = c->file;
        end = "')";
    }
    if ((size_t)c->k > c->n)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: k = %d clusters need at least k points, but n = %zu%s%s%s",
                            c->k, c->n, from, src, end);
    if ((size_t)c->tasks > c->n)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: tasks = %d map tasks need at least one point each, but n = "
                            "%zu%s%s%s",
                            c->tasks, c->n, from, src, end);
    return 0;
}

/* init and init_file agree, and the file holds k centres of d. */
static int km_cfg_init(const struct lab_params *p, struct km_cfg *c, struct core_err *err)
{
    int rc;
    if (c->init == KM_INIT_FILE && !*c->init_file)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: init=file needs init_file=PATH (k centres: a CSV file with a "
                            "header, or raw float32)");
    if (c->init != KM_INIT_FILE && *c->init_file)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: init_file is set, but init = %s: set init=file to start from "
                            "it",
                            lab_param_str(p, "init"));
    if (c->init != KM_INIT_FILE)
        return 0;
    size_t nc = 0;
    int dc = 0;
    if ((rc = lab_km_format_pick(c->init_file, "auto", "init_file", &c->init_fmt, err)) != 0)
        return rc;
    if ((rc = lab_km_points_read(c->init_file, c->init_fmt, "init_file", c->d, NULL, 0, &nc, &dc,
                                 NULL, NULL, err)) != 0)
        return rc;
    if (dc != c->d)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: init_file '%s' has %d columns, but the points have d = %d",
                            c->init_file, dc, c->d);
    if (nc != (size_t)c->k)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: init_file '%s' holds %zu centres, but k = %d", c->init_file,
                            nc, c->k);
    if (c->init_fmt == KM_FMT_F32 &&
        (rc = lab_km_points_read(c->init_file, c->init_fmt, "init_file", c->d, NULL, nc, &nc, &dc,
                                 NULL, NULL, err)) != 0)
        return rc;
    return 0;
}

/* Where the workers run (the MPI ranks), the injected faults, and what
 * device=gpu allows. */
static int km_cfg_workers(const struct lab_params *p, struct km_cfg *c, struct core_err *err)
{
    int rc;
    if ((rc = km_resolve_mpi(p, c, err)) != 0)
        return rc;
    if ((rc = lab_param_straggler(p, c->workers, &c->strag, err)) != 0)
        return rc;
    if (c->gpu && (c->crash > 0 || c->strag.worker > 0))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: crash and straggler inject faults into CPU worker processes, "
                            "but device=gpu runs the map on the GPU: use device=cpu with them");
    if (c->gpu && !c->combiner)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: combiner=off needs device=cpu (the GPU map always adds up "
                            "its tasks' points on the device)");
    return 0;
}

/* The points and the master's per-task partials fit in half of mem_bytes
 * (0: unknown, not checked). */
static int km_cfg_memory(const struct km_cfg *c, long mem_bytes, struct core_err *err)
{
    double bytes = (double)c->n * ((double)c->d * 4 + 4);
    if (mem_bytes > 0 && bytes > (double)mem_bytes / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: n = %zu points of d = %d take %.0f MiB, more than half of "
                            "this machine's memory (%ld MiB)",
                            c->n, c->d, bytes / 1048576.0, mem_bytes / 1048576);
    /* the master's per-task partials: k sums of d doubles and k counts
     * per task (twice with a GPU: its copy too) */
    double part = (double)c->tasks * c->k * ((double)c->d + 1) * 8 * (c->gpu ? 2 : 1);
    if (mem_bytes > 0 && bytes + part > (double)mem_bytes / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: tasks = %d map tasks of k = %d partial sums of d = %d take "
                            "%.0f MiB (and the points %.0f MiB), more than half of this machine's "
                            "memory (%ld MiB): use fewer tasks",
                            c->tasks, c->k, c->d, part / 1048576.0, bytes / 1048576.0,
                            mem_bytes / 1048576);
    return 0;
}

int lab_km_cfg_read(const struct lab_params *p, long mem_bytes, bool deep, bool (*stop)(void *),
                    void *ud, struct km_cfg *c, struct core_err *err)
{
    int rc;
    km_cfg_params(p, c);
    if ((rc = km_cfg_points(p, c, deep, stop, ud, err)) != 0 ||
        (rc = km_cfg_init(p, c, err)) != 0 || (rc = km_cfg_workers(p, c, err)) != 0 ||
        (rc = km_cfg_memory(c, mem_bytes, err)) != 0)
        return rc;
    /* refused now, before anything runs, rather than after the whole run */
    if (*c->save && (rc = core_file_check_new(c->save, c->overwrite, KM_OVERWRITE_HOW, err)) != 0)
        return core_err_prefix(err, "kmeans: save");
    /* last, as the slowest: a float32 file's values, those the run uses (a
     * CSV file's were all read above) */
    if (deep && *c->file && c->fmt == KM_FMT_F32) {
        size_t nf = 0;
        int df = 0;
        if ((rc = lab_km_points_read(c->file, c->fmt, "file", c->d, NULL, c->n, &nf, &df, NULL,
                                     NULL, err)) != 0)
            return rc;
    }
    return 0;
}

int lab_km_cfg_resolve(const struct lab_params *p, long mem_bytes, struct km_cfg *c,
                       struct core_err *err)
{
    return lab_km_cfg_read(p, mem_bytes, true, NULL, NULL, c, err);
}

int lab_km_cfg_check(const struct lab_params *p, struct core_err *err)
{
    struct lab_machine m;
    struct km_cfg c;
    lab_machine_probe(&m);
    return lab_km_cfg_resolve(p, m.mem_bytes, &c, err);
}

/* Sets a numeric parameter's value as the run sees it, leaving whether the
 * user set it as it was. */
static void km_param_put(struct lab_params *p, const char *name, double v)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].def->name, name) == 0)
            p->v[i].num = v;
}

void lab_km_cfg_params_resolve(struct lab_params *p)
{
    struct km_cfg c;
    struct core_err err;
    if (!*lab_param_str(p, "file"))
        return;
    km_cfg_params(p, &c);
    if (km_cfg_points(p, &c, false, NULL, NULL, &err) != 0)
        return;
    km_param_put(p, "n", (double)c.n);
    km_param_put(p, "d", (double)c.d);
}
