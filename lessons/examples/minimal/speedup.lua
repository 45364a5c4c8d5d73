-- speedup.lua: one lesson. A lesson file calls lesson{} once, first, and then
-- any mix of page and question calls. The student sees them in the order they
-- are written: each question comes after the page before it.
--
-- This file runs in its own fresh sandbox: nothing defined here is visible in
-- another lesson file, and nothing from there is visible here. Local helper
-- functions and constants are fine.

local F, P = 0.2, 4   -- a local constant, shared by the questions below

lesson {
  id = "speedup",                    -- required, unique in the pack
  title = "Speedup in one page",     -- required
  topics = { "speedup" },            -- optional: default topics of its questions
  rubric = { "theory.parallel" },    -- optional: default course rubric items
}

-- A page is Markdown. The short form takes the text only; its title is its
-- first "# " heading.
page [[
# Speedup

If a job takes T(1) on one processor and T(p) on p processors, its
**speedup** is S = T(1) / T(p). When a fraction *f* of the one-processor time
is serial, Amdahl's law gives

```
S(p) = 1 / (f + (1 - f) / p)
```

| f   | p = 4 | limit 1/f |
|-----|-------|-----------|
| 0.2 | 2.5   | 5         |
]]

-- ---------------------------------------------------------------------------
-- calculator: an interactive tool shown after the page before it. Students
-- change its inputs and see the outputs (`warpbench calc speedup.amdahl
-- --set f=0.2 --set p=4`, or in the TUI). Nothing is graded.
calculator {
  id = "speedup.amdahl",             -- required: unique among the pack's calculators
  title = "Amdahl speedup",          -- required
  inputs = {                         -- required: at least one
    -- name (required) is what compute reads: v.f. default is required and
    -- must lie in [min, max]; min and max are optional (no bound).
    { name = "f", label = "serial fraction f", default = 0.2, min = 0, max = 1,
      help = "the part of the one-processor time that cannot run in parallel" },
    -- integer = true: only whole numbers; compute gets a Lua integer.
    { name = "p", label = "processors p", default = 4, min = 1, max = 4096,
      integer = true },
  },
  -- compute(v) returns a list of outputs: a label, and a number `value`
  -- (finite; with an optional unit) or a `text` (shown as written, e.g. a
  -- small diagram). It runs in the sandbox with the grading limits.
  compute = function(v)
    local s = wb.amdahl(v.f, v.p)
    local bar = string.rep("#", math.floor(20 * v.f + 0.5))
    return {
      { label = "speedup S(p)", value = s, unit = "x" },
      { label = "efficiency S(p)/p", value = 100 * s / v.p, unit = "%" },
      -- a value must be finite: 1/f with f = 0 is shown as text instead
      v.f > 0 and { label = "limit 1/f", value = 1 / v.f, unit = "x" }
               or { label = "limit 1/f", text = "none: with f = 0 speedup grows with p" },
      { label = "serial share of T(1)", text = "[" .. bar .. string.rep(".", 20 - #bar) .. "]" },
    }
  end,
  -- Optional self-tests for `pack check`: inputs (the defaults for the rest)
  -- and the expected outputs in order (numbers within 1e-6 relative, texts
  -- exactly); trailing outputs may be left out.
  examples = {
    { inputs = { f = 0.2, p = 4 }, outputs = { 2.5, 62.5, 5, "[####................]" } },
    { inputs = { p = 1 }, outputs = { 1, 100 } },
  },
}

-- ---------------------------------------------------------------------------
-- numeric, with a fixed reference answer. Shows the fields every kind shares
-- (title, points, topics, rubric, hints, examples) and the numeric ones
-- (unit, tolerance, bands, wrong).
question {
  id = "speedup.fixed",              -- required: unique in the pack
  kind = "numeric",                  -- required
  title = "Speedup on 4 processors", -- optional short name
  -- Required. Must not contain braces unless they are params placeholders.
  prompt = "20% of a job is serial. What is its speedup on 4 processors?",
  points = 2,                        -- optional, default 1
  topics = { "speedup", "amdahl" },  -- optional: replaces the lesson's topics
  rubric = { "theory.parallel" },    -- optional: replaces the lesson's rubric
  hints = {                          -- optional, revealed one at a time
    "Serial fraction f = 0.2, p = 4.",
    "1 / (0.2 + 0.8/4)",
  },
  answer = 2.5,                      -- a number, in `unit`
  unit = "x",                        -- answers are read as a factor ("2.5", "2.5x")
  -- The default is 1% relative. Here: 1% or 0.01 absolute, whichever is
  -- wider, or the same 2 significant figures as the reference ("2.5").
  tolerance = { rel = 0.01, abs = 0.01, sig = 2 },
  -- Partial credit for answers outside the tolerance but inside a band.
  bands = {
    { rel = 0.05, score = 0.5, feedback = "Close: round only at the end." },
  },
  -- Common mistakes: an answer within tolerance of one of these scores 0
  -- and gets the feedback, which should say what went wrong.
  wrong = {
    { value = 4, feedback = "That is linear speedup; the serial 20% does not shrink." },
    { value = 1 / F, feedback = "1/f = 5 is the limit for infinitely many processors." },
  },
  -- Self-tests that `pack check` runs: answer text and expected score (a
  -- fraction of the points), or "invalid" for an answer that cannot be read.
  examples = {
    { "2.5", 1 },
    { "1/(0.2+0.8/4)", 1 },          -- students may write expressions
    { "2.6", 0.5 },                  -- 4% off: inside the 5% band
    { "5", 0 },                      -- a `wrong` value
    { "abc", "invalid" },
  },
}

-- ---------------------------------------------------------------------------
-- numeric, per student. params(rng) draws one student's numbers; the prompt
-- and hints show them through placeholders; answer(p, ctx) computes the
-- reference from the same numbers.
question {
  id = "speedup.variant",
  kind = "numeric",
  -- {name} writes p.name (up to 6 significant figures);
  -- {name:%.0f} uses a printf format.
  prompt = [[
A step takes {t1:%.0f} ms on one GPU, and {pct}% of that time is serial.
How long does it take on {p} GPUs?]],
  hints = { "T(p) = T(1) * (f + (1 - f)/p) with f = {pct}/100." },
  unit = "ms",                       -- "0.2 s" is converted; a bare number is ms
  params = function(rng)
    return {
      -- Round what you draw: the reference must use exactly what the
      -- student sees.
      t1 = wb.round(rng:uniform(200, 900), 0),   -- a float in [200, 900)
      pct = rng:int(10, 30),                     -- an integer in [10, 30]
      p = rng:pick({ 2, 4, 8 }),                 -- one of the list
    }
  end,
  answer = function(p, ctx)          -- ctx.params is the same table as p
    return p.t1 / wb.amdahl(p.pct / 100, p.p)
  end,
  wrong = {
    { value = function(p) return p.t1 / p.p end,
      feedback = "That divides all of T(1) by p; the serial part does not shrink." },
  },
  examples = {
    -- An answer computed for the example student's own numbers:
    { answer = function(p) return string.format("%.3f ms", p.t1 / wb.amdahl(p.pct / 100, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.3f", p.t1 / p.p) end, score = 0 },
    -- Fixed numbers, independent of the example student:
    { params = { t1 = 100, pct = 20, p = 4 }, answer = "40", score = 1 },
    { params = { t1 = 100, pct = 20, p = 4 }, answer = "0.04 s", score = 1 },
    { "40 MB", "invalid" },          -- a unit of another dimension
  },
}

-- The long form of a page, with an explicit title.
page {
  title = "Measuring it yourself",
  text = [[
The **amdahl** lab runs a workload on 1, 2, 4, ... workers and records the
speedup it measures. Questions linked to the lab are graded against *your*
run. The Karp-Flatt metric turns a measured speedup S on p workers into a
serial fraction: e = (1/S - 1/p) / (1 - 1/p).
]],
}

-- ---------------------------------------------------------------------------
-- numeric, linked to a lab. ctx.lab holds the student's latest completed run
-- of that lab; until there is one, the question asks the student to run the
-- lab and nothing is graded, so answer() can rely on ctx.lab.
question {
  id = "speedup.lab",
  kind = "numeric",
  prompt = [[
Take the speedup your latest run of the amdahl lab measured on 2 workers.
What serial fraction does the Karp-Flatt metric give for it?]],
  lab = "amdahl",
  answer = function(p, ctx)
    return wb.karp_flatt(ctx.lab.summary.speedup_p2, 2)
  end,
  -- Small fractions: +-0.002 absolute is fairer than 1% of 0.11.
  tolerance = { rel = 0.01, abs = 0.002 },
  hints = { "e = (1/S - 1/2) / (1 - 1/2)" },
  examples = {
    -- `lab` pretends the example student has a run with this summary.
    { lab = { summary = { speedup_p2 = 1.8 } }, answer = "0.111", score = 1 },
    { lab = { summary = { speedup_p2 = 1.8 } }, answer = "0.889", score = 0 },
    { lab = { summary = { speedup_p2 = 1.8 } }, answer = "n/a", score = "invalid" },
  },
}

-- ---------------------------------------------------------------------------
-- choice: one right answer. Students type a letter, a number or the text.
question {
  id = "speedup.limit",
  kind = "choice",
  prompt = "A job is 10% serial. What is the most speedup any number of processors can give?",
  choices = { "9x", "10x", "90x", "unlimited" },
  answer = 2,                        -- the index of the right choice
  why = {                            -- optional feedback per wrong choice
    [1] = "9 = 0.9/0.1 mixes up the fractions: the limit is 1/f.",
    [4] = "The serial part never gets faster, so the speedup is bounded.",
  },
  examples = {
    { "b", 1 },
    { "10x", 1 },                    -- the choice text
    { "d", 0 },
    { "z", "invalid" },              -- there is no choice z
  },
}

-- ---------------------------------------------------------------------------
-- multi: any subset. Score (right picks - wrong picks) / number of right
-- ones, never below 0.
question {
  id = "speedup.true",
  kind = "multi",
  prompt = "Which of these are true under Amdahl's law with f > 0? Pick all that apply.",
  choices = {
    "Speedup grows with p.",
    "Speedup never exceeds 1/f.",
    "Efficiency S/p stays at 100%.",
  },
  answer = { 1, 2 },                 -- the indices of all right choices
  examples = {
    { "a b", 1 },
    { "a", 0.5 },
    { "a b c", 0.5 },
    { "q", "invalid" },
  },
}

-- ---------------------------------------------------------------------------
-- ordering: list the items in the CORRECT order; students see them shuffled
-- (per variant) and answer with the letters they see. Because those letters
-- depend on the shuffle, examples here only test unreadable answers; pack
-- check also grades the correct order itself.
question {
  id = "speedup.rank",
  kind = "ordering",
  prompt = "Order these from the smallest to the largest speedup.",
  items = {
    "f = 0.5, p = 100",              -- 1.98
    "f = 0.2, p = 4",                -- 2.5
    "f = 0.1, p = 100",              -- 9.17
  },
  examples = {
    { "a b", "invalid" },            -- an item missing
    { "a a b", "invalid" },          -- an item twice
    { "a b x", "invalid" },          -- no item x
  },
}

-- ---------------------------------------------------------------------------
-- text: a short answer, compared case-insensitively with spaces folded and
-- surrounding punctuation ignored. `answer` may also be a single string or a
-- function(p, ctx) returning one; `patterns` are Lua patterns tried against
-- the normalised answer.
question {
  id = "speedup.name",
  kind = "text",
  prompt = "Whose law describes scaled speedup, where the problem grows with p?",
  answer = { "Gustafson", "Gustafson's law" },
  patterns = { "^gustafson" },       -- also "Gustafson-Barsis", "gustafsons law"
  examples = {
    { "gustafson", 1 },
    { "Gustafson-Barsis.", 1 },
    { "Amdahl", 0 },
    { "", "invalid" },
  },
}

-- ---------------------------------------------------------------------------
-- design: free text graded by concepts, on evidence: only sentences that make
-- claims count (a bare list of terms earns nothing), a term in a negated
-- clause ("I would not profile it") does not count, and a `contradicts` claim
-- cancels its concept. A concept is found by a `match` phrase (whole words;
-- "word*" is a prefix; small misspellings of long words pass), a Lua
-- `pattern` on a sentence, or a `near` group (terms within N words of each
-- other); the score is the found points over all points, and the feedback
-- lists each missed concept's own feedback.
question {
  id = "speedup.design",
  kind = "design",
  -- A rubric of phrases, as before claims: pack check's attacks beat it
  -- (the words in nonsense frames), so they are reported, not counted.
  attacks = "report",
  prompt = "Your job scales badly beyond 8 GPUs. How would you find out why?",
  points = 3,
  rubric = { "practice.profiling" },
  concepts = {
    { name = "measure", points = 3,    -- points weigh concepts against each other
      match = { "profile", "profiler", "timeline" },
      patterns = { "profil" },
      near = { { "measur*", "time", within = 4 } },   -- "measure where the time goes"
      feedback = "Measure where the time goes before changing anything." },
    { name = "serial fraction", points = 1,
      match = { "karp-flatt", "serial fraction" },
      patterns = { "karp", "serial" },
      contradicts = {                  -- a claim that says the opposite cancels it
        { match = { "no serial part", "fully parallel" },
          feedback = "You called the job fully parallel: a speedup that flattens out means a serial part (Karp-Flatt measures it)." },
      },
      feedback = "Compute the Karp-Flatt serial fraction at several p." },
  },
  model = "I would profile a step to see where the time goes, and compute the Karp-Flatt serial fraction at 2, 4, 8 and 16 GPUs.",
  -- Answers a person graded: pack check grades them and fails when the
  -- automatic score is further from the person's than `tol` (default 0.25),
  -- or gives a keyword list or a reversed answer more than a quarter.
  samples = {
    { role = "good", score = 1, tol = 0, answer = "I would profile one step and compute the Karp-Flatt serial fraction at 2, 4, 8 and 16 GPUs." },
    { role = "partial", score = 0.75, answer = "I would measure where the time goes with a timeline." },
    { role = "keywords", score = 0, answer = "profiler, timeline, Karp-Flatt, serial fraction" },
    { role = "reversed", score = 0, answer = "The job is fully parallel, so there is no serial part, and profiling would not help." },
  },
  examples = {
    { "I would profile it and compute the Karp-Flatt serial fraction for each p.", 1 },
    { "I would profile it.", 0.75 },   -- 3 of 4 concept points
    { "profile, Karp-Flatt", 0 },      -- a list of terms is not an answer
    { "No idea.", 0 },
    { "", "invalid" },
  },
}

-- ---------------------------------------------------------------------------
-- Custom grading: any kind may grade the raw answer text itself with
-- grade(answer, ctx). It returns a score fraction and optional feedback, or a
-- table { score =, feedback =, valid = }. The `wb` helpers are there to help.
question {
  id = "speedup.custom",
  kind = "text",
  prompt = "Name the law that bounds the speedup of a fixed-size job, and give the bound for f = 0.25 (e.g. 'Smith 3').",
  answer = "Amdahl 4",               -- the reference, shown after grading; it must score 1
  grade = function(answer, ctx)
    local text = wb.norm(answer)     -- lower case, spaces folded
    local num = text:match("[%d%.]+[%d%.%s/%(%)%+%-%*]*")
    local v = num and wb.number(num, "")
    if not v then
      return { valid = false, feedback = "Give the law's name and a number, e.g. 'Smith 3'." }
    end
    local score, fb = 0, {}
    if wb.has(text, "amdahl") or wb.has(text, "amdahl's") then
      score = score + 0.5
    else
      fb[#fb + 1] = "The law for a fixed-size job is Amdahl's."
    end
    if wb.close(v, 1 / 0.25) then
      score = score + 0.5
    elseif wb.close(v, wb.gustafson(0.25, 2)) then
      fb[#fb + 1] = "That is a scaled (Gustafson) speedup, not the fixed-size bound."
    else
      fb[#fb + 1] = "The bound is 1/f = " .. wb.sig(1 / 0.25, 3) .. "."
    end
    return score, table.concat(fb, " ")
  end,
  examples = {
    { "Amdahl 4", 1 },
    { "amdahl's law, 4x", 1 },
    { "Gustafson 4", 0.5 },
    { "Amdahl", "invalid" },         -- no number
  },
}
