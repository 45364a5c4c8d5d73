#!/usr/bin/env bash
# Grading limits do not depend on machine load: the same answers, graded
# on one core with and without CPU hogs pinned to that core, give identical
# results. The answers include graders that work hard in Lua and in C, the
# longest answers each kind accepts and adversarial ones for the built-in
# graders (word-count lists, long design answers). Nothing is timed.
. "$(dirname "$0")/lib.sh"

if ! taskset -c 0 true 2>/dev/null; then
  echo "taskset cannot pin to core 0 here: skipped" >&2
  exit 77
fi

run pack import --variants 0 "$PACKS/heavy"
expect_rc 0 "the heavy pack imports"

# The answers, one file each: QID, then the answer.
A="$T/answers"
mkdir -p "$A"
n=0
add() { n=$((n + 1)); printf '%s\n%s' "$1" "$2" >"$A/$n"; }
add test.heavy:pattern go
add test.heavy:charged go
add test.heavy:lua go
# The word-count grader at its 4 KiB limit: one long word, a bracket run,
# many keys; and an 8,000-character answer, refused before grading.
add warpbench.core:mapreduce.wordcount-shuffle "$(head -c 4096 /dev/zero | tr '\0' a)"
add warpbench.core:mapreduce.wordcount-shuffle "$(for i in $(seq 1 1365); do printf 'a[1'; done)"
add warpbench.core:mapreduce.wordcount-shuffle "$(for i in $(seq 1 400); do printf 'cat [1, 1] '; done | head -c 4096)"
add warpbench.core:mapreduce.wordcount-shuffle "$(head -c 8000 /dev/zero | tr '\0' a)"
# Design answers at their 16 KiB limit: one endless sentence that feeds the
# rubric's ".*" patterns, and a long list.
add warpbench.core:mapreduce.kmeans-design "$(for i in $(seq 1 2000); do printf 'the sum '; done | head -c 16383)."
add warpbench.core:gpu.transpose-design "$(for i in $(seq 1 1300); do printf 'warps, tile, '; done | head -c 16384)"
add warpbench.core:paramserver.design "$(for i in $(seq 1 900); do printf 'It is 1.6 GB in 41 s. '; done | head -c 16384)"
# Ordinary answers.
add warpbench.core:amdahl.speedup-worked "1/(0.2+0.8/4)"
add warpbench.core:amdahl.scaling-design "The all-reduce grows with the number of GPUs, so profile it."

# Each pass answers in a store of its own, copied before any answer: the
# attempt policy would otherwise count the first pass's tries.
cp "$DB" "$T/fresh.db"
# grade_all OUTFILE: grades every answer on core 0 in a fresh copy of the
# store; one line per answer: exit code, then validity, score and feedback
# (or the error).
grade_all() {
  rm -f "$DB" "$DB-wal" "$DB-shm"
  cp "$T/fresh.db" "$DB"
  : >"$1"
  for f in $(ls "$A" | sort -n); do
    local qid ans out rc
    qid=$(head -n 1 "$A/$f")
    ans=$(tail -n +2 "$A/$f")
    out=$(taskset -c 0 "$WB" --db "$DB" --json answer "$qid" "$ans" 2>"$T/err"); rc=$?
    if [ -n "$out" ]; then
      printf '%s %s\n' "$rc" "$(jq -c '[.valid, .score, .feedback]' <<<"$out")" >>"$1"
    else
      printf '%s %s\n' "$rc" "$(cat "$T/err")" >>"$1"
    fi
  done
}

grade_all "$T/quiet"
# Two busy loops on the same core: the grader gets a third of it or less.
hogs=""
for _ in 1 2; do
  taskset -c 0 sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
grade_all "$T/busy"
for h in $hogs; do kill "$h"; wait "$h" 2>/dev/null; done

if diff "$T/quiet" "$T/busy" >"$T/diff"; then ok; else fail "results differ under load: $(cat "$T/diff")"; fi
# And they are what the limits decide, not the clock:
line() { sed -n "${1}p" "$T/quiet"; }
grep -q '^0 \[true,1,"Searched."\]' <<<"$(line 1)" && ok || fail "the pattern grader finishes: $(line 1)"
grep -q '^4 .*heavy.lua:27: instruction limit (20000000 instructions) exceeded' <<<"$(line 2)" && ok \
  || fail "C work ends at the instruction limit: $(line 2)"
grep -q '^0 \[true,1,"Counted' <<<"$(line 3)" && ok || fail "the Lua grader finishes: $(line 3)"
for i in 4 5 6; do # graded or explained, never a limit
  grep -q '^[013] \[' <<<"$(line $i)" && ok || fail "word count answer $i is graded: $(line $i)"
done
grep -q '^3 \[false,null,"The answer is too long: 8000 bytes' <<<"$(line 7)" && ok \
  || fail "the 8,000-character answer is refused with its reason: $(line 7)"
for i in 8 9 10; do
  grep -q '^[01] \[true,' <<<"$(line $i)" && ok || fail "long design answer $i is graded: $(line $i)"
done
grep -q 'list of terms' <<<"$(line 9)" && ok || fail "the long list is a list: $(line 9)"
finish
