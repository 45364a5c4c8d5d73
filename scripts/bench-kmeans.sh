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
# N, D, K, ITERS (10), REPS (3).
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

# ---- scikit-learn -------------------------------------------------------------
sk=$("$PY" - "$points" "$D" "$K" "$ITERS" "$REPS" <<'EOF'
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
EOF
)
read -r sk_ver sk_ms sk_fit1 sk_fit2 sk_sse <<<"$sk"

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
printf '  scikit-learn %s KMeans(lloyd): %8.2f ms per iteration  (fit: %d it %.0f ms, %d it %.0f ms)\n' \
  "$sk_ver" "$sk_ms" "$ITERS" "$sk_fit1" $((2 * ITERS)) "$sk_fit2"
printf '  warpbench kmeans, p = %d:        %8.2f ms per iteration  (median of %d runs)\n' \
  "$CORES" "$our_ms" "$REPS"
awk -v a="$our_ms" -v b="$sk_ms" 'BEGIN {
  r = a / b; printf "  ratio ours / scikit-learn:      %8.3f x        goal <= 1.0: %s\n", r, r <= 1.0 ? "met" : "NOT met" }'
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
awk -v a="$our_sse" -v b="$sk_sse" 'BEGIN {
  d = (a - b) / b; if (d < 0) d = -d
  printf "  final SSE: ours %.8g, scikit-learn %.8g (relative difference %.1e)\n", a, b, d
  if (d > 1e-3) { print "  the two SSEs differ: not the same computation"; exit 1 } }'
