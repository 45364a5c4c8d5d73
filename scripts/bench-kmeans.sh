#!/usr/bin/env bash
# bench-kmeans.sh — the kmeans lab against scikit-learn's
# KMeans(algorithm="lloyd") on identical data, in one run.
#
# Data: n = 1,000,000 points of d = 16 (k = 16 Gaussian blobs) drawn once by
# numpy with a fixed seed and written as raw float32; both sides read that
# file and start from the same centres, its first k points (our init=first,
# scikit-learn's init=X[:k], n_init=1), and run a fixed number of
# iterations (tol=0 on both sides; the script checks neither stopped early).
#
# Times per iteration, both without set-up:
#  - ours: the lab's median time per iteration on p = all cores (iter_ms),
#    points already in shared memory and workers started;
#  - scikit-learn: (fit with 2·ITERS iterations − fit with ITERS) / ITERS,
#    which cancels its per-fit work (input checks, norms, the last
#    assignment); it uses every core through OpenMP, as we do.
# scikit-learn runs twice, over two BLAS libraries (its distances are a
# GEMM): the machine's libblas.so.3 as it is (on Debian by default the
# reference BLAS), and OpenBLAS, which is what a user's scikit-learn (pip
# wheels, conda, or Debian with libopenblas0) runs on. OpenBLAS is Debian's
# libopenblas0-pthread, chosen for that one process through LD_LIBRARY_PATH
# (its openblas-pthread/ folder holds a libblas.so.3 and liblapack.so.3):
# when the package is installed, from /usr/lib/<multiarch>/openblas-pthread;
# otherwise its .deb is fetched with `apt-get download` and unpacked under
# BUILD/bench-openblas — not installed, because installing it would switch
# the machine's libblas.so.3 alternative for every program. Which BLAS each
# run really loaded is read from the process's own memory map (and
# threadpoolctl) and printed; the OpenBLAS run fails if it did not get it.
# The goal below is judged against the OpenBLAS anchor.
#
# The machine's FP32 FMA peak: cores x FMA units x lanes x 2 FLOP x clock,
# read from the CPU: lanes from /proc/cpuinfo's flags (avx512f: 16, avx2 +
# fma: 8, else 4); FMA units per core by vendor and family (2 on Intel since
# Haswell and on AMD Zen 2 and later; AMD Zen 4, family 25, runs AVX-512 on
# its two 256-bit pipes, so 2 x 8 lanes there; Zen 5, family 26, 2 x 16);
# the clock from cpufreq's cpuinfo_max_freq, else /proc/cpuinfo's "cpu MHz"
# (a VM reports its nominal clock; turbo is not counted); the physical cores
# among those used (SMT siblings share their core's FMA units). Each can be
# overridden: FMA_UNITS, FMA_LANES, CPU_GHZ, PEAK_CORES. The k-means work
# per iteration is counted as 3·n·k·d FLOP: for every point and centre, d
# subtractions, d multiplications and d additions (the lab's distance;
# scikit-learn's GEMM form does about 2·n·k·d, but the same work is counted
# for both, so the fractions compare). Our sums are deliberately unfused (a
# multiply and an add, never an FMA: bit-identical results on every device),
# so half the FMA peak is our arithmetic's own ceiling.
# Each side runs REPS times; the medians count. It also prints the measured
# speedup on p = 1 .. cores from one lab run (scale_iters = ITERS) and the
# two final SSEs, which must agree (same data, same start, same algorithm).
#
# Goals (issue 6): ours <= 1.0x scikit-learn's time per iteration, and
# speedup >= 0.8 p up to the core count.
#
# Set-up: brings build/ up to date with CMake (NO_BUILD=1 skips it), and installs
# Debian's python3-sklearn (with numpy) when python3 cannot import it —
# that is the benchmark's own set-up; Warpbench itself never needs Python.
# Environment: BUILD (build folder), PYTHON (default /usr/bin/python3),
# N, D, K, ITERS (10), REPS (3), OPENBLAS_DIR (a folder with OpenBLAS's
# libblas.so.3), and the peak overrides above.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
WB=$BUILD/warpbench
PY=${PYTHON:-/usr/bin/python3}
N=${N:-1000000}
D=${D:-16}
K=${K:-16}
ITERS=${ITERS:-10}
REPS=${REPS:-3}
CORES=$(nproc)

