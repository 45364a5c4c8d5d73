#!/usr/bin/env bash
# gpu-check.sh — builds the coalescing kernels and a small driver with nvcc
# alone and runs it: every kernel checked against its CPU reference, then
# the table (GB/s; fractions of the copy kernel, of cudaMemcpy and of the
# datasheet; offset and stride sweeps beside the model; device name, L2,
# bus width) and the issue's goals.
#
# Needs only nvcc and a C compiler for it (no CMake, SQLite, Lua, curses or
# cmocka: a GPU machine may have none of them). Builds core/*.c,
# kernels/kern_*.c (not the no-CUDA stand-ins, and the oneDNN stand-in in
# place of oneDNN), kernels/kern_cuda_*.cu, kernels/kern_cublas.cu (cuBLAS
# is loaded at run time; without its header the no-cuBLAS stand-in) and
# kernels/check/gpu_check.c into $GPU_CHECK_BUILD (default build-gpucheck/).
#
#   scripts/gpu-check.sh                    # build for this GPU, run
#   scripts/gpu-check.sh --arch sm_90       # choose the architecture
#   scripts/gpu-check.sh --build-only       # compile and link, do not run
#   scripts/gpu-check.sh -- --reps 100 --mib 1024 --strict   # driver options
#   scripts/gpu-check.sh -- --gemm-n 8192   # cuBLAS SGEMM vs INT8 GemmEx size
#
# The architecture is the GPU's (nvidia-smi --query-gpu=compute_cap), else
# sm_90 (Hopper) with PTX for newer GPUs. Exit status: the driver's (0 all
# kernels correct, 1 a kernel failed, 3 --strict and a goal missed, 77 no
# GPU), or 2 when the build itself fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${GPU_CHECK_BUILD:-$ROOT/build-gpucheck}
ARCH=""
RUN=1
DRIVER_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) [ $# -ge 2 ] || { echo "gpu-check: --arch needs a value such as sm_90" >&2; exit 2; }
            ARCH=$2; shift 2 ;;
    --build-only) RUN=0; shift ;;
    --) shift; DRIVER_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown option '$1' (driver options go after --)" >&2; exit 2 ;;
  esac
done

NVCC=${NVCC:-}
if [ -z "$NVCC" ]; then
  NVCC=$(command -v nvcc || true)
  [ -n "$NVCC" ] || NVCC=/usr/local/cuda/bin/nvcc
fi
if [ ! -x "$NVCC" ]; then
  echo "gpu-check: nvcc not found (put the CUDA Toolkit's bin/ on PATH or set NVCC)" >&2
  exit 2
fi

if [ -z "$ARCH" ] && command -v nvidia-smi >/dev/null 2>&1; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .' || true)
  if [[ "$cc" =~ ^[0-9]+$ ]]; then ARCH=sm_$cc; fi
fi
if [ -n "$ARCH" ]; then
  [[ "$ARCH" =~ ^sm_[0-9]+a?$ ]] || { echo "gpu-check: --arch must look like sm_90, not '$ARCH'" >&2; exit 2; }
  num=${ARCH#sm_}
  GENCODE=(-gencode "arch=compute_${num},code=sm_${num}" -gencode "arch=compute_${num%a},code=compute_${num%a}")
  echo "gpu-check: building for $ARCH (with PTX)"
else
  GENCODE=(-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90)
  echo "gpu-check: no GPU architecture found (nvidia-smi): building for sm_90 with PTX"
fi

mkdir -p "$BUILD"
CDEFS=(-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$ROOT")
objs=()
compile() { # OPT SOURCE [nvcc flags...]
  local opt=$1 src=$2; shift 2
  local obj
  obj="$BUILD/$(basename "${src%.*}").o"
  "$NVCC" "$opt" "${CDEFS[@]}" "$@" -c "$src" -o "$obj" || { echo "gpu-check: failed to compile $src" >&2; exit 2; }
  objs+=("$obj")
}
shopt -s nullglob
for f in "$ROOT"/core/*.c; do compile -O2 "$f"; done
CUDA_HOME=$(cd "$(dirname "$NVCC")/.." && pwd)
HAVE_CUBLAS=0
[ -f "$CUDA_HOME/include/cublas_v2.h" ] && HAVE_CUBLAS=1
for f in "$ROOT"/kernels/kern_*.c; do
  case "$(basename "$f")" in
    kern_nocuda* | kern_dnnl*) continue ;;
    kern_nocublas*) [ "$HAVE_CUBLAS" -eq 1 ] && continue ;;
  esac
  compile -O2 "$f"
done
for f in "$ROOT"/kernels/kern_cuda_*.cu; do compile -O3 "$f" "${GENCODE[@]}" -lineinfo; done
if [ "$HAVE_CUBLAS" -eq 1 ]; then
  compile -O3 "$ROOT/kernels/kern_cublas.cu" "${GENCODE[@]}" -lineinfo \
    -DWB_CUBLAS_DIR="\"$CUDA_HOME/lib64\""
else
  echo "gpu-check: no cublas_v2.h in $CUDA_HOME/include: the cuBLAS check is left out"
fi
compile -O2 "$ROOT/kernels/check/gpu_check.c" -Xcompiler -Wall,-Wextra
"$NVCC" "${GENCODE[@]}" "${objs[@]}" -o "$BUILD/gpu_check" -lm -ldl ||
  { echo "gpu-check: failed to link" >&2; exit 2; }
echo "gpu-check: built $BUILD/gpu_check (${#objs[@]} objects)"
[ "$RUN" -eq 1 ] || exit 0

set +e
"$BUILD/gpu_check" "${DRIVER_ARGS[@]+"${DRIVER_ARGS[@]}"}"
rc=$?
set -e
case $rc in
  0) echo "gpu-check: ok" ;;
  77) echo "gpu-check: no GPU here, nothing measured (exit 77)" ;;
  3) echo "gpu-check: every kernel correct, but a goal was missed (--strict)" ;;
  *) echo "gpu-check: FAILED (exit $rc)" ;;
esac
exit $rc
