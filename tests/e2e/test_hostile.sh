#!/usr/bin/env bash
# Packs written to cause trouble: terminal control codes in text, megabytes
# of feedback, chunk names that pretend to be pack files, symlinks out of the
# pack folder. Each must be contained.
. "$(dirname "$0")/lib.sh"
P="$T/hostile"
mkdir -p "$P"
echo "TOPSECRET" >"$T/secret.txt"
ln -s "$T/secret.txt" "$P/README"
ln -s "$T" "$P/outside"
cat >"$P/pack.lua" <<'LUA'
pack { id = "test.hostile", title = "Hostile\27]0;pwned\7", version = "1", lessons = { "h.lua" } }
LUA
cat >"$P/h.lua" <<'LUA'
lesson { id = "h", title = "H\27[2J" }
page { title = "T\27[31m", text = "# Page\27]52;c;ZWNobyBoaQ==\7 text\r\rOVER" }
question {
  id = "big", kind = "text", prompt = "Say\27[41m anything", answer = "x",
  grade = function(a) return 1, string.rep("F", 200000) end,
  examples = { { "y", 1 } },
}
question {
  id = "long", kind = "text", prompt = "{x}", answer = "x",
  params = function() return { x = string.rep("\u{e9}", 400) } end,
  examples = { { "x", 1 } },
}
question {
  id = "liar", kind = "text", prompt = "?", answer = "x",
  grade = function(a)
    if a == "boom" then load("error('from load')", "@pack.lua")() end
    return 1
  end,
  examples = { { "x", 1 } },
}
LUA
run pack import "$P"
expect_rc 0 "import"
run pack export test.hostile "$T/out"
expect_rc 0 "export"
[ -e "$T/out/README" ] && fail "a symlinked file was stored: $(cat "$T/out/README")" || ok
[ -e "$T/out/outside" ] && fail "a symlinked folder was walked" || ok

# No raw ESC/BEL/CR from pack text reaches the terminal; caret notation instead.
for cmd in "show h" "question big" "pack list" "lessons"; do
  run $cmd
  expect_rc 0 "$cmd"
  if printf '%s' "$OUT" | LC_ALL=C grep -q $'[\x1b\x07\r]'; then fail "$cmd printed raw control codes"; else ok; fi
done
run show h
expect_out "^[[2J" "ESC shown as ^["

# A long placeholder value is filled in whole (400 two-byte characters).
run --json question long
expect_jq '.prompt | length' 400 "long placeholder value kept whole"

# Feedback is capped before it is stored.
run --json answer big y
expect_rc 0 "grade"
expect_jq '.feedback | length < 17000' true "feedback capped"
expect_sql "select max(length(feedback)) < 17000 from attempts" 1 "stored feedback capped"

# A load() chunk named "@pack.lua" does not pass for the pack file.
run answer liar boom
expect_rc 4 "grader error"
if grep -q "^warpbench: pack.lua:1:" <<<"$ERR"; then fail "error blamed pack.lua: $ERR"; else ok; fi
expect_err "from load" "the error itself is reported"
finish
