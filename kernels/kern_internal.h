/*
 * kern_internal.h — what the kernels module's own files share and nobody
 * else includes: the probe's causes and wording (kern_probe.c) and, for the
 * CUDA files only, the error path every CUDA call takes on failure
 * (kern_cuda_error, defined in kern_cuda_device.cu).
 */
#ifndef WB_KERN_INTERNAL_H
#define WB_KERN_INTERNAL_H

#include "kernels/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a probe found no usable GPU. */
enum kern_probe_cause {
    KERN_PROBE_NO_CUDA_BUILD, /* built without nvcc */
    KERN_PROBE_NO_DRIVER,     /* no CUDA driver library at all (driver version 0) */
    KERN_PROBE_OLD_DRIVER,    /* a driver older than the runtime this build carries */
    KERN_PROBE_NO_DEVICE,     /* a driver, and no device */
    KERN_PROBE_DRIVER_ERROR,  /* the driver answered with another error (detail says which) */
    KERN_PROBE_DEVICE_ERROR,  /* device 0 could not be read (detail) */
    KERN_PROBE_FAILED         /* a sticky error earlier in this process (detail) */
};

/* The one line kern_probe reports for `cause` into buf (n bytes), with the
 * CUDA versions the driver supports and the runtime is (12040 = 12.4; 0:
 * unknown) and a detail (the CUDA error, or the failure) where the cause
 * has one. Pure. */
void kern_probe_explain(enum kern_probe_cause cause, int driver_version, int runtime_version,
                        const char *detail, char *buf, size_t n);

/* Marks the GPU failed for the rest of the process: `what` (copied) is the
 * error that broke it. Only the first mark counts. Thread-safe. */
void kern_probe_fail(const char *what);

/* True, with kern_probe's line in buf, once kern_probe_fail was called. */
bool kern_probe_failed(char *buf, size_t n);

#ifdef __cplusplus
}

#ifdef __CUDACC__
#include <cuda_runtime.h>

/* The error path of every CUDA call in this module: clears the runtime's
 * last-error state (so a later launch check does not report this error
 * again) and, when the error broke the context — a sticky error, or one
 * that synchronising the device still reports — marks the GPU failed
 * (kern_probe_fail) with `what` and CUDA's words. Returns whether it did;
 * callers add "the GPU cannot be used again until Warpbench restarts" to
 * their message then. */
bool kern_cuda_error(cudaError_t e, const char *what);
#endif
#endif

#endif /* WB_KERN_INTERNAL_H */
