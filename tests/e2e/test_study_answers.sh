#!/usr/bin/env bash
# Issue 26: answers read as the student meant them, and no answer given
# away. Through the real binary on a small pack:
#   - form slips: 39.65 ms for 39.65 s is named as a ×1000 slip (without the
#     reference); 0.333 on a per-cent question as a fraction; FLOP/B and
#     FLOP/byte are read; a leading article and a misspelling of a text
#     answer do not cost the points; integer = true is exact (7812 is not
#     7813 "within 1%");
#   - in an exam, 0.333 on a per-cent question is refused as ambiguous, not
#     recorded as 0.333 %;
#   - a lab-linked question's wrong answer shows neither the reference nor
#     the worked answer, which come with the give-up;
#   - pack check refuses a lab-linked grader (and a `wrong` feedback) that
#     gives the reference away.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/pk"
cat >"$T/pk/pack.lua" <<'LUA'
pack { id = "test.study", title = "Study", version = "1", lessons = { "s.lua", "x.lua" } }
LUA
cat >"$T/pk/s.lua" <<'LUA'
lesson { id = "s", title = "Slips" }
question { id = "time", kind = "numeric", unit = "s", prompt = "How long?", answer = 39.65 }
question { id = "share", kind = "numeric", unit = "%", prompt = "What share?", answer = 33.3 }
question { id = "ridge", kind = "numeric", prompt = "Ridge point in FLOP per byte?", answer = 153 }
question { id = "count", kind = "numeric", integer = true, prompt = "Blocks?", answer = 7813 }
question { id = "name", kind = "text", prompt = "Name it", answer = { "machine balance" } }
question { id = "scaling", kind = "text", prompt = "Which scaling?", answer = { "weak scaling" } }
question {
  id = "lab", kind = "numeric", lab = "selftest", title = "Steps of your run",
  prompt = "Your selftest run took {n} steps of {ms} ms. How long in all, in ms?{note}",
  params = function(rng, ctx)
    local p = {}
    local n, ms = wb.lab.param(ctx, "steps"), wb.lab.param(ctx, "interval_ms")
    if n and ms then p.n, p.ms = n, ms; p.ref = n * ms end
    return wb.lab.blanks(p, { "n", "ms" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "ms",
      wrong = { { value = function(p) return p.n end, feedback = "That is the steps alone." } },
      explain = function(p) return string.format("%d x %d ms = %d ms.", p.n, p.ms, p.ref) end,
    })
  end,
  examples = {
    { lab = { params = { steps = 21, interval_ms = 53 } }, answer = "1113", score = 1 },
    { lab = { params = { steps = 21, interval_ms = 53 } }, answer = "21", score = 0 },
  },
}
LUA
cat >"$T/pk/x.lua" <<'LUA'
lesson { id = "x", title = "Quiz", exam = true }
question { id = "pct", kind = "numeric", unit = "%", prompt = "What share?", answer = 33.3 }
LUA
run pack check "$T/pk"
expect_rc 0 "the pack passes pack check"
run pack import "$T/pk"
expect_rc 0 "import"

# ×1000: named as a slip of units, without the reference.
run --json answer test.study:time "39.65 ms"
expect_rc 1 "39.65 ms for 39.65 s"
expect_jq '.feedback | test("1000 times too small: a slip of units")' true "the ×1000 slip is named"
expect_jq '.feedback | test("39.65")' false "the feedback does not give the reference"
expect_jq .accepted null "no accepted range on a wrong answer"
run --json answer test.study:share "0.333"
expect_rc 1 "a fraction on a per-cent question"
expect_jq '.feedback | test("100 times too small: a fraction where per cent is asked")' true \
  "the ×100 slip is named"
