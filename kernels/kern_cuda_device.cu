/*
 * kern_cuda_device.cu — finding the CUDA device, and the error path every
 * CUDA call of the module takes (built only with CUDA).
 *
 * The probe tells the causes apart by what the runtime answers: a machine
 * with no NVIDIA driver at all makes cudaGetDeviceCount fail with
 * cudaErrorInsufficientDriver too (the runtime finds no driver library), so
 * that error means "too old" only when cudaDriverGetVersion reports a
 * driver (a version above 0); with 0 there is no driver. The words are
 * kern_probe_explain's (kern_probe.c).
 */
#include "kernels/kern_internal.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

static int probed; /* 0: not yet, 1: found, -1: none */
static struct kern_device found;
static char why[256];

extern "C" bool kern_built_with_cuda(void)
{
    return true;
}

static void probe_once(void)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = 0;
    cudaGetLastError(); /* a failed probe leaves nothing for a later check */
    char detail[160];
    snprintf(detail, sizeof detail, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e),
             cudaGetErrorName(e));
    if (e == cudaErrorInsufficientDriver) {
        kern_probe_explain(drv > 0 ? KERN_PROBE_OLD_DRIVER : KERN_PROBE_NO_DRIVER, drv, rt, NULL,
                           why, sizeof why);
        probed = -1;
        return;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
        kern_probe_explain(KERN_PROBE_NO_DEVICE, drv, rt, NULL, why, sizeof why);
        probed = -1;
        return;
    }
    if (e != cudaSuccess) {
        kern_probe_explain(KERN_PROBE_DRIVER_ERROR, drv, rt, detail, why, sizeof why);
        probed = -1;
        return;
    }
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(detail, sizeof detail, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        kern_probe_explain(KERN_PROBE_DEVICE_ERROR, drv, rt, detail, why, sizeof why);
        probed = -1;
        return;
    }
    memset(&found, 0, sizeof found);
    snprintf(found.name, sizeof found.name, "%.*s", (int)sizeof found.name - 1, p.name);
    found.index = 0;
    found.cc_major = p.major;
    found.cc_minor = p.minor;
    found.sm_count = p.multiProcessorCount;
    found.warp_size = p.warpSize;
    found.global_bytes = (long long)p.totalGlobalMem;
    found.l2_bytes = p.l2CacheSize;
    found.bus_width_bits = p.memoryBusWidth;
    found.smem_per_block = (long long)p.sharedMemPerBlock;
    int clk = 0; /* kHz; cudaDeviceProp.memoryClockRate is gone in CUDA 13 */
    if (cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0) == cudaSuccess && clk > 0) {
        found.mem_clock_khz = clk;
        found.peak_gbs = 2.0 * clk * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
    }
    cudaGetLastError(); /* an attribute this device does not report is no error later */
    found.driver_version = drv;
    found.runtime_version = rt;
    probed = 1;
}

extern "C" int kern_probe(struct kern_device *dev, struct core_err *err)
{
    char failed[256];
    if (kern_probe_failed(failed, sizeof failed))
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s", failed);
    if (!probed)
        probe_once();
    if (probed < 0)
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s", why);
    if (dev)
        *dev = found;
    return 0;
}

/* ---- the error path ----------------------------------------------------------- */

/* Errors that, by CUDA's documentation, leave the context unusable: "any
 * further CUDA work will return the same error". */
static bool sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

bool kern_cuda_error(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return false;
    cudaGetLastError(); /* clears a non-sticky error: the next launch check is about that launch */
    cudaError_t s = e;
    bool broken = sticky(e);
    if (!broken && e != cudaErrorNotReady) {
        /* an error not on the list may still have broken the context (a
         * newer toolkit's, or a fault reported by an unrelated call): then
         * the device cannot even be synchronised */
        s = cudaDeviceSynchronize();
        cudaGetLastError();
        broken = s != cudaSuccess && sticky(s);
    }
    if (broken) {
        char m[200];
        snprintf(m, sizeof m, "%s: %s (%s)", what ? what : "a CUDA call", cudaGetErrorString(s),
                 cudaGetErrorName(s));
        kern_probe_fail(m);
    }
    return broken;
}
