#!/usr/bin/env bash
# Sets up (packages, build) and opens Warpbench. Arguments go to warpbench.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j"$(nproc)" >/dev/null
exec "$root/build/warpbench" "$@"
