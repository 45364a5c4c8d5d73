#!/usr/bin/env bash
# Sets up and runs the whole test suite: a normal build, then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer. `--fast` skips the
# sanitizer pass.
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