if [ -z "${NO_BUILD:-}" ]; then # bring the build up to date with the sources
  echo "== building $BUILD" >&2
  cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j"$CORES" >/dev/null
fi
for tool in jq; do
  command -v "$tool" >/dev/null || { echo "bench-kmeans: needs $tool" >&2; exit 1; }
done
if ! "$PY" -c "import numpy, sklearn" 2>/dev/null; then
  echo "== installing python3-sklearn (the benchmark's own set-up)" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-sklearn >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points=$tmp/points.f32

# ---- OpenBLAS for the scikit-learn anchor (that process only) --------------------
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
OPENBLAS_DIR=${OPENBLAS_DIR:-/usr/lib/$ma/openblas-pthread}
if [ ! -e "$OPENBLAS_DIR/libblas.so.3" ]; then
  cache=$BUILD/bench-openblas
  OPENBLAS_DIR=$cache/usr/lib/$ma/openblas-pthread
  if [ ! -e "$OPENBLAS_DIR/libblas.so.3" ]; then
    echo "== fetching Debian's libopenblas0-pthread, unpacked in $cache (not installed:" \
      "the machine's BLAS alternative stays as it is)" >&2
    dl=$tmp/deb
    mkdir -p "$dl" && chmod 755 "$tmp" "$dl" # apt's _apt user writes the download
    (cd "$dl" && apt-get download libopenblas0-pthread >/dev/null 2>&1) ||
      { echo "bench-kmeans: apt-get download libopenblas0-pthread failed" \
        "(run apt-get update, or set OPENBLAS_DIR)" >&2; exit 1; }
    mkdir -p "$cache"
    dpkg-deb -x "$dl"/libopenblas0-pthread_*.deb "$cache"
  fi
fi
if ldd "$OPENBLAS_DIR/libblas.so.3" | grep -q 'not found'; then
  echo "bench-kmeans: OpenBLAS in $OPENBLAS_DIR misses a library:" \
    "$(ldd "$OPENBLAS_DIR/libblas.so.3" | grep 'not found' | tr -s ' \t' ' ')" >&2
  exit 1
fi

