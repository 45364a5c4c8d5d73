/*
 * kern_nocuda_coalesce.c — the coalescing kernels' GPU entry points in a
 * build without CUDA: each fails with kern_probe's one line ("no GPU: this
 * build has no CUDA ..."). Built only when CMake did not find nvcc.
 */
#include "kernels/kernels.h"

static int no_gpu(struct core_err *err)
{
    struct core_err why;
    core_err_clear(&why);
    kern_probe(NULL, &why);
    return core_err_set(err, CORE_ERR_IO, "%s", why.msg);
}

int kern_coal_open(struct kern_coal **out, const struct kern_coal_opts *o,
                   struct kern_coal_info *info, struct core_err *err)
{
    (void)o;
    (void)info;
    if (out)
        *out = NULL;
    return no_gpu(err);
}

int kern_coal_measure(struct kern_coal *s, int kind, int param, int reps, struct kern_coal_meas *m,
                      struct core_err *err)
{
    (void)s;
    (void)m;
    (void)reps;
    int rc = kern_coal_param_check(kind, param, err);
    return rc != 0 ? rc : no_gpu(err);
}

int kern_coal_set_l2_fetch(struct kern_coal *s, int bytes, int *got, struct core_err *err)
{
    (void)s;
    (void)bytes;
    if (got)
        *got = -1;
    return no_gpu(err);
}

void kern_coal_close(struct kern_coal *s)
{
    (void)s;
}
