#!/usr/bin/env bash
# test_tui_study.sh — issue 26's study loop in the real terminal UI at 80×24
# (tmux), on the built-in course and a small pack with a lab-linked question:
#  - m (mistakes) lists a wrong and a given-up question, newest first, and
#    Enter opens one on a new variant with no solution on screen;
#  - /roofline, then Tab, finds the roofline pages and questions;
#  - F shows the formula sheet;
#  - the design editor keeps the previous answer when the question is
#    opened again;
#  - the exam lists no calculator (on its pages or in C's list) and shows no
#    rubric to score before it is submitted;
#  - a wrong lab-linked answer shows no reference number and no worked sum;
#  - progress cuts long names with "…", says how many rows are below, and
#    scrolls.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

mkdir -p "$T/pk"
cat >"$T/pk/pack.lua" <<'LUA'
pack { id = "test.studytui", title = "Study in the TUI", version = "1", lessons = { "s.lua" } }
LUA
cat >"$T/pk/s.lua" <<'LUA'
lesson { id = "s", title = "Lab questions" }
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
  },
}
LUA

# Some history made with the CLI first (the same store).
run init
expect_rc 0 "store created"
run pack import "$T/pk"
expect_rc 0 "the lab pack imported"
run answer amdahl.speedup 99
expect_rc 1 "a wrong answer to a question with variants"
run giveup amdahl.ceiling-worked
expect_rc 0 "a give-up"
run lab run selftest --set steps=21 --set interval_ms=3
expect_rc 0 "a selftest run (21 steps of 3 ms: the reference is 63 ms)"

# home_clear: Esc on home clears a search (typed or kept) and the list
# shows every lesson again.
home_clear() {
  keys main Escape
  local end=$((SECONDS + 10))
  while [ "$SECONDS" -lt "$end" ]; do
    if ! cap main | grep -qE "^ / "; then ok; return; fi
    sleep 0.05
  done
  fail "home's search cleared by Esc:"$'\n'"$(cap main)"
}

start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"

# ---- mistakes ------------------------------------------------------------------
keys main m
expect_screen main "Warpbench · mistakes" "m opens the mistakes"
expect_screen main "2 questions to review, newest first" "both counted"
expect_re main "^ . h The ceiling with 20% serial work " "the give-up listed (h)"
expect_screen main "gave up: the solution was shown" "with what went wrong"
expect_re main "^ . ✗ Amdahl speedup \(your numbers\) " "the wrong answer listed (✗)"
expect_screen main "you answered 99" "with the answer given"
top=$(cap main | grep -nE "The ceiling with 20%|Amdahl speedup \(your" | head -1)
case "$top" in *ceiling*) ok ;; *) fail "newest first: the give-up (made last) leads: $top" ;; esac
keys main j Enter
expect_screen main "question: Amdahl speedup (your numbers)" "Enter opens the question"
expect_screen main "variant 2" "on a new variant"
expect_screen main "the solution shows after you answer" "says the solution waits"
if cap main | grep -qE "solution:|how to get there|accepted:"; then
  fail "a new variant shows its solution before the try: $(cap main)"
else ok; fi
keys main Escape
expect_screen main "Warpbench · mistakes" "Esc: back to the mistakes"
keys main q
expect_screen main "Warpbench · lessons" "back home"

# ---- search --------------------------------------------------------------------
keys main /
text main roofline
expect_re main "/ roofline +[0-9]+ lessons?, [0-9]+ places \(Tab\)" "home's filter counts the places"
keys main Tab
expect_screen main "Warpbench · search" "Tab: where the text was found"
expect_re main "[0-9]+ places hold \"roofline\"" "the count"
expect_re main "The roofline model +page$" "the roofline page"
expect_re main "^ .* \? .* question$" "roofline questions"
expect_screen main "page 6: page title" "where: the lesson, page and field"
keys main Enter
expect_screen main "The roofline model" "Enter opens the page"
expect_re main "page [0-9]+/[0-9]+" "a lesson page"
keys main q
expect_screen main "Warpbench · search" "back to the results"
keys main Escape
expect_screen main "Warpbench · lessons" "Esc back home"
home_clear

# ---- formulas ------------------------------------------------------------------
keys main F
expect_screen main "Warpbench · formulas" "F opens the formula sheet"
expect_re main "Formula sheet: [0-9]+ formulas" "the sheet's heading"
expect_screen main "Amdahl's law (strong scaling)" "Amdahl"
expect_screen main "S(p) = 1 / (f + (1 - f)/p)" "with its formula"
expect_screen main "→ Amdahl's law and scalability, page 2" "where it is taught"
expect_screen main "c: calculator" "and its calculator"
keys main c
expect_screen main "Warpbench · calc amdahl.laws" "c opens the calculator"
keys main q
expect_screen main "Warpbench · formulas" "back to the sheet"
keys main Enter
expect_screen main "Warpbench · Amdahl's law and scalability" "Enter opens the page"
expect_screen main "page 2/" "page 2"
keys main q
expect_screen main "Warpbench · formulas" "back to the sheet"
keys main q
expect_screen main "Warpbench · lessons" "home"