"$PY" - "$points" "$N" "$D" "$K" <<'EOF'
import sys
import numpy as np
path, n, d, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(2024)
blobs = rng.uniform(-10, 10, (k, d))
x = (blobs[rng.integers(0, k, n)] + 2.0 * rng.standard_normal((n, d))).astype(np.float32)
x.tofile(path)
EOF

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# ---- scikit-learn ----------------------------------------------------------------
# sklearn_run: prints "version ms_per_iter fit1_ms fit2_ms sse" and, on a
# second line, the BLAS library the process mapped (and threadpoolctl's view).
sklearn_run() {
  "$PY" - "$points" "$D" "$K" "$ITERS" "$REPS" <<'EOF'
import sys, time
import numpy as np
import sklearn
from sklearn.cluster import KMeans
path, d, k, iters, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
x = np.fromfile(path, dtype=np.float32).reshape(-1, d)
init = x[:k].copy()

def fit(m):
    km = KMeans(n_clusters=k, init=init, n_init=1, max_iter=m, tol=0, algorithm="lloyd")
    t0 = time.perf_counter()
    km.fit(x)
    return time.perf_counter() - t0, km

fit(2)  # warm-up: imports, thread pool, page faults
per, t1s, t2s = [], [], []
for _ in range(reps):
    t1, a = fit(iters)
    t2, b = fit(2 * iters)
    if a.n_iter_ != iters or b.n_iter_ != 2 * iters:
        sys.exit("scikit-learn converged early (%d, %d iterations): raise N or lower ITERS" % (a.n_iter_, b.n_iter_))
    per.append((t2 - t1) / iters)
    t1s.append(t1)
    t2s.append(t2)
per.sort(); t1s.sort(); t2s.sort()
print(sklearn.__version__, 1e3 * per[len(per) // 2], 1e3 * t1s[len(t1s) // 2], 1e3 * t2s[len(t2s) // 2], a.inertia_)
# which BLAS this process really runs on: the libraries it mapped
libs = set()
with open("/proc/self/maps") as f:
    for line in f:
        parts = line.split()
        name = parts[-1].rsplit("/", 1)[-1] if len(parts) >= 6 else ""
        if name.startswith("lib") and "blas" in name:
            libs.add(parts[-1])
blas = "; ".join(sorted(libs)) or "no BLAS library mapped"
try:
    from threadpoolctl import threadpool_info
    tp = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    if tp:
        blas += " [threadpoolctl: %s]" % ", ".join(
            "%s %s, %s threads" % (i.get("internal_api"), i.get("version"), i.get("num_threads")) for i in tp)
    else:
        blas += " [threadpoolctl: no BLAS it knows, so the reference BLAS]"
except ImportError:
    pass
print(blas)
EOF
}
sk_ref=$(sklearn_run)
read -r sk_ver sk_ms sk_fit1 sk_fit2 sk_sse <<<"$(head -n 1 <<<"$sk_ref")"
sk_ref_blas=$(tail -n 1 <<<"$sk_ref")
sk_ob=$(LD_LIBRARY_PATH="$OPENBLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" sklearn_run)
read -r _ ob_ms ob_fit1 ob_fit2 ob_sse <<<"$(head -n 1 <<<"$sk_ob")"
sk_ob_blas=$(tail -n 1 <<<"$sk_ob")
grep -qF "$OPENBLAS_DIR/" <<<"$sk_ob_blas" ||
  { echo "bench-kmeans: the OpenBLAS run did not load $OPENBLAS_DIR: $sk_ob_blas" >&2; exit 1; }

# ---- ours -----------------------------------------------------------------------
ours=()
for _ in $(seq 1 "$REPS"); do
  line=$("$WB" --db "$tmp/bench.db" --json lab run kmeans --set file="$points" --set d="$D" \
    --set k="$K" --set init=first --set max_iter="$ITERS" --set tol=0 --set workers="$CORES" \
    --set tasks=16 --set scale_iters="$ITERS" 2>"$tmp/err" | tail -n 1) ||
    { cat "$tmp/err" >&2; exit 1; }
  [ "$(jq -r .figures.iterations <<<"$line")" = "$ITERS" ] ||
    { echo "bench-kmeans: our run stopped early" >&2; exit 1; }
  ours+=("$line")
done
our_ms=$(for l in "${ours[@]}"; do jq -r .figures.iter_ms <<<"$l"; done | median)
our_sse=$(jq -r .figures.final_sse <<<"${ours[0]}")
# the speedups of the run whose iter_ms is the median
mid=${ours[0]}
for l in "${ours[@]}"; do
  [ "$(jq -r .figures.iter_ms <<<"$l")" = "$our_ms" ] && mid=$l
done

echo "k-means, n = $N, d = $D, k = $K, $ITERS iterations from the first $K points," \
  "float32, $CORES cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
printf '  scikit-learn %s KMeans(lloyd), reference BLAS: %8.2f ms per iteration  (fit: %d it %.0f ms, %d it %.0f ms)\n' \
  "$sk_ver" "$sk_ms" "$ITERS" "$sk_fit1" $((2 * ITERS)) "$sk_fit2"
printf '      loaded: %s\n' "$sk_ref_blas"
printf '  scikit-learn %s KMeans(lloyd), OpenBLAS:       %8.2f ms per iteration  (fit: %d it %.0f ms, %d it %.0f ms)\n' \
  "$sk_ver" "$ob_ms" "$ITERS" "$ob_fit1" $((2 * ITERS)) "$ob_fit2"
printf '      loaded: %s\n' "$sk_ob_blas"
printf '  warpbench kmeans, p = %d:                      %8.2f ms per iteration  (median of %d runs)\n' \
  "$CORES" "$our_ms" "$REPS"
awk -v a="$our_ms" -v b="$sk_ms" -v o="$ob_ms" 'BEGIN {
  printf "  ratio ours / scikit-learn on reference BLAS: %7.3f x\n", a / b
  r = a / o; printf "  ratio ours / scikit-learn on OpenBLAS:       %7.3f x   goal <= 1.0: %s\n", r, r <= 1.0 ? "met" : "NOT met" }'

# ---- the machine's FMA peak, and the fraction of it each side reaches --------------
flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)
has() { grep -qw "$1" <<<"$flags"; }
vendor=$(grep -m1 '^vendor_id' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
if has avx512f; then lanes=16; isa=AVX-512; elif has avx2 && has fma; then lanes=8; isa="AVX2+FMA"
elif has avx; then lanes=8; isa="AVX (no FMA)"; else lanes=4; isa=SSE; fi
units=2
why_units="2 FMA units per core (Intel since Haswell, AMD since Zen 2)"
if ! has fma; then units=1; why_units="no FMA: one multiply and one add per cycle, counted as 1 unit"; fi
if [ "$vendor" = AuthenticAMD ] && [ "$lanes" = 16 ] && [ "${family:-0}" -lt 26 ]; then
  lanes=8; why_units="AMD Zen 4 (family $family): AVX-512 runs in two halves on its two 256-bit FMA pipes"
elif [ "$vendor" = AuthenticAMD ] && [ "${family:-0}" = 23 ] && [ "${model:-0}" -lt 48 ]; then
  lanes=4; why_units="AMD Zen 1 (family 23, model $model): two 128-bit FMA pipes"
fi
units=${FMA_UNITS:-$units}
lanes=${FMA_LANES:-$lanes}
if [ -r /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq ]; then
  ghz=$(awk '{ print $1 / 1e6 }' /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq)
  why_clock="cpufreq cpuinfo_max_freq"
else
  ghz=$(grep -m1 '^cpu MHz' /proc/cpuinfo | awk -F: '{ print $2 / 1000 }')
  why_clock="/proc/cpuinfo cpu MHz (no cpufreq: the nominal clock, turbo not counted)"
fi
ghz=${CPU_GHZ:-$ghz}
phys=$(lscpu -p=SOCKET,CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)
pcores=$CORES
[ "${phys:-0}" -gt 0 ] && [ "$phys" -lt "$pcores" ] && pcores=$phys
pcores=${PEAK_CORES:-$pcores}
awk -v c="$pcores" -v u="$units" -v l="$lanes" -v g="$ghz" -v isa="$isa" -v wu="$why_units" \
  -v wc="$why_clock" -v n="$N" -v d="$D" -v k="$K" -v ours="$our_ms" -v ref="$sk_ms" \
  -v ob="$ob_ms" 'BEGIN {
  peak = c * u * l * 2 * g                  # GFLOP/s
  work = 3 * n * k * d                      # FLOP per iteration
  printf "  FP32 FMA peak: %d cores x %d FMA units x %d lanes x 2 FLOP x %.3f GHz = %.1f GFLOP/s\n", c, u, l, g, peak
  printf "      (%s; %s; clock from %s)\n", isa, wu, wc
  printf "  k-means work per iteration: 3*n*k*d = %.0f MFLOP (d subtractions, multiplies and adds per point and centre)\n", work / 1e6
  split("ours|scikit-learn, reference BLAS|scikit-learn, OpenBLAS", name, "|")
  t[1] = ours; t[2] = ref; t[3] = ob
  for (i = 1; i <= 3; i++) {
    gf = work / (t[i] / 1e3) / 1e9
    printf "    %-32s %7.1f GFLOP/s = %5.1f%% of the FMA peak\n", name[i], gf, 100 * gf / peak
  }
  printf "    (ours never fuses a multiply and an add, for bit-identical results: its own ceiling is 50%%)\n" }'
