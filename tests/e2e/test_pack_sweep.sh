#!/usr/bin/env bash
# pack check tests the pack, not one path: every question on many variants
# (params, references, wrong values, feedback placeholders), rubric items,
# the graded samples of every design question of the built-in course, and
# a large pack accepted.
. "$(dirname "$0")/lib.sh"

# ---- a pack with a mistake per question, each only in some variants -----------
M="$PACKS/sweep_mistakes"
run pack check "$M"
expect_rc 4 "the mistaken pack fails"
# expect_problem WHAT REGEX: one stderr line matches REGEX (file, line,
# question and variant are in each REGEX).
expect_problem() {
  if grep -qE -- "$2" <<<"$ERR"; then ok; else fail "$1: no line matches /$2/: $ERR"; fi
}
F="sweep_mistakes/mistakes.lua"
expect_problem "params fails for some variant" \
  "$F:4: question params-fails: variant [0-9]+: mistakes\.lua:10: no variant with k = 4"
expect_problem "reference not finite for some variant" \
  "$F:17: question not-finite: variant [0-9]+ \(k=2\): the answer is not a finite number"
expect_problem "wrong value returns nil" \
  "$F:26: question wrong-nil: variant [0-9]+ \(k=(8|9|10)\): wrong 1: value gives nil, not a number"
expect_problem "tolerance so loose a wrong value lies inside (both named)" \
  "$F:39: question loose-tolerance: variant [0-9]+ \(k=[0-9]+\): wrong 1: value [0-9]+ lies inside the accepted interval [0-9.]+ to [0-9.]+ of the reference [0-9]+"
expect_problem "wrong value equal to the reference (both named)" \
  "$F:52: question wrong-equal: variant [0-9]+ \(k=2\): wrong 1: value 4 equals the reference 4"
expect_problem "unknown rubric item" \
  "$F:64: question rubric-typo: unknown rubric item 'practice\.profilng' \(did you mean 'practice\.profiling'\?\)"
expect_problem "feedback placeholder params never set" \
  "$F:73: question feedback-placeholder: variant [0-9]+ \(k=[0-9]+\): wrong 1 feedback uses \{q\}, which params does not set \(it sets k\)"
# a question failing on many variants is summed up, not listed 200 times
expect_problem "the rest summed up" "$F:39: question loose-tolerance: [0-9]+ more variants fail \([0-9]+ tried\)"
run --json pack check "$M"
expect_rc 4 "the mistaken pack fails (--json)"
expect_jq '.ok' "false" "not ok"
expect_jq '[.problems[] | select(test("variant"))] | length > 6' "true" "problems name variants"

# ---- variants counted by their params ------------------------------------------
mkdir -p "$T/count"
cat >"$T/count/pack.lua" <<'LUA'
pack { id = "test.count", title = "Counting variants", version = "1", lessons = { "c.lua" } }
LUA
cat >"$T/count/c.lua" <<'LUA'
lesson { id = "c", title = "C", rubric = { "theory.parallel" } }
question { id = "three", kind = "numeric", prompt = "{k} + 1?",
  params = function(rng) return { k = rng:pick({ 1, 2, 3 }) } end,
  answer = function(p) return p.k + 1 end,
  examples = { { answer = function(p) return tostring(p.k + 1) end, score = 1 } } }
question { id = "many", kind = "numeric", prompt = "{k} + 1?",
  params = function(rng) return { k = rng:int(1, 1000000) } end,
  answer = function(p) return p.k + 1 end }
question { id = "none", kind = "numeric", prompt = "1 + 1?", answer = 2 }
LUA
run --json pack check --variants 30 "$T/count"
expect_rc 0 "the counting pack is good"
expect_jq '.variants_asked' "30" "--variants sets the number asked"
expect_jq '.sweep[] | select(.question == "three") | .variants' "3" "three values, three variants"
expect_jq '.sweep[] | select(.question == "three") | .tried > 3' "true" "it drew more to be sure"
expect_jq '.sweep[] | select(.question == "three") | .examples == .tried' "true" \
  "the example computed from p ran on every variant"
expect_jq '.sweep[] | select(.question == "many") | .variants' "30" "a large space: as many as asked"
expect_jq '.sweep[] | select(.question == "none") | [.variants, .tried] | join(" ")' "1 1" \
  "no params: one variant"