# ---- the design editor keeps the previous answer -------------------------------
keys main /
text main "does it not scale"
keys main Tab
expect_screen main "1 place holds \"does it not scale\"" "one place, said in the singular"
keys main Enter
expect_screen main "question: Why does it not scale?" "the design question"
expect_screen main "your answer (Ctrl-S submits)" "the editor"
text main "The speedup is 5.5x, an efficiency of 69 percent; profile the step"
keys main C-s
expect_screen main "Score your answer on each point" "self-scoring outside an exam"
keys main Enter
expect_re main "(partly right|not right|correct)" "graded"
keys main q
expect_screen main "Warpbench · search" "back"
keys main Enter
expect_screen main "question: Why does it not scale?" "opened again"
expect_screen main "│The speedup is 5.5x, an efficiency of 69 percent; profile the step" \
  "the editor starts with the previous answer"
keys main Escape
expect_screen main "commands:" "Esc leaves the editor"
keys main q
expect_screen main "Warpbench · search" "q back to the results"
keys main Escape
expect_screen main "Warpbench · lessons" "home"
home_clear

# ---- the exam: no calculator, no rubric before submission ----------------------
keys main C
expect_screen main "Warpbench · calc" "every calculator"
expect_screen main "Amdahl and Gustafson" "the lessons' calculators listed"
if cap main | grep -qF "Ring vs tree all-reduce"; then fail "the exam's calculator is listed"; else ok; fi
keys main q
expect_screen main "Warpbench · lessons" "home"
keys main /
text main "The assessment"
keys main Enter Enter
expect_screen main "The assessment" "the exam lesson"
expect_screen main "exam: 0 of 23 answered" "an open exam"
for _ in 1 2 3; do keys main n; done
expect_screen main "page 4/" "page 4: ring vs tree"
expect_screen main "Ring all-reduce time (your numbers)" "its questions listed"
if cap main | grep -qE "Ring vs tree all-reduce|calculator"; then
  fail "the exam's page lists its calculator: $(cap main)"
else ok; fi
keys main q
expect_screen main "Warpbench · lessons" "home"
home_clear
keys main /
text main "A multi-tenant GPU scheduler"
keys main Tab
keys main Enter
expect_screen main "question: A multi-tenant GPU scheduler" "an exam design question"
expect_screen main "exam: one answer, no feedback until you submit the exam" "says so"
text main "DRF with team quotas, gang scheduling for distributed jobs, preemption with checkpoints"
keys main C-s
expect_screen main "Recorded. Exam answers are graded when you submit the exam." "recorded, not graded"
if cap main | grep -qE "Score your answer|Covered:|Missing:"; then
  fail "the exam shows a rubric before submission: $(cap main)"
else ok; fi
keys main q
expect_screen main "Warpbench · search" "back to the results"
keys main Escape
expect_screen main "Warpbench · lessons" "home"
home_clear

# ---- a wrong lab-linked answer gives nothing away ------------------------------
keys main /
text main "Steps of your run"
keys main Tab
keys main Enter
expect_screen main "question: Steps of your run" "the lab-linked question"
expect_screen main "took 21 steps of 3 ms" "the run's figures in the prompt"
text main 22
keys main Enter
expect_screen main "not right" "graded wrong"
if cap main | grep -qE "(^|[^0-9.])63([^0-9%]|$)|x 3 ms|accepted:"; then
  fail "a wrong lab-linked answer shows the reference: $(cap main)"
else ok; fi
keys main C-u
text main 21
keys main Enter
expect_screen main "That is the steps alone." "a declared mistake's feedback"
if cap main | grep -qE "(^|[^0-9.])63([^0-9%]|$)|x 3 ms"; then fail "the mistake's feedback shows the reference"; else ok; fi
keys main Escape
expect_screen main "Warpbench · search" "Esc: back to the results"
keys main Escape
expect_screen main "Warpbench · lessons" "home"
home_clear

# ---- progress: cut with …, a 'more' mark, scrolling ----------------------------
keys main p
expect_screen main "Warpbench · progress" "p opens progress"
expect_re main "GPU architecture and memory coalesc…" "a long lesson name cut with …"
expect_re main "↓ [0-9]+ more \(j/k\)" "rows below are counted"
expect_screen main "Amdahl's law and scalability" "the first lesson at the top"
for _ in $(seq 25); do keys main j; done
expect_screen main "The assessment" "scrolled to the last lesson"
if cap main | grep -qF "Amdahl's law and scalability"; then fail "the list did not scroll"; else ok; fi
keys main 3
expect_re main "course rubric item +graded" "the rubric tab"
expect_re main "GPU architecture and programmi… " "a rubric name cut with …"
keys main q
expect_screen main "Warpbench · lessons" "home"
keys main q
expect_exit main 0 "q quits"

finish
