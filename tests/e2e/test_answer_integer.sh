#!/usr/bin/env bash
# Answers written as the course writes them, through the real binary: the
# built-in gpu.blocks-needed question (integer = true) takes the cheatsheet's
# (n + t - 1) / t typed literally with the student's own n and t, and
# ceil(n/t) and (n + t - 1)//t; n/t is wrong and told to round up. A small
# pack without `integer` grades the same C-style text 0 and says why, and
# takes //. pack check runs the documented example (lessons/FORMAT.md).
. "$(dirname "$0")/lib.sh"

run question gpu.blocks-needed
expect_rc 0 "the question"
n=$(sed -nE 's/.*n = ([0-9]+) elements.*/\1/p' <<<"$OUT" | head -1)
t=$(sed -nE 's/.*blocks of ([0-9]+).*/\1/p; s/^([0-9]+) *threads\. How many.*/\1/p' <<<"$OUT" | head -1)
if [ -n "$n" ] && [ -n "$t" ]; then ok; else fail "n and t not found in the prompt: $OUT"; fi
want=$(( (n + t - 1) / t ))

run --json answer gpu.blocks-needed "($n + $t - 1) / $t"
expect_rc 0 "the cheatsheet's (n + t - 1) / t typed literally"
expect_jq .correct true "C-style text right"
expect_jq .value "$want" "read as C's integer division"
expect_jq '.feedback | test("integer division")' true "feedback names the reading"
run --json answer gpu.blocks-needed "ceil($n/$t)"
expect_rc 0 "ceil"
expect_jq .correct true "ceil(n/t) right"
run --json answer gpu.blocks-needed "($n + $t - 1)//$t"
expect_rc 0 "//"
expect_jq .correct true "(n + t - 1)//t right"
if [ $(( n % t )) -ne 0 ]; then
  run --json answer gpu.blocks-needed "$n/$t"
  expect_rc 1 "n/t is not a whole count"
  expect_jq '.feedback | test("not a whole number.*round it up")' true "told to round up"
fi

# A question without integer = true: real division, explained.
mkdir -p "$T/pk"
cat >"$T/pk/pack.lua" <<'LUA'
pack { id = "test.int", title = "Integers", version = "1", lessons = { "i.lua" } }
LUA
cat >"$T/pk/i.lua" <<'LUA'
lesson { id = "i", title = "Integers" }
question { id = "blocks", kind = "numeric", prompt = "Blocks of 256 for n = 1000?", answer = 4,
  tolerance = { abs = 0.01 } }
question {
  id = "blocks-int", kind = "numeric", integer = true,
  prompt = "How many blocks of 256 threads cover n = {n} elements?",
  params = function(rng) return { n = rng:pick({ 1000, 4096, 100000 }) } end,
  answer = function(p) return math.ceil(p.n / 256) end,
  examples = {
    { params = { n = 1000 }, answer = "(1000 + 255) / 256", score = 1 },
    { params = { n = 1000 }, answer = "ceil(1000/256)", score = 1 },
    { params = { n = 1000 }, answer = "1000/256", score = 0 },
  },
}
LUA
run pack check "$T/pk"
expect_rc 0 "the documented example passes pack check"
run pack import "$T/pk"
expect_rc 0 "import"
run --json answer test.int:blocks "(1000 + 255) / 256"
expect_rc 1 "real division: wrong"
expect_jq .value 4.90234375 "read with real division"
expect_jq '.feedback | test("4.90234 with real division.*C.s integer division would truncate it")' true \
  "the feedback explains the two readings"
expect_jq '.feedback | test("//")' true "and says how to write it"
run --json answer test.int:blocks "(1000 + 255) // 256"
expect_rc 0 "// is floor division"
run --json answer test.int:blocks "4.9"
expect_rc 1 "4.9"
expect_jq '.feedback | test("round it down")' true "told to round down"

# integer must be true or false; a fractional reference is a pack error.
sed -i 's/integer = true/integer = "yes"/' "$T/pk/i.lua"
run pack check "$T/pk"
expect_rc 4 "integer = \"yes\" refused"
expect_err "integer" "the field is named"
sed -i 's/integer = "yes"/integer = true/; s/return math.ceil(p.n \/ 256)/return p.n \/ 256/' "$T/pk/i.lua"
run pack check "$T/pk"
expect_rc 4 "a fractional reference refused"
expect_err "not a whole number" "says why"

finish