printf '  speedup (one run, median time per iteration at each p):\n'
ok=met
for p in $(seq 1 "$CORES"); do
  s=$(jq -r ".figures.speedup_p$p // empty" <<<"$mid")
  t=$(jq -r ".figures.iter_ms_p$p // empty" <<<"$mid")
  [ -n "$s" ] || continue
  line=$(awk -v p="$p" -v s="$s" -v t="$t" 'BEGIN {
    printf "    p = %d: %7.2f ms, speedup %.2f = %.2f p%s", p, t, s, s / p, (s >= 0.8 * p) ? "" : "  (below 0.8 p)" }')
  echo "$line"
  grep -q "below" <<<"$line" && ok="NOT met"
done
echo "    goal speedup >= 0.8 p up to $CORES cores: $ok"
awk -v a="$our_sse" -v b="$ob_sse" 'BEGIN {
  d = (a - b) / b; if (d < 0) d = -d
  printf "  final SSE: ours %.8g, scikit-learn on OpenBLAS %.8g (relative difference %.1e)\n", a, b, d
  if (d > 1e-3) { print "  the two SSEs differ: not the same computation"; exit 1 } }'
awk -v a="$our_sse" -v b="$sk_sse" 'BEGIN {
  d = (a - b) / b; if (d < 0) d = -d
  printf "  final SSE: ours %.8g, scikit-learn on reference BLAS %.8g (relative difference %.1e)\n", a, b, d
  if (d > 1e-3) { print "  the two SSEs differ: not the same computation"; exit 1 } }'
