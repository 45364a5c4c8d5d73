#!/usr/bin/env bash
# pack check has a budget of CPU time for the whole pack (issue 25): each
# call into a pack's code is capped (2 s of CPU), but 200 variants of a
# slow params function would run for minutes. With --budget the check
# stops when the budget is spent, says so first and names the question
# that took it; a quick pack passes under the default budget.
. "$(dirname "$0")/lib.sh"
P="$T/slow"
mkdir -p "$P"
cat >"$P/pack.lua" <<'LUA'
pack { id = "test.budget", title = "Budget", version = "1", lessons = { "l.lua" } }
LUA
cat >"$P/l.lua" <<'LUA'
lesson { id = "l", title = "L" }
question {
  id = "quick", kind = "numeric", prompt = "{x}?",
  params = function(rng) return { x = rng:int(1, 1000000) } end,
  answer = function(p) return p.x end,
  examples = { { params = { x = 3 }, answer = "3", score = 1 } },
}
question {
  id = "slow", kind = "numeric", prompt = "{x}?",
  -- about ten million VM instructions a draw: under the per-call limit
  params = function(rng)
    local s = 0
    for i = 1, 2500000 do s = s + i end
    return { x = rng:int(1, 1000000) }
  end,
  answer = function(p) return p.x end,
  examples = { { params = { x = 3 }, answer = "3", score = 1 } },
}
LUA
run pack check "$P" --budget 0.5
expect_rc 4 "the check stops when its budget is spent"
first=$(head -1 <<<"$ERR")
grep -q "pack check stopped: the pack's budget of 0.5 s of CPU is spent: question slow took [0-9.]* s of it" <<<"$first" \
  && ok || fail "the first problem says so and names the question: $ERR"
[ "$(grep -c "budget of" <<<"$ERR")" -eq 1 ] && ok || fail "said once: $ERR"
run --json pack check "$P" --budget 0.5
expect_rc 4 "in JSON too"
expect_jq '.problems[0] | test("question slow took")' true "the first problem"
expect_refused "a budget must be a number" "--budget needs seconds" pack check "$P" --budget soon
expect_refused "a budget is not negative" "--budget needs seconds" pack check "$P" --budget -1
# the same pack without its slow question passes under the default budget
sed -i '/id = "slow"/,$d' "$P/l.lua"
sed -i '$d' "$P/l.lua"
run pack check "$P"
expect_rc 0 "a quick pack passes ($ERR)"
finish
