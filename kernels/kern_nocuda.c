/*
 * kern_nocuda.c — the GPU entry points of a build without CUDA: each says so
 * in one line. Built only when CMake did not find nvcc (see CMakeLists.txt).
 */
#include "kernels/kern_internal.h"

bool kern_built_with_cuda(void)
{
    return false;
}

int kern_probe(struct kern_device *dev, struct core_err *err)
{
    (void)dev;
    char why[256];
    if (!kern_probe_failed(why, sizeof why)) /* only a test marks it in this build */
        kern_probe_explain(KERN_PROBE_NO_CUDA_BUILD, 0, 0, NULL, why, sizeof why);
    return core_err_set(err, CORE_ERR_NOTFOUND, "%s", why);
}
