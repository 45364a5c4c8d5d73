#!/usr/bin/env bash
# Checks that every C, header and CUDA file of the tree is laid out as
# .clang-format says (Debian's clang-format), and that no line of them is
# longer than 100 columns. Prints the files that differ and how to fix them;
# exits 1 when any does. Usage: scripts/check-format.sh [ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format is not installed (scripts/setup.sh installs it)" >&2
  exit 2
fi
# The files git tracks when ROOT is a git checkout's top; in a tarball or a
# copy without .git, every C, header and CUDA file but those of the build
# folders (build*/) and hidden ones.
top=$(git rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu')
else
  mapfile -t files < <(find . -type d \( -name 'build*' -o -name '.?*' \) -prune -o -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sed 's|^\./||' | LC_ALL=C sort)
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "$f: not as .clang-format lays it out (fix: clang-format -i $f)"
    bad=1
  fi
  # characters, not bytes: box drawing and µ are one column each
  long=$(LC_ALL=C.UTF-8 grep -nE '^.{101,}' "$f" | cut -d: -f1)
  for n in $long; do
    echo "$f:$n: longer than 100 columns"
    bad=1
  done
done
[ "$bad" -eq 0 ] && echo "format: ok (${#files[@]} files)"
exit "$bad"
