/*
 * kern_dnnl_gemm.c — FP32 and INT8 matrix multiply through oneDNN (Debian's
 * libdnnl-dev), the library the quantize lab measures our kernels against.
 * Built only when CMake found its headers (WB_HAVE_DNNL);
 * kern_nodnnl_gemm.c stands in for it otherwise.
 *
 * dnnl_sgemm and dnnl_gemm_s8s8s32 are oneDNN's BLAS-like entry points:
 * row-major, C = alpha·A·B + beta·C, the INT8 one with zero points (0 here)
 * and an int32 result. Debian builds oneDNN on OpenMP, so the thread count
 * is OpenMP's: omp_set_num_threads before each call.
 *
 * The library is opened with dlopen on first use, not linked: linked, it
 * (with the OpenMP runtime) added about 12 ms to every start of the binary
 * on the development VM, for every command; loaded, only a quantize run
 * pays, and a binary copied to a machine without it still starts and says
 * so. The soname comes from the headers this was compiled with.
 */
#include "kernels/kernels.h"

#include <oneapi/dnnl/dnnl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define DNNL_SONAME "libdnnl.so." STR(DNNL_VERSION_MAJOR)

typedef const dnnl_version_t *(*fn_version)(void);
typedef dnnl_cpu_isa_t (*fn_isa)(void);
typedef dnnl_status_t (*fn_sgemm)(char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float,
                                  const float *, dnnl_dim_t, const float *, dnnl_dim_t, float,
                                  float *, dnnl_dim_t);
typedef dnnl_status_t (*fn_s8)(char, char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float,
                               const int8_t *, dnnl_dim_t, int8_t, const int8_t *, dnnl_dim_t,
                               int8_t, float, int32_t *, dnnl_dim_t, const int32_t *);
typedef void (*fn_threads)(int);

static struct {
    int state; /* 0: not tried, 1: loaded, -1: not found */
    char why[256];
    fn_version version;
    fn_isa isa;
    fn_sgemm sgemm;
    fn_s8 s8;
    fn_threads threads; /* OpenMP's omp_set_num_threads, from oneDNN's runtime */
} dl;

static void dnnl_load(void)
{
    void *h = dlopen(DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(dl.why, sizeof dl.why, "no oneDNN: cannot load %s (%s)", DNNL_SONAME, e ? e : "?");
        dl.state = -1;
        return;
    }
    dl.version = (fn_version)dlsym(h, "dnnl_version");
    dl.isa = (fn_isa)dlsym(h, "dnnl_get_effective_cpu_isa");
    dl.sgemm = (fn_sgemm)dlsym(h, "dnnl_sgemm");
    dl.s8 = (fn_s8)dlsym(h, "dnnl_gemm_s8s8s32");
    dl.threads = (fn_threads)dlsym(h, "omp_set_num_threads"); /* NULL: not an OpenMP build */
    if (!dl.version || !dl.isa || !dl.sgemm || !dl.s8) {
        snprintf(dl.why, sizeof dl.why, "no oneDNN: %s lacks a function this build uses",
                 DNNL_SONAME);
        dl.state = -1;
        return; /* the handle stays open: dlclose could unmap a library still in use */
    }
    dl.state = 1;
}

static int dnnl_ready(struct core_err *err)
{
    if (dl.state == 0)
        dnnl_load();
    if (dl.state < 0)
        return core_err_set(err, CORE_ERR_IO, "%s", dl.why);
    return 0;
}

static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch ((int)isa) {
    case dnnl_cpu_isa_sse41:
        return "sse41";
    case dnnl_cpu_isa_avx:
        return "avx";
    case dnnl_cpu_isa_avx2:
        return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
        return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
        return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
        return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
        return "avx512_core_bf16, with vnni";
    case dnnl_cpu_isa_avx512_core_amx:
        return "avx512_core_amx";
    default:
        return "other";
    }
}

bool kern_dnnl_probe(char *version, size_t size)
{
    struct core_err e;
    bool ok = dnnl_ready(&e) == 0;
    if (version && size) {
        if (!ok) {
            snprintf(version, size, "%s", dl.why);
        } else {
            const dnnl_version_t *v = dl.version();
            snprintf(version, size, "oneDNN %d.%d.%d (CPU ISA: %s)", v->major, v->minor, v->patch,
                     isa_name(dl.isa()));
        }
    }
    return ok;
}

static void set_threads(int threads)
{
    if (!dl.threads)
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    dl.threads(threads > 0 ? threads : (int)(cores > 0 ? cores : 1));
}

int kern_dnnl_gemm_f32(int threads, const float *A, const float *B, float *C, int m, int k, int n,
                       struct core_err *err)
{
    int rc = dnnl_ready(err);
    if (rc != 0)
        return rc;
    set_threads(threads);
    dnnl_status_t st = dl.sgemm('N', 'N', m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
    if (st != dnnl_success)
        return core_err_set(err, CORE_ERR_IO,
                            "oneDNN dnnl_sgemm (%d x %d x %d) failed with status %d", m, k, n,
                            (int)st);
    return 0;
}

int kern_dnnl_gemm_s8(int threads, const int8_t *A, const int8_t *B, int32_t *C, int m, int k,
                      int n, struct core_err *err)
{
    int rc = dnnl_ready(err);
    if (rc != 0)
        return rc;
    set_threads(threads);
    const int32_t co = 0;
    dnnl_status_t st = dl.s8('N', 'N', 'F', m, n, k, 1.0f, A, k, 0, B, n, 0, 0.0f, C, n, &co);
    if (st != dnnl_success)
        return core_err_set(err, CORE_ERR_IO,
                            "oneDNN dnnl_gemm_s8s8s32 (%d x %d x %d) failed with status %d", m, k,
                            n, (int)st);
    return 0;
}
