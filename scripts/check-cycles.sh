#!/usr/bin/env bash
# Finds cycles among the files of each module: file A depends on file B when
# A includes B ("b.h", "grader/pure/b.h") or calls (or takes the address of)
# a function or object that B defines. A cycle means no file of it can be
# understood, tested or moved without the others (issue 27: grader/ had two,
# of 13 and of 4 files). Calls are read from the compiled objects (nm), so
# macros, comments and strings never count, and every reference does.
#
# Usage: scripts/check-cycles.sh LIST [ROOT]
#   LIST has one line per library: "MODULE FOLDER OBJECT..." — the module's
#   name, its source folder relative to ROOT (the objects' paths below
#   CMakeFiles/<target>.dir/ are relative to it) and its object files. Lines
#   of one module (grader's three layers) are checked together. The build
#   writes it (tests/cycles.cmake: build/cycles-objects.txt).
#   ROOT is the source tree (default: the repository).
# Prints each cycle as "MODULE: cycle: a.c -> b.c (calls f) -> a.c" and
# exits 1 when there is one; 2 when it cannot read what it needs.
set -uo pipefail
list=${1:?usage: check-cycles.sh LIST [ROOT]}
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
[ -r "$list" ] || { echo "check-cycles: cannot read $list" >&2; exit 2; }
command -v nm >/dev/null || { echo "check-cycles: nm (binutils) is needed" >&2; exit 2; }

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)"'
declare -A folders=()

# "calls" edges, from the objects: MODULE<TAB>FROM<TAB>TO<TAB>why
while read -r module folder objs; do
  [ -n "${module:-}" ] || continue
  folders[$module]="${folders[$module]:-} $folder"
  for o in $objs; do
    [ -r "$o" ] || { echo "check-cycles: cannot read $o" >&2; exit 2; }
    rel=${o#*/CMakeFiles/*.dir/}
    rel=${rel%.o}
    src="$folder/$rel"
    [ -e "$root/$src" ] || src="(generated) $rel"
    nm -P "$o" 2>/dev/null | awk -v m="$module" -v f="$src" '
      $2 == "U" { print m "\tU\t" f "\t" $1; next }
      $2 ~ /^[TDBRCGSV]$/ { print m "\tD\t" f "\t" $1 }'
  done
done <"$list" >"$edges.sym" || exit 2

awk -F'\t' '
  $2 == "D" { def[$1 SUBSEP $4] = $3; next }
  { use[++n] = $0 }
  END {
    for (i = 1; i <= n; i++) {
      split(use[i], u, "\t")
      k = u[1] SUBSEP u[4]
      if ((k in def) && def[k] != u[3] && !seen[u[1], u[3], def[k]]++)
        print u[1] "\t" u[3] "\t" def[k] "\tcalls " u[4]
    }
  }' "$edges.sym" >"$edges"
rm -f "$edges.sym"

# "includes" edges, from the sources of each module's folders
for module in "${!folders[@]}"; do
  for folder in ${folders[$module]}; do
    [ -d "$root/$folder" ] || continue
    (cd "$root" && find "$folder" -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) \
      -not -path '*/build*' -print0 | xargs -0 -r grep -HnE "$include_re") |
      while IFS=: read -r rel n line; do
        [[ $line =~ $include_re ]] || continue
        inc=${BASH_REMATCH[1]}
        for cand in "${rel%/*}/$inc" "$inc"; do # C's order: the file's own folder first
          [ -f "$root/$cand" ] || continue
          cand=$(realpath -m --relative-to="$root" "$root/$cand")
          for mf in ${folders[$module]}; do
            [[ $cand == "$mf"/* ]] && printf '%s\t%s\t%s\tincludes it (line %d)\n' \
              "$module" "$rel" "$cand" "$n" && break
          done
          break
        done
      done
  done
done >>"$edges"

# Cycles that predate this check, outside grader/ (each line "MODULE: the
# files of the cycle, sorted"): reported, not failed, while they stay exactly
# as listed. A new cycle, or a listed one that grew or shrank, fails the
# check; a listed one this build lacks is noted (a build without a backend
# may lack a file of it).
known="$root/scripts/cycles-known.txt"
[ -f "$known" ] || known=/dev/null

# strongly connected components (Tarjan), then one cycle through each
awk -F'\t' -v known="$known" '
  function visit(v,    i, w) {
    idx[v] = low[v] = ++counter
    stack[++sp] = v; on[v] = 1
    for (i = 1; i <= nout[v]; i++) {
      w = out[v, i]
      if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
      else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
    }
    if (low[v] == idx[v]) {
      ++ncomp
      do { w = stack[sp--]; on[w] = 0; comp[w] = ncomp; size[ncomp]++ } while (w != v)
    }
  }
  # a path from s back to s inside its component (breadth first: the shortest)
  function cycle(s,    head, tail, q, v, i, w, prev, path, seen) {
    head = 1; tail = 0; q[++tail] = s
    while (head <= tail) {
      v = q[head++]
      for (i = 1; i <= nout[v]; i++) {
        w = out[v, i]
        if (comp[w] != comp[s]) continue
        if (w == s) {
          path = " -> " s " (" why[v, w] ")"
          while (v != s) { path = " -> " v " (" why[prev[v], v] ")" path; v = prev[v] }
          return s path
        }
        if (!(w in seen)) { seen[w] = 1; prev[w] = v; q[++tail] = w }
      }
    }
    return s
  }
  # the files of component c, sorted, space-separated
  function members(c,    v, a, n, i, j, t, r) {
    n = 0
    for (v in node) if (comp[v] == c) a[++n] = v
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    r = a[1]; for (i = 2; i <= n; i++) r = r " " a[i]
    return r
  }
  BEGIN {
    FS = "\t"
    while ((getline line < known) > 0)
      if (line !~ /^[ \t]*(#|$)/ && line !~ /^grader:/) listed[line] = 1 # grader/ gets none
  }
  {
    mod[$2] = $1
    if (!(($2, $3) in why)) { out[$2, ++nout[$2]] = $3; why[$2, $3] = $4 }
    node[$2] = 1; node[$3] = 1
  }
  END {
    for (v in node) if (!(v in idx)) visit(v)
    for (v in node) if (size[comp[v]] > 1 && !done[comp[v]]++) {
      key = mod[v] ": " members(comp[v])
      if (key in listed) {
        print "known (scripts/cycles-known.txt), " mod[v] ": cycle of " size[comp[v]] " files: " cycle(v)
        found[key] = 1
      } else {
        print mod[v] ": cycle of " size[comp[v]] " files: " cycle(v)
        print "  (all of them: " key ")"
        bad = 1
      }
    }
    for (k in listed) if (!(k in found))
      print "note: scripts/cycles-known.txt lists a cycle this build does not have (gone? remove its line): " k
    exit bad
  }' "$edges"
rc=$?
[ "$rc" -eq 0 ] && echo "cycles: none but the known ones"
exit "$rc"
