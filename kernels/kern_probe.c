/*
 * kern_probe.c — what the probe says when there is no usable GPU, and the
 * process-wide "the GPU failed" mark (always built, plain C: the words are
 * tested without a GPU; kern_cuda_device.cu decides the cause from what the
 * CUDA runtime answered, kern_nocuda.c has only one cause).
 *
 * The failed mark: an error that breaks the CUDA context (an illegal
 * address, a kernel that faulted or timed out: a "sticky" error) leaves
 * every later CUDA call in this process failing the same way. The first one
 * seen is recorded here and kern_probe reports it from then on, so a lab run
 * later in the same TUI falls back to its CPU path with a line that says
 * why, instead of failing again until the program is restarted.
 */
#include "kernels/kern_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int failed; /* 0, or 1 once why_failed holds the reason */
static char why_failed[200];

/* "12.4" from 12040; "unknown" for 0 or less. */
static void cuda_version_text(int v, char *buf, size_t n)
{
    if (v <= 0)
        snprintf(buf, n, "unknown");
    else
        snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
}

void kern_probe_explain(enum kern_probe_cause cause, int driver_version, int runtime_version,
                        const char *detail, char *buf, size_t n)
{
    char drv[16], rt[16];
    cuda_version_text(driver_version, drv, sizeof drv);
    cuda_version_text(runtime_version, rt, sizeof rt);
    if (!detail || !*detail)
        detail = "no details";
    switch (cause) {
    case KERN_PROBE_NO_CUDA_BUILD:
        snprintf(buf, n, "no GPU: this build has no CUDA (nvcc was not found at build time)");
        break;
    case KERN_PROBE_NO_DRIVER:
        snprintf(buf, n,
                 "no GPU: no NVIDIA driver is installed on this machine (the CUDA driver "
                 "library was not found)");
        break;
    case KERN_PROBE_OLD_DRIVER:
        snprintf(buf, n,
                 "no GPU: the NVIDIA driver is too old for this build: it supports CUDA %s, "
                 "this build's runtime is CUDA %s (update the driver)",
                 drv, rt);
        break;
    case KERN_PROBE_NO_DEVICE:
        snprintf(buf, n,
                 "no GPU: no CUDA device found (the NVIDIA driver, for CUDA %s, is installed)",
                 drv);
        break;
    case KERN_PROBE_DRIVER_ERROR:
        snprintf(buf, n, "no GPU: the NVIDIA driver (CUDA %s) could not be used: %s", drv, detail);
        break;
    case KERN_PROBE_DEVICE_ERROR:
        snprintf(buf, n, "no GPU: cannot read device 0: %s", detail);
        break;
    case KERN_PROBE_FAILED:
        snprintf(buf, n,
                 "no GPU: the GPU failed earlier in this session (%s) and cannot be used again "
                 "until Warpbench restarts",
                 detail);
        break;
    default:
        snprintf(buf, n, "no GPU: %s", detail);
        break;
    }
}

void kern_probe_fail(const char *what)
{
    int expect = 0;
    /* the first failure is the one to report; 2 marks "being written" */
    if (!atomic_compare_exchange_strong(&failed, &expect, 2))
        return;
    snprintf(why_failed, sizeof why_failed, "%s", what && *what ? what : "a CUDA error");
    atomic_store(&failed, 1);
}

bool kern_probe_failed(char *buf, size_t n)
{
    int f = atomic_load(&failed);
    if (f == 0)
        return false;
    kern_probe_explain(KERN_PROBE_FAILED, 0, 0, f == 1 ? why_failed : "a CUDA error", buf, n);
    return true;
}