# The course's own units.
run --json answer test.study:ridge "153 FLOP/B"
expect_rc 0 "FLOP/B is read"
run --json answer test.study:ridge "153 FLOP/byte"
expect_rc 0 "FLOP/byte is read"
# Text answers: a leading article, a misspelling.
run --json answer test.study:name "the machine balance"
expect_rc 0 "a leading article is ignored"
expect_jq .correct true "right"
run --json answer test.study:scaling "weak sacling"
expect_rc 0 "a misspelt word is right"
expect_jq '.feedback | test("misspelt: it is written \"weak scaling\"")' true "the spelling is given"
run --json answer test.study:scaling "strong scaling"
expect_rc 1 "another word is wrong"
# integer = true is exact.
run --json answer test.study:count 7812
expect_rc 1 "7812 is not 7813"
expect_jq .correct false "wrong"
run --json answer test.study:count 7813
expect_rc 0 "7813"

# An exam: 0.333 on a per-cent question is ambiguous: explained, not recorded.
run --json answer test.study:pct "0.333"
expect_rc 3 "ambiguous in an exam: not a try"
expect_jq '.feedback | test("0.333 on a per-cent question reads as 0.333 %")' true "says why"
expect_sql "SELECT count(*) FROM attempts WHERE question_id = 'pct' AND valid" 0
run --json answer test.study:pct "33.3%"
expect_rc 0 "33.3% is recorded"
expect_jq .hidden true "an exam answer"

# Lab-linked: a wrong answer gives neither the reference nor the worked answer.
run lab run selftest --set steps=21 --set interval_ms=3
expect_rc 0 "a selftest run"
run --json answer test.study:lab 22
expect_rc 1 "a wrong lab-linked answer"
expect_jq '.feedback | test("63")' false "no reference number in the feedback"
expect_jq '.feedback | test("x 3 ms")' false "no worked answer in the feedback"
expect_jq .reference null "no solution shown"
run --json answer test.study:lab 21
expect_jq '.feedback | startswith("That is the steps alone.")' true "a declared mistake's feedback"
expect_jq '.feedback | test("63|x 3 ms")' false "and nothing of the answer (a noisy run's note may follow)"
run --json giveup test.study:lab
expect_rc 0 "give up"
expect_jq .reference "21 x 3 ms = 63 ms." "the worked answer comes with the give-up"

# pack check: a lab-linked grader whose wrong feedback holds the reference,
# and a `wrong` feedback that works the answer, are refused.
mkdir -p "$T/bad"
cat >"$T/bad/pack.lua" <<'LUA'
pack { id = "test.leaky", title = "Leaky", version = "1", lessons = { "l.lua" } }
LUA
cat >"$T/bad/l.lua" <<'LUA'
lesson { id = "l", title = "Leaky" }
question {
  id = "leaky-lab", kind = "numeric", lab = "selftest",
  prompt = "Your run took {n} steps of {ms} ms. How long in all, in ms?{note}",
  params = function(rng, ctx)
    local p = {}
    local n, ms = wb.lab.param(ctx, "steps"), wb.lab.param(ctx, "interval_ms")
    if n and ms then p.n, p.ms = n, ms; p.ref = n * ms end
    return wb.lab.blanks(p, { "n", "ms" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    local v = wb.number(answer, "ms")
    if not v then return { valid = false, feedback = "Not a number." } end
    if math.abs(v - ctx.params.ref) < 0.01 * ctx.params.ref then return 1, "Right." end
    return 0, string.format("No: %d steps of %d ms make %d ms.", ctx.params.n, ctx.params.ms,
      ctx.params.ref)
  end,
  examples = {
    { lab = { params = { steps = 21, interval_ms = 53 } }, answer = "1113", score = 1 },
  },
}
question {
  id = "leaky-wrong", kind = "numeric", prompt = "Ridge point of 312 TFLOP/s and 2039 GB/s?",
  answer = 312e12 / 2039e9,
  wrong = { { value = 312 / 2039, feedback = "Mind the prefixes: 312e12 / 2039e9 = 153." } },
}
LUA
run pack check "$T/bad"
expect_rc 4 "a pack that gives answers away is refused"
expect_err "question leaky-lab: variant 1 (ms=53, n=21, note=\"\", ref=1113): the feedback of a wrong answer ('1524.81') gives the reference 1113 away" \
  "the lab-linked grader is named, with the reference"
expect_err "question leaky-wrong: the feedback of a wrong answer (wrong 1) gives the reference 153 away" \
  "the wrong feedback is named"
run pack import "$T/bad"
expect_rc 4 "and not imported"

finish
