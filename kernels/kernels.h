/*
 * kernels.h — GPU kernels with a plain C ABI, and the CPU reference of each.
 *
 * The only header of the kernels module and the only interface to CUDA: no
 * other module includes a CUDA header. Everything here is callable whether
 * or not the build has CUDA: without it (or without a driver or a device)
 * kern_probe() says why in one line and every GPU entry point returns
 * CORE_ERR_IO with that reason, so a lab can fall back to its CPU analog.
 *
 * Files: kern_*.c are plain C and always built (the CPU references, the
 * model code that runs anywhere); kern_cuda_*.cu are built only when CMake
 * found nvcc (WB_HAVE_CUDA); kern_nocuda*.c are built only when it did not and
 * define the same GPU entry points as "this build has no CUDA" errors. No
 * #ifdef WB_HAVE_CUDA is needed anywhere.
 *
 * Threads: a GPU entry point may be called from any thread, one call at a
 * time per process (labs run one at a time). Each call allocates what it
 * needs and frees it before returning, also on every error path.
 *
 * Uses core (errors).
 */
#ifndef WB_KERNELS_H
#define WB_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "core/core.h"

/* ---- the device ------------------------------------------------------------ */

struct kern_device {
    char name[160];          /* "NVIDIA H200" */
    int index;               /* CUDA device ordinal used (0) */
    int cc_major, cc_minor;  /* compute capability, e.g. 9.0 */
    int sm_count;
    int warp_size;           /* 32 */
    long long global_bytes;  /* device memory */
    long long l2_bytes;
    int bus_width_bits;      /* memory bus width */
    double mem_clock_khz;    /* 0 when the runtime does not report it */
    double peak_gbs;         /* 2 * clock * bus / 8 when known, else 0 */
    long long smem_per_block;
    int driver_version, runtime_version; /* 12040 = 12.4 */
};

/* Whether this build was compiled with CUDA (false: kern_nocuda.c). */
bool kern_built_with_cuda(void);

/* Finds the first CUDA device. 0 and *dev filled when one is usable;
 * CORE_ERR_NOTFOUND with one clear line otherwise: "no GPU: this build has no
 * CUDA (nvcc was not found at build time)", "no GPU: no NVIDIA driver
 * (cudaGetDeviceCount: ...)", "no GPU: no CUDA device found". Cheap after the
 * first call (the answer is cached for the process). */
int kern_probe(struct kern_device *dev, struct core_err *err);

/* ---- coalescing lab (kern_coalesce*.c, kern_cuda_coalesce.cu) ------------- */
/* (declarations added by the coalescing lab) */

/* ---- k-means lab (kern_kmeans*.c, kern_cuda_kmeans.cu) -------------------- */
/* (declarations added by the k-means lab) */

#ifdef __cplusplus
}
#endif

#endif /* WB_KERNELS_H */
