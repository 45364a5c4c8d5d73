#!/usr/bin/env bash
# Checks that every symbol the labs library exports carries the prefix of the
# folder its object comes from (README, "Where things live"):
#   labs/core/ lab_ (and none of the prefixes below), labs/transport/ lab_net_
#   or lab_mpi_, labs/amdahl/ lab_amdahl_, labs/memory/ lab_memory_,
#   labs/coalescing/ lab_coal_, labs/kmeans/ lab_km_, labs/paramserver/
#   lab_ps_, labs/allreduce/ lab_ar_, labs/quantize/ lab_quant_,
#   labs/serving/ lab_srv_, labs/selftest/ lab_selftest_, labs/code/ lab_code_.
# A lab's folder thus exports its registration (<prefix>def) and what its own
# files share; anything a file keeps to itself is static. Symbols the
# compiler makes up (names starting with "__", or holding a '.') are not ours.
# Prints every offender as "labs/FOLDER/FILE.c: SYMBOL: why" and exits 1 when
# there is one.
# Usage: scripts/check-lab-symbols.sh ARCHIVE [LABS_SOURCE_DIR]
#   ARCHIVE: the built labs library (build/labs/libwb_labs.a); its members are
#   named after their sources (lab_run.c.o), found under LABS_SOURCE_DIR
#   (default: the repository's labs/).
set -uo pipefail
archive=${1:?usage: check-lab-symbols.sh ARCHIVE [LABS_SOURCE_DIR]}
labs=${2:-$(cd "$(dirname "$0")/.." && pwd)/labs}
[ -r "$archive" ] || { echo "check-lab-symbols: cannot read $archive" >&2; exit 2; }
command -v nm >/dev/null || { echo "check-lab-symbols: nm (binutils) is needed" >&2; exit 2; }

declare -A prefixes=(
  [core]="lab_" [transport]="lab_net_ lab_mpi_" [amdahl]="lab_amdahl_" [memory]="lab_memory_"
  [coalescing]="lab_coal_" [kmeans]="lab_km_" [paramserver]="lab_ps_" [allreduce]="lab_ar_"
  [quantize]="lab_quant_" [serving]="lab_srv_" [selftest]="lab_selftest_" [code]="lab_code_"
)
# every prefix but core's: a core symbol must not look like another folder's
others=()
for f in "${!prefixes[@]}"; do
  [ "$f" = core ] || others+=(${prefixes[$f]})
done

# the folder of each source file, by its name (names are unique in labs/)
declare -A folder_of=()
while IFS= read -r -d '' src; do
  rel=${src#"$labs"/}
  folder_of[$(basename "$src")]=${rel%%/*}
done < <(find "$labs" -mindepth 2 -name 'lab_*.c' -print0)

bad=0
n=0
# nm -A -P: "ARCHIVE[MEMBER]: NAME TYPE VALUE SIZE" for each defined global
while read -r where name type _; do
  member=${where##*[}
  member=${member%]:}
  src=${member%.o}
  case $name in __* | *.*) continue ;; esac
  n=$((n + 1))
  folder=${folder_of[$src]:-}
  if [ -z "$folder" ]; then
    echo "$src: $name: its source is not in a folder of $labs"
    bad=1
    continue
  fi
  want=${prefixes[$folder]:-}
  if [ -z "$want" ]; then
    echo "labs/$folder/$src: $name: labs/$folder/ has no prefix (add it to $0 and the README)"
    bad=1
    continue
  fi
  ok=0
  for p in $want; do [[ $name == "$p"* ]] && ok=1; done
  if [ "$folder" = core ] && [ "$ok" -eq 1 ]; then
    for p in "${others[@]}"; do
      if [[ $name == "$p"* ]]; then
        echo "labs/core/$src: $name: core's symbols start lab_, but not $p (another folder's)"
        bad=1
        ok=2
      fi
    done
  fi
  [ "$ok" -eq 0 ] && { echo "labs/$folder/$src: $name: exported without labs/$folder/'s prefix (${want// / or })"; bad=1; }
done < <(nm -A -P -g --defined-only "$archive" 2>/dev/null | grep -v ': *$')
[ "$n" -gt 0 ] || { echo "check-lab-symbols: no symbols read from $archive" >&2; exit 2; }
[ "$bad" -eq 0 ] && echo "lab symbols: ok ($n exported, each with its folder's prefix)"
exit "$bad"
