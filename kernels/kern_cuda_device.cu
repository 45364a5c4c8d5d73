/*
 * kern_cuda_device.cu — finding the CUDA device (built only with CUDA).
 */
#include "kernels/kernels.h"

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
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
        snprintf(why, sizeof why, "no GPU: no CUDA device found");
        probed = -1;
        return;
    }
    if (e != cudaSuccess) {
        snprintf(why, sizeof why, "no GPU: no usable NVIDIA driver (cudaGetDeviceCount: %s)",
                 cudaGetErrorString(e));
        probed = -1;
        return;
    }
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) {
        snprintf(why, sizeof why, "no GPU: cannot read device 0 (%s)", cudaGetErrorString(e));
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
    cudaDriverGetVersion(&found.driver_version);
    cudaRuntimeGetVersion(&found.runtime_version);
    probed = 1;
}

extern "C" int kern_probe(struct kern_device *dev, struct core_err *err)
{
    if (!probed)
        probe_once();
    if (probed < 0)
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s", why);
    if (dev)
        *dev = found;
    return 0;
}
