#!/usr/bin/env bash
# Certainty-based marking: a pack with cbm = true needs `--certainty 1|2|3`
# with every answer and any other pack refuses one (usage errors, nothing
# recorded); the certainty is stored with the attempt and survives a
# re-grade; `answer` reports the CBM mark (right 1/2/3 x points, wrong
# 0/-2/-6 x, partial credit in proportion) and `progress` shows the CBM mark
# of each question's first valid attempt beside the plain best score.
. "$(dirname "$0")/lib.sh"

run pack check "$PACKS/cbm"
expect_rc 0 "the CBM test pack checks"
run pack import "$PACKS/cbm"
expect_rc 0 "import the CBM pack"
run pack import "$PACKS/e2e"
expect_rc 0 "import a pack without CBM"

# ---- the question says how to answer ------------------------------------------
run question test.cbm:ceiling
expect_rc 0 "question"
expect_out "marks by certainty" "explains certainty-based marking"
expect_out "answer: warpbench answer test.cbm:ceiling 'YOUR ANSWER' --certainty N" "answer line"
run --json question test.cbm:ceiling
expect_jq .cbm "true" "cbm in JSON"
run --json question test.e2e:speedup
expect_jq .cbm "false" "no cbm for other packs"

# ---- usage errors -------------------------------------------------------------
run answer test.cbm:ceiling 5
expect_rc 2 "CBM pack without a certainty"
expect_err "--certainty 1, 2 or 3" "says what to add"
run answer test.e2e:speedup 2.5 --certainty 2
expect_rc 2 "certainty for a pack without CBM"
expect_err "not marked by certainty" "says why"
for bad in 0 4 x -1 ""; do
  run answer test.cbm:ceiling 5 --certainty "$bad"
  expect_rc 2 "--certainty '$bad'"
done
run answer test.cbm:ceiling 5 --certainty
expect_rc 2 "--certainty without a value"
run answer test.cbm:nosuch 5 --certainty 2
expect_rc 5 "unknown question"
expect_sql "SELECT count(*) FROM attempts" "0" "no refused answer was recorded"

# ---- marks --------------------------------------------------------------------
# ceiling is worth 2 points: wrong at certainty 3 is -6 x 2 = -12.
run --json answer test.cbm:ceiling 4 --certainty 3
expect_rc 1 "wrong"
expect_jq .certainty "3" "certainty echoed"
expect_jq .score "0" "plain score unchanged"
expect_jq .cbm_mark "-12" "wrong at certainty 3"
# Right at certainty 1: 1 x 2.
run --json answer test.cbm:ceiling 5 --certainty 1
expect_rc 0 "right"
expect_jq .cbm_mark "2" "right at certainty 1"
run answer test.cbm:ceiling 5 --certainty 3
expect_rc 0 "right at 3 (text)"
expect_out "CBM mark at certainty 3: +6 (wrong -12, right +6)" "text shows the mark and the stakes"
expect_out "progress counts the certainty of your first attempt" "says which attempt counts"
# pick (1 point, multi): half right at certainty 2 is 2 x 0.5 - 2 x 0.5 = 0;
# at certainty 3 it is 3 x 0.5 - 6 x 0.5 = -1.5.
run --json answer test.cbm:pick a --certainty 2
expect_rc 1 "half right"
expect_jq .score "0.5" "partial credit"
expect_jq .cbm_mark "0" "half right at certainty 2"
run --json answer test.cbm:pick a --certainty 3
expect_jq .cbm_mark "-1.5" "half right at certainty 3"
# An unreadable answer is recorded with its certainty but scores nothing.
run --json answer test.cbm:ceiling five --certainty 3
expect_rc 3 "unreadable"
expect_jq .cbm_mark "null" "no mark for an unreadable answer"
run --json answer test.e2e:speedup 2.5
expect_rc 0 "a pack without CBM answers as before"
expect_jq .certainty "null" "no certainty"
expect_jq .cbm_mark "null" "no mark"

expect_sql "SELECT group_concat(coalesce(certainty, 'null'), ' ') FROM (SELECT certainty FROM attempts ORDER BY id)" \
  "3 1 3 2 3 3 null" "certainty stored with every attempt"

# ---- progress -------------------------------------------------------------------
# First valid attempts: ceiling wrong at 3 (-12), pick half right at 2 (0):
# CBM -12 of a possible 3 x (2 + 1) = 9. Plain score under the default
# policies: ceiling (numeric, 0.1 lost per wrong try) right on try 2 earns
# 0.9 x 2 = 1.8; pick (multi: only the first try earns) 0.5. 2.3 in all.
run --json progress test.cbm
expect_rc 0 "progress"
expect_jq '.lessons[0].score' "2.3" "plain score under the policy"
expect_jq '.lessons[0].cbm_mark' "-12" "CBM mark of the first attempts"
expect_jq '.lessons[0].cbm_max' "9" "CBM maximum"
expect_jq '.lessons[0].cbm_answered' "2" "answered with a certainty"
expect_jq '.total[0].cbm_mark' "-12" "CBM in the total"
expect_jq '.rubric[0] | has("cbm_mark")' "false" "CBM is per lesson and overall only"
run progress test.cbm
expect_out "CBM -12.0/9 over 2 answered" "text progress shows the CBM mark"
run --json progress test.e2e
expect_jq '.lessons[0] | has("cbm_mark")' "false" "no CBM for a pack without it"

# ---- a re-grade keeps the certainty the student stated --------------------------
run pack regrade test.cbm
expect_rc 0 "regrade"
expect_out "0 changed" "nothing changed, nothing written"
expect_sql "SELECT count(*) FROM attempts WHERE regrade_of IS NOT NULL" "0" "no copies written"
# A version 1.1.0 whose ceiling is 4: the three readable ceiling answers change.
cp -r "$PACKS/cbm" "$T/cbm2"
sed -i 's/version = "1.0.0"/version = "1.1.0"/' "$T/cbm2/pack.lua"
sed -i 's/answer = 5,/answer = 4,/; s/{ "5", 1 }, { "4", 0 }/{ "4", 1 }, { "5", 0 }/' "$T/cbm2/cbm.lua"
run pack import "$T/cbm2"
expect_rc 0 "import 1.1.0"
run pack regrade test.cbm
expect_rc 0 "regrade against 1.1.0"
expect_out "3 changed (written)" "three attempts change"
expect_out "pack version 1.0.0 -> 1.1.0" "with the reason"
expect_sql "SELECT count(*) FROM attempts WHERE regrade_of IS NOT NULL AND certainty IS NULL" "0" \
  "re-grades carry the certainty"
expect_sql "SELECT count(*) FROM attempts a JOIN attempts r ON r.regrade_of = a.id WHERE r.certainty = a.certainty" \
  "3" "each re-grade has its original's certainty"
run --json progress test.cbm
expect_jq '.lessons[0].cbm_mark' "6" "the first ceiling answer (4 at certainty 3) is now right: +6"

finish
