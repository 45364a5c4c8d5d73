#!/usr/bin/env bash
# The built-in programming exercises (lessons/packs/core, kind `code`): for
# each, the naive starter passes with a low fraction of the roofline, our
# own blocked or vectorised solution (tests/code_solutions/, not in the
# pack) passes with a clearly higher one and a higher score, and a wrong one
# fails naming its first wrong element. Also `code list` and `code start`.
source "$WB_SOURCE_DIR/tests/e2e/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
S="$WB_SOURCE_DIR/tests/code_solutions"
# code run --json streams a JSON line per sample, then the result line: OUT is the result
run_code() { run --json code run "$@"; OUT=$(tail -n 1 <<<"$OUT"); }

run --json code list
expect_rc 0 "code list"
for q in memory.matmul memory.transpose memory.sum mapreduce.kmeans-assign lab-quantize.int8-dot; do
  expect_jq "[.exercises[].question] | index(\"$q\") != null" true "code list has $q"
done
expect_jq '.exercises[] | select(.question == "memory.matmul") | .signature' \
  "void matmul(int n, const float *a, const float *b, float *c)" "matmul's signature"

# code start: a new file, never replacing one
(cd "$T" && "$WB" --db "$DB" code start memory.matmul >/dev/null 2>&1)
[ -s "$T/matmul.c" ] && ok || fail "code start wrote no matmul.c"
echo "mine" >"$T/mine.c"
run code start memory.matmul --out "$T/mine.c"
expect_rc 7 "code start onto an existing file"
[ "$(cat "$T/mine.c")" = "mine" ] && ok || fail "code start replaced an existing file"

for q in memory.matmul memory.transpose memory.sum mapreduce.kmeans-assign lab-quantize.int8-dot; do
  rm -f "$T/start.c"
  run code start "$q" --out "$T/start.c"
  expect_rc 0 "$q: code start"
  run_code "$q" "$T/start.c"
  expect_jq .correct true "$q: the naive starter is correct"
  naive=$(jqv .roofline_fraction) naive_score=$(jqv .score) naive_noisy=$(jqv .noisy)
  # a busy machine (the suite's other tests) can slow either run: one more
  # pair of runs before calling it a failure
  for try in 1 2; do
    run_code "$q" "$S/${q}_fast.c"
    expect_jq .correct true "$q: our solution is correct"
    fast=$(jqv .roofline_fraction) fast_score=$(jqv .score)
    awk -v a="$naive" -v b="$fast" 'BEGIN { exit !(b > 1.5 * a) }' && break
    [ "$try" = 2 ] && break
    run_code "$q" "$T/start.c"
    naive=$(jqv .roofline_fraction) naive_score=$(jqv .score) naive_noisy=$(jqv .noisy)
  done
  # Which of two timings is faster is for a quiet machine to say (speed is
  # measured in `bench code`): the comparison is made when neither run says
  # it was measured under load, and otherwise reported as not made.
  noisy=$(jqv .noisy)
  awk -v a="$naive" 'BEGIN { exit !(a > 0) }' && ok || fail "$q: the naive run has no roofline fraction: $naive"
  if [ "$noisy" = true ] || [ "$naive_noisy" = true ]; then
    echo "$q: speeds not compared: measured under load ($(jqv .noise))"
  else
    if awk -v a="$naive" -v b="$fast" 'BEGIN { exit !(b > 1.5 * a && a > 0) }'; then ok
    else fail "$q: our solution reaches $fast of the roofline, the naive one $naive: not clearly higher"; fi
    if awk -v a="$naive_score" -v b="$fast_score" 'BEGIN { exit !(b > a) }'; then ok
    else fail "$q: our solution scores $fast_score, the naive one $naive_score"; fi
  fi
  echo "$q: naive $naive of the roofline (score $naive_score), ours $fast (score $fast_score)"
  run_code "$q" "$S/${q}_wrong.c"
  expect_rc 1 "$q: a wrong solution"
  expect_jq .correct false "$q: a wrong solution is not correct"
  expect_jq .score 0 "$q: a wrong solution scores nothing"
  fw=$(jqv .first_wrong)
  if grep -qE '(\[[0-9]+\]|return value) = .*, expected ' <<<"$fw"; then ok
  else fail "$q: the first wrong element is not named: $fw"; fi
done
# each run is an attempt holding the code
expect_sql "SELECT count(*) FROM attempts WHERE question_id = 'memory.matmul' AND answer LIKE '%void matmul%'" 3

echo "code exercises: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
