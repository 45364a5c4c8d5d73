#!/usr/bin/env bash
# Sets up and runs the whole test suite: a normal build, then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer, then a build without
# the optional backends (-DWB_MPI=OFF -DWB_CUDA=OFF) and the tests of what
# they touch (the labs and the MPI tests, which must skip). `--fast` runs
# the normal build only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
jobs=$(nproc)

presets=(default asan)
[[ "${1:-}" == "--fast" ]] && presets=(default)

for preset in "${presets[@]}"; do
  echo "== test preset: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$jobs"
  ctest --preset "$preset" -j"$jobs"
done

if [[ "${1:-}" != "--fast" ]]; then
  echo "== test preset: nompi (labs and the MPI tests, without Open MPI)"
  cmake --preset nompi >/dev/null
  cmake --build --preset nompi -j"$jobs"
  ctest --preset nompi -j"$jobs" -L "labs|mpi" -R "lab|mpi|netlab"
fi
