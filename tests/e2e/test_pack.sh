#!/usr/bin/env bash
# Instructor commands: check (good and broken packs, file:line), import,
# re-import (no-op), same version with other content (refused), new version
# (replaces lessons, keeps old attempts with their version), export
# byte-identical.
. "$(dirname "$0")/lib.sh"

# Good packs pass; pack check needs no store.
for dir in "$PACKS/e2e" "$WB_SOURCE_DIR/lessons/examples/minimal" "$WB_SOURCE_DIR/lessons/packs/core"; do
  OUT=$("$WB" --db "$T/never.db" pack check "$dir" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr")
  expect_rc 0 "pack check $dir"
  expect_out "self-checks passed" "pack check summary for $dir"
done
[ -e "$T/never.db" ] && fail "pack check created a store" || ok

# Every broken fixture fails with its file:line and message word.
for dir in "$PACKS"/*/; do
  dir=${dir%/}
  [ -f "$dir/expected.txt" ] || continue
  read -r where word <"$dir/expected.txt"
  run pack check "$dir"
  expect_rc 4 "broken pack $(basename "$dir")"
  expect_err "$where" "$(basename "$dir") names $where"
  grep -qiF -- "$word" <<<"$ERR" && ok || fail "$(basename "$dir"): message lacks '$word': $ERR"
done

# One problem does not hide the others: a typo in one question and a failing
# example in another are both reported.
mkdir -p "$T/two"
cat >"$T/two/pack.lua" <<'LUA'
pack { id = "test.two", title = "Two problems", version = "1", lessons = { "l.lua" } }
LUA
cat >"$T/two/l.lua" <<'LUA'
lesson { id = "l", title = "L" }
question { id = "typo", kind = "numeric", prompt = "?", answer = 1, tolerence = { rel = 0.1 } }
question { id = "wrongex", kind = "numeric", prompt = "?", answer = 2, examples = { { "3", 1 } } }
LUA
run pack check "$T/two"
expect_rc 4 "two problems"
expect_err "l.lua:2" "the typo"
expect_err "l.lua:3" "the failing example of the other question"

# antonyms entries that are not tables ("latency", 5) are problems of the
# pack, at their file and line: pack check once walked them as tables and
# crashed (signal 11).
mkdir -p "$T/ant"
cat >"$T/ant/pack.lua" <<'LUA'
pack { id = "test.ant", title = "Antonyms", version = "1", lessons = { "l.lua" } }
LUA
cat >"$T/ant/l.lua" <<'LUA'
lesson { id = "l", title = "L" }
question { id = "d", kind = "design", prompt = "Explain.", antonyms = { "latency", 5, { "a", "b" } },
  concepts = { { name = "c", match = { "warp" }, antonyms = { "ab" } } } }
LUA
run pack check "$T/ant"
expect_rc 4 "antonyms that are not pairs"
expect_err 'l.lua:2: question d: antonyms 1 must be a pair of terms' "a phrase for a pair"
expect_err 'l.lua:2: question d: antonyms 2 must be a pair of terms' "a number for a pair"
expect_err 'l.lua:2: question d: concept 1: antonyms 1 must be a pair of terms' "a concept's"
expect_err "3 problems" "the pair { \"a\", \"b\" } passes"

# Import, then the same again is a no-op.
cp -r "$PACKS/e2e" "$T/pack"
run pack import "$T/pack"
expect_rc 0 "import"
run --json pack import "$T/pack"
expect_rc 0 "re-import"
expect_jq .result unchanged "re-import is a no-op"

run --json answer test.e2e:speedup 2.5
expect_rc 0 "answer under 1.0.0"

# Same version, other content: refused, store unchanged.
sed -i 's/Speedup is the old time/Speedup is the previous time/' "$T/pack/basics.lua"
run pack import "$T/pack"
expect_rc 7 "same version, other content"
expect_err "version" "says why"

# A new version replaces the lessons; the old attempt keeps version 1.0.0.
sed -i 's/version = "1.0.0"/version = "1.1.0"/' "$T/pack/pack.lua"
sed -i 's/A job is 20% serial. What is its speedup on 4 processors?/A job is 20% serial. Speedup on 4 processors?/' "$T/pack/basics.lua"
run --json pack import "$T/pack"
expect_rc 0 "new version"
expect_jq .result replaced "replaced"
run --json question test.e2e:speedup
expect_jq .prompt "A job is 20% serial. Speedup on 4 processors?" "new prompt served"
expect_sql "select r.version from attempts a join pack_revs r on r.id = a.rev_id where a.question_id='speedup'" "1.0.0" "old attempt keeps its version"

# Importing the 1.0.0 content again would roll the pack back: refused
# unless forced.
run pack import "$PACKS/e2e"
expect_rc 7 "re-import of a replaced revision"
expect_err "--force" "says how to go back"
run --json pack import --force "$PACKS/e2e"
expect_rc 0 "forced roll-back"
expect_jq .result replaced "rolled back"
run --json pack import --force "$T/pack"
expect_rc 0 "forward again"

# Re-grading re-scores every attempt with the current revision (the
# prompt changed, the grade did not: nothing to write).
run --json pack regrade test.e2e
expect_rc 0 "regrade"
expect_jq .checked 1 "one attempt re-graded"
expect_jq .changed 0 "its grade stands"

# Export gives the stored sources back byte for byte.
run pack export test.e2e "$T/out"
expect_rc 0 "export"
diff -r "$T/pack" "$T/out" >/dev/null && ok || fail "export differs from the imported folder"
run pack export test.e2e "$T/out"
expect_rc 7 "export refuses to overwrite"

run pack export nosuch "$T/out2"
expect_rc 5 "export of an unknown pack"
run --json pack list
expect_jq '[.[].id] | sort | join(",")' "test.e2e,warpbench.core" "pack list"
finish