run pack check "$T/count"
expect_rc 0 "default sweep"
expect_out "many                                              200" "200 by default where the space allows"
expect_out "variants drawn" "the summary says how many were drawn"
run pack check --variants nope "$T/count"
expect_rc 2 "--variants needs a number"
run pack check --variants 0 "$T/count"
expect_rc 0 "--variants 0: the first variant only"

# ---- the built-in course: every design question against its samples -------------
run --json pack check "$WB_SOURCE_DIR/lessons/packs/core"
expect_rc 0 "the built-in course passes the sweep"
n_design=$(grep -h 'kind = "design"' "$WB_SOURCE_DIR"/lessons/packs/core/*.lua | wc -l)
expect_jq '[.sweep[] | select(.samples > 0)] | length' "$n_design" "every design question has samples"
expect_jq '[.sweep[] | select(.samples > 0) | select(.samples_good < 2 or .samples_partial < 2
  or .samples_keywords < 1 or .samples_reversed < 1 or .samples < 6) | .question] | join(",")' "" \
  "each: two good, two partial, a keyword list and a reversed answer"
# Issue 24 left five questions whose good samples the claims reader under-
# scores (each sample's comment says which sentence it misses; FORMAT.md):
# they are listed here, and every other question's good samples score 1.
expect_jq '[.sweep[] | select(.samples > 0) | select(.good_min < 1) | .question] | join(",")' \
  "parallelism.system-design,memory.cnn-slow,distributed.design,assessment.inference-design,assessment.infrastructure-design" \
  "the good samples score full marks (but the five issue 24 left)"
# Every design question of the course is declared as claims: none only
# reports its attacks (attacks = "report"), and none of its attacks earns
# more than a quarter.
expect_jq '[.sweep[] | select(.samples > 0) | select(.attacks_reported) | .question] | join(",")' \
  "" "no design question only reports its attacks"
expect_jq '[.sweep[] | select(.samples > 0) | select(.attacks > 0) | select(.attack_max > 0.25)
  | .question] | join(",")' "" "every design question's attacks score at most a quarter"
expect_jq '[.sweep[] | select(.samples > 0) | select(.attacks < 8) | .question] | join(",")' "" \
  "and each was attacked (eight ways or more)"
expect_jq '[.sweep[] | select(.samples > 0) | select(.keywords_reversed_max > 0.25) | .question]
  | join(",")' "" "keyword lists and reversed answers score at most a quarter"
expect_jq '[.sweep[] | select(.samples_off > 0) | .question] | join(",")' "" \
  "every sample within its tolerance"

# A sample off its human score fails the check, naming the sample.
cp -r "$WB_SOURCE_DIR/lessons/packs/core" "$T/core"
sed -i '0,/role = "partial", score = 0.5, tol = 0.2/s//role = "partial", score = 1, tol = 0.2/' "$T/core/amdahl.lua"
run pack check "$T/core"
expect_rc 4 "a sample off its mark"
expect_err "question amdahl.scaling-design: sample 3 (partial, 'The speedup is 5.5x." "names the sample"
expect_err "a person gave it 1: off by 0.5, more than its tolerance 0.2" "and by how much"

# ---- a large pack: accepted, one file of many questions --------------------------
mkdir -p "$T/big"
echo 'pack { id = "test.big", title = "Big", version = "1", lessons = { "big.lua" } }' >"$T/big/pack.lua"
{
  echo 'lesson { id = "big", title = "Big", rubric = { "theory.parallel" } }'
  for i in $(seq 1 3000); do
    printf 'question { id = "q%d", kind = "numeric", prompt = "%d + 1?", answer = %d,\n' "$i" "$i" $((i + 1))
    printf '  examples = { { "%d", 1 } } }\n' $((i + 1))
  done
} >"$T/big/big.lua"
run pack check "$T/big"
expect_rc 0 "3000 questions in one file pass"
expect_out "3000 questions" "all of them"
run --json pack import "$T/big"
expect_rc 0 "and import"
run --json question test.big:q2999
expect_jq '.prompt' "2999 + 1?" "the 2999th question is served from its cut of the file"
run --json answer test.big:q2999 3000
expect_jq '.correct' "true" "and graded"
finish
