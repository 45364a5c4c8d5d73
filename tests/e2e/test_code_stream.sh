#!/usr/bin/env bash
# `code run --json` streams its live metrics as lab runs do (issue 29): one
# JSON object a line, a {"type":"sample"} line per sample of every timed
# call (the shape `lab run --json` streams), then one {"type":"result"}
# line with correct, gflops, gbs, roofline_fraction, speedup, score. The
# samples are stored as a "code" lab run the attempt names, which `code
# show` and `lab show` read back.
source "$WB_SOURCE_DIR/tests/e2e/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }

run pack import "$PACKS/code"
expect_rc 0 "import the code pack"
cat >"$T/scale.c" <<'C'
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
C
run --json code run xp.scale "$T/scale.c"
# (0: full marks, 1: correct but short of the top band on a busy machine)
[ "$RC" -le 1 ] && ok || fail "a correct run: exit $RC ($ERR)"
STREAM=$OUT
# every line is a JSON object; all but the last are samples
jq -e . >/dev/null <<<"$STREAM" && ok || fail "a line is not JSON: $STREAM"
lines=$(wc -l <<<"$STREAM")
samples=$(jq -c 'select(.type == "sample")' <<<"$STREAM" | wc -l)
[ "$samples" -eq $((lines - 1)) ] && ok || fail "$samples samples in $lines lines"
# the lab samples' shape, exactly: type, series, step, value, t
bad=$(jq -c 'select(.type == "sample") | select((keys_unsorted != ["type","series","step","value","t"])
  or (.step | type) != "number" or (.value | type) != "number" or (.t | type) != "number")' <<<"$STREAM")
[ -z "$bad" ] && ok || fail "samples not in the labs' shape: $bad"
# reps = 3 timed calls: call_ms, gflops, gbs, reference_ms for steps 1..3
for s in call_ms gflops gbs reference_ms; do
  got=$(jq -r "select(.type == \"sample\" and .series == \"$s\") | .step" <<<"$STREAM" | tr '\n' ' ')
  [ "$got" = "1 2 3 " ] && ok || fail "series $s: steps '$got', expected 1 2 3"
done
# samples come in time order, before the result
jq -s -e '[.[] | select(.type == "sample") | .t] as $t | $t == ($t | sort)' <<<"$STREAM" >/dev/null \
  && ok || fail "samples out of time order"
OUT=$(tail -n 1 <<<"$STREAM")
expect_jq .type result "the last line is the result"
expect_jq .correct true "correct"
expect_jq '[.gflops, .gbs, .roofline_fraction, .speedup, .score] | map(type == "number" and . > 0) | all' \
  true "the result's figures"
# gflops is the best timed call's: the largest of the streamed ones
best=$(jq -s '[.[] | select(.type == "sample" and .series == "gflops") | .value] | max' <<<"$STREAM")
expect_jq ".gflops == $best" true "gflops is the best call's"
run_id=$(jqv .run)
attempt=$(jqv .attempt)

# stored: the "code" lab run, its samples as streamed, named by the attempt
expect_sql "SELECT lab || ' ' || status FROM lab_runs WHERE id = $run_id" "code done"
expect_sql "SELECT json_extract(params_json, '$.question') FROM lab_runs WHERE id = $run_id" "test.code:xp.scale"
expect_sql "SELECT json_extract(params_json, '$.run') FROM attempts WHERE id = $attempt" "$run_id"
streamed=$(jq -r 'select(.type == "sample" and .series == "call_ms") | .value' <<<"$STREAM" | tr '\n' ' ')
stored=$(sql "SELECT value FROM lab_samples WHERE run_id = $run_id AND series = 'call_ms' ORDER BY step" | tr '\n' ' ')
# (SQLite prints REAL with 15 significant digits, jq with 17: compare at 12)
round() { awk '{ for (i = 1; i <= NF; i++) printf "%.12g ", $i }'; }
[ "$(round <<<"$streamed")" = "$(round <<<"$stored")" ] && ok || fail "stored calls '$stored', streamed '$streamed'"
expect_sql "SELECT count(*) FROM lab_samples WHERE run_id = $run_id" "$samples"
expect_sql "SELECT json_extract(summary_json, '$.correct') FROM lab_runs WHERE id = $run_id" 1
# the run's summary carries the noise verdict every lab run gets
expect_sql "SELECT json_type(summary_json, '$.noisy') IS NOT NULL FROM lab_runs WHERE id = $run_id" 1

# code show reads them back, per attempt
run --json code run xp.scale "$T/scale.c"
run --json code show xp.scale
expect_rc 0 "code show"
expect_jq '.attempts | length' 2 "two runs shown"
expect_jq ".attempts[0].attempt" "$attempt" "the first run's attempt"
expect_jq ".attempts[0].run" "$run_id" "the first run's lab run"
got=$(jqv '.attempts[0].calls_ms[]' | tr '\n' ' ')
[ "$(round <<<"$got")" = "$(round <<<"$streamed")" ] && ok || fail "code show's calls '$got', streamed '$streamed'"
expect_jq '.attempts[1].calls_ms | length' 3 "the second run's three calls"
expect_jq '.attempts[0].reference_ms | length' 3 "the reference's calls"
run code show xp.scale
expect_rc 0 "code show, text"
expect_out "calls (ms, lab run $run_id):" "code show lists the calls"
# lab show reads a code run like any lab run
run --json lab show "$run_id"
expect_rc 0 "lab show of a code run"

# a wrong file: the stream ends with the result all the same
cat >"$T/wrong.c" <<'C'
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 3.0f * x[i];
}
C
run --json code run xp.scale "$T/wrong.c"
expect_rc 1 "a wrong run"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq '.type + " " + (.correct | tostring)' "result false" "a wrong run's result line"
# a reader that goes away: the run stops as cancelled, it does not hang
"$WB" --db "$DB" --json code run xp.scale "$T/scale.c" 2>/dev/null | head -n 1 >"$T/first"
jq -e '.type == "sample"' "$T/first" >/dev/null && ok || fail "the first line is not a sample: $(cat "$T/first")"

echo "code stream: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
