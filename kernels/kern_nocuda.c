/*
 * kern_nocuda.c — the GPU entry points of a build without CUDA: each says so
 * in one line. Built only when CMake did not find nvcc (see CMakeLists.txt).
 */
#include "kernels/kernels.h"

bool kern_built_with_cuda(void)
{
    return false;
}

int kern_probe(struct kern_device *dev, struct core_err *err)
{
    (void)dev;
    return core_err_set(err, CORE_ERR_NOTFOUND,
                        "no GPU: this build has no CUDA (nvcc was not found at build time)");
}
