#!/usr/bin/env bash
# Checks the module layering the build relies on (docs/ARCHITECTURE.md):
#   - a module includes only its own headers and the public headers of the
#     modules below it:  core <- db, grader, kernels <- lessons, labs <- cli, tui
#     (tui uses everything except kernels; cli uses everything);
#   - a module's <module>_internal.h (and any header that is not the module's
#     public one, e.g. labs/paramserver/lab_ps.h) is included only from inside that module;
#   - the foreign headers stay in their module: sqlite3.h in db/, lua.h,
#     lauxlib.h and lualib.h in grader/, curses in tui/, CUDA headers in
#     kernels/, md4c.h in tui/, mpi.h in labs/;
#   - inside grader/, its three layers point down only (grader/CMakeLists.txt):
#     grader/pure/ includes its own headers and core's, nothing of Lua;
#     grader/runtime/ also pure's and grader/grader.h; grader/ (packs and
#     grading) everything of grader/. Lua's headers are the runtime's
#     alone: packs and grading call it with C types (docs/ARCHITECTURE.md);
#   - no include path climbs out of its folder with "..";
#   - inside labs/, a folder's headers are its own: a file of labs/<folder>/
#     includes labs/lab.h, labs/lab_author.h (the lab authors' header, which
#     no other module may include), labs/transport/'s headers and its own
#     folder's; only the registry (labs/core/lab_registry.c) includes the
#     labs' private headers, for their registrations.
# Prints every violation as file:line: why, and exits 1 when there is one.
# Usage: scripts/check-layering.sh [ROOT]   (default: the repository)
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

declare -A allowed=(
  [core]="core"
  [db]="core db"
  [grader]="core grader"
  [kernels]="core kernels"
  [lessons]="core db grader lessons"
  [labs]="core db kernels labs"
  [tui]="core db grader lessons labs tui"
  [cli]="core db grader kernels lessons labs tui cli"
)
declare -A public=(
  [core]="core/core.h" [db]="db/db.h" [grader]="grader/grader.h" [kernels]="kernels/kernels.h"
  [lessons]="lessons/lesson.h" [labs]="labs/lab.h" [tui]="tui/tui.h" [cli]="cli/cli.h"
)
declare -A foreign=(
  [sqlite3.h]=db [lua.h]=grader [lauxlib.h]=grader [lualib.h]=grader [curses.h]=tui
  [ncurses.h]=tui [ncursesw/curses.h]=tui [md4c.h]=tui [cuda_runtime.h]=kernels
  [cuda.h]=kernels [cublas_v2.h]=kernels [cublasLt.h]=kernels [mpi.h]=labs
)

# The layer of a file of grader/: pure, runtime or top.
grader_layer() {
  case $1 in
    grader/pure/*) echo pure ;;
    grader/runtime/*) echo runtime ;;
    *) echo top ;;
  esac
}

include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*(["<])([^">]+)[">]'
bad=0
complain() { echo "$1: $2"; bad=1; }

for mod in "${!allowed[@]}"; do
  [ -d "$mod" ] || continue
  while IFS= read -r -d '' f; do
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      [[ $line =~ $include_re ]] || continue
      kind=${BASH_REMATCH[1]} path=${BASH_REMATCH[2]}
      if [ "$kind" = "<" ]; then
        owner=${foreign[$path]:-}
        [ -n "$owner" ] && [ "$owner" != "$mod" ] &&
          complain "$f:$n" "includes <$path>, which only $owner/ may include"
        if [ "$owner" = grader ] && [ "$mod" = grader ]; then
          layer=$(grader_layer "$f")
          if [ "$layer" = pure ]; then
            complain "$f:$n" "grader/pure/ includes <$path>: the pure layer is C without Lua"
          elif [ "$layer" = top ]; then
            complain "$f:$n" "includes <$path>: Lua stack work belongs in grader/runtime/ (packs and grading call it with C types)"
          fi
        fi
        continue
      fi
      if [[ $path == ../* || $path == */../* ]]; then
        complain "$f:$n" "includes \"$path\": an include names a module's header from the top (\"db/db.h\") or one of its own folder, never with .."
        continue
      fi
      if [ "$mod" = grader ]; then
        layer=$(grader_layer "$f")
        case $path in
          */*) target_file=$path ;;
          *) target_file=${f%/*}/$path ;;
        esac
        if [[ $target_file == grader/* ]]; then
          tl=$(grader_layer "$target_file")
          [ "$target_file" = grader/grader.h ] && tl=api
          if { [ "$layer" = pure ] && [ "$tl" != pure ]; } ||
             { [ "$layer" = runtime ] && [ "$tl" = top ]; }; then
            complain "$f:$n" "grader/'s $layer layer includes \"$path\", of the $tl layer above it (pure <- runtime <- packs and grading)"
          fi
        fi
      fi
      case $path in
        */*) target=${path%%/*} ;;
        *) continue ;; # a file of its own folder ("grader_internal.h", "x.inc")
      esac
      [ -n "${allowed[$target]:-}" ] || continue # not a module (e.g. a generated path)
      if [ "$mod" = labs ] && [ "$target" = labs ] && [[ $path == labs/*/* ]]; then
        own=${f#labs/}
        own=${own%%/*}
        [ "$own" = "${f#labs/}" ] && own=""
        theirs=${path#labs/}
        theirs=${theirs%%/*}
        if [ "$theirs" != "$own" ] && [ "$theirs" != transport ] && [ "$f" != labs/core/lab_registry.c ]; then
          complain "$f:$n" "labs/$own/ includes \"$path\", which is labs/$theirs/'s own (a folder of labs/ sees lab.h, lab_author.h, labs/transport/ and itself)"
        fi
        continue
      fi
      if [[ " ${allowed[$mod]} " != *" $target "* ]]; then
        complain "$f:$n" "$mod/ includes \"$path\": $mod may use only ${allowed[$mod]// /, }"
      elif [ "$target" != "$mod" ] && [ "$path" != "${public[$target]}" ]; then
        complain "$f:$n" "$mod/ includes \"$path\", which is $target/'s own; use ${public[$target]}"
      fi
    done <"$f"
  done < <(find "$mod" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.inc' \) -print0)
done
[ "$bad" -eq 0 ] && echo "layering: ok"
exit "$bad"
