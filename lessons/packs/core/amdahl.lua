-- Lesson 1: Amdahl's law and scalability.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md, ml-system-optimization-notes.txt,
-- day5-summary-and-assessment.md); the text is ours. Every worked example of
-- the material is a question of its own here, with the document's numbers
-- (and also a fixed-number example of the matching variant question):
--   * f = 0.2, p = 4: 2.5x (amdahl.speedup-worked), T(4) = 40 s of 100 s
--     (amdahl.time-worked), maximum 5x (amdahl.ceiling-worked);
--   * f = 0.15, p = 10: 4.26x and maximum 6.67x (amdahl.limit-pair);
--   * 20% serial on 100 processors: 4.8x (amdahl.hundred-worked);
--   * speedup 3 on 5 processors: f = 1/6 (amdahl.serial-fraction-worked);
--   * the crash course's Amdahl table, every cell: its columns
--     (amdahl.table-p4, amdahl.table-p8, amdahl.table-column for p = 16,
--     amdahl.table-max) and its row f = 0.25 (amdahl.table-row); the cells
--     are also fixed-number examples of amdahl.speedup.
-- The crash course solves "speedup 3 on 5" with 0.333 and 0.133 and reports
-- 0.167; its own steps give 0.16625. The exact answer is 1/6: both are
-- accepted and the page explains the rounding.
--
-- Conventions in this file:
--   * f is always the serial fraction (Amdahl: of the one-processor run time).
--     Prompts that give the parallel share say so in words, on purpose.
--   * Tolerance is the default 1% relative unless a comment says why not.
--   * Prompts never contain braces except params placeholders.

lesson {
  id = "amdahl",
  title = "Amdahl's law and scalability",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
}

-- Reads the numbers of a multi-number answer ("2.29 2.91, 3.37 and 4x"):
-- a list of numbers, or nil and why.
local function read_numbers(answer)
  local text = answer:gsub("%f[%a][Aa][Nn][Dd]%f[%A]", " "):gsub(",%s+", " "):gsub(";", " ")
  local nums = {}
  for word in text:gmatch("%S+") do
    if word ~= "x" and word ~= "X" and word ~= "×" then
      local v, why = wb.number(word, "")
      if not v then return nil, "Could not read '" .. word .. "': " .. (why or "not a number") end
      nums[#nums + 1] = v
    end
  end
  return nums
end

-- Grades a list of Amdahl speedups against cases { f, p } (p = nil: the
-- ceiling 1/f), each worth an equal share, by the course's rounding rule
-- (the first page): within 1%, or the same three significant figures. The
-- crash course's table rounds to one decimal; those values are judged by
-- the same rule (its 3.4 for 3.37 is within 1%, its 1.8 for 1.78 is not).
local TABLE_TOL = { rel = 0.01, sig = 3 }
local function grade_speedups(answer, cases, what)
  local nums, why = read_numbers(answer)
  if not nums then return { valid = false, feedback = why } end
  if #nums ~= #cases then
    return { valid = false,
             feedback = string.format("Write exactly %d numbers separated by spaces: %s.", #cases, what) }
  end
  local score, notes = 0, {}
  for i, c in ipairs(cases) do
    local f, p = c[1], c[2]
    local ref = p and wb.amdahl(f, p) or 1 / f
    local name = p and string.format("f = %g, p = %d", f, p) or string.format("the maximum for f = %g", f)
    if wb.within(nums[i], ref, TABLE_TOL) then
      score = score + 1 / #cases
    elseif p and wb.within(nums[i], 1 / ((1 - f) + f / p), TABLE_TOL) then
      notes[#notes + 1] = string.format("%s: you used the parallel share as f; the speedup is %.2f.", name, ref)
    elseif p and wb.within(nums[i], p, TABLE_TOL) then
      notes[#notes + 1] = string.format("%s: %d is linear speedup; the serial part caps it at %.2f.", name, p, ref)
    elseif not p and wb.within(nums[i], 1 / (1 - f), TABLE_TOL) then
      notes[#notes + 1] = string.format("%s: 1/(1 - f) uses the parallel share; the maximum is 1/f = %.2f.", name, ref)
    elseif wb.within(nums[i], ref, { rel = 0.03 }) then
      notes[#notes + 1] = string.format("%s: %s is more than 1%% off; give three significant figures (%s).",
                                        name, wb.sig(nums[i], 6), wb.sig(ref, 3))
    else
      notes[#notes + 1] = string.format("%s: expected %.2f.", name, ref)
    end
  end
  if #notes == 0 then
    for _, c in ipairs(cases) do
      if not c[2] then return 1, "Right: every value matches Amdahl's law (1/f for the maximum)." end
    end
    return 1, "Right: every value matches 1 / (f + (1 - f)/p)."
  end
  return score, table.concat(notes, " ")
end

------------------------------------------------------------------------------
page [[
# Speedup and efficiency

Run a job on one processor and time it: call that **T(1)**. Run the same job,
same input, same result, on **p** processors and time it again: **T(p)**. Two
numbers say what the extra processors bought you.

| quantity   | definition          | what perfect looks like |
|------------|---------------------|-------------------------|
| speedup    | S(p) = T(1) / T(p)  | S(p) = p                |
| efficiency | E(p) = S(p) / p     | E(p) = 1, i.e. 100 %    |

*Speedup* is how many times faster the job got. *Efficiency* is the share of
the processor time you are paying for that does useful work: at E = 0.5, half
of every GPU-hour is spent waiting. Speedup is what a user feels; efficiency
is what the budget feels.

Two habits make these numbers honest:

- **T(1) is the best one-processor program you have**, not the parallel
  program started with a single worker. The parallel version usually carries
  overhead (threads, communication calls, extra copies) that a serial version
  would not pay, and dividing by a slow T(1) flatters the speedup.
- **The work must be the same.** If more processors also process more data,
  you are measuring something else (weak scaling, at the end of this lesson).

Now and then a measurement shows S(p) > p (*superlinear* speedup). It is real
but it is not magic: usually each processor's share of the data has become
small enough to fit in its cache. It is a memory-hierarchy effect to explain,
not a law of parallelism.

## Numbers in your answers

Most questions of this course ask for a number, and one rule grades
them all:

- Give **three significant figures**: 4.26, 0.167, 49.9, 1250. More
  figures are fine, and so is an exact expression such as `1/6` or
  `1/(0.15 + 0.85/10)`.
- A three-figure answer, correctly rounded, is always accepted. The
  margin is 1 % of the exact value unless a question needs another
  (a few accept more, because their inputs are rounded figures); the
  accepted range is shown once you are right.
- Whole counts (blocks, GPUs, replicas) are exact, and a question that
  needs more than three figures says so in its prompt.
- Fewer figures are judged by the same margin, so two are a gamble:
  6.7 for 6.667 is 0.5 % off and counts, 4.3 for 4.255 is 1.05 % off
  and does not. Round only at the end, to three figures.
]]

------------------------------------------------------------------------------
page [[
# Amdahl's law

Split the one-processor run time into two kinds of work:

- a **serial** part that only one processor can do (reading the input,
  a global reduction, the optimizer step on one host, ...), and
- a **parallel** part that divides evenly over any number of processors.

Let **f** be the serial part's share of T(1). The parallel share is 1 − f.
With p processors the serial part takes as long as before and the parallel
part takes 1/p of its time:

```
T(p) = T(1) * ( f + (1 - f) / p )

              1
S(p) = ---------------
        f + (1 - f)/p
```

**Which fraction is f?** A problem that says "80 % of the work can be
parallelized" gives you 1 − f, so f = 0.2. Putting the parallel fraction
where the serial one belongs is the most common slip with this formula; if
your speedup comes out barely above 1, check this first. Likewise, a matrix
multiplication whose operations are "90 % parallelizable" has f = 0.1, so no
number of GPUs makes it more than 10 times faster (next page).

## Worked example

A job takes 100 s on one processor, 20 % of it is serial, and we use 4
processors.

1. f = 0.2, parallel share 1 − f = 0.8, p = 4.
2. Denominator: 0.2 + 0.8 / 4 = 0.2 + 0.2 = 0.4.
3. Speedup: S(4) = 1 / 0.4 = **2.5×**.
4. Parallel time: T(4) = 100 s / 2.5 = **40 s**.

Check step 4 without the formula: the serial 20 s stay 20 s, the parallel 80 s
become 80 / 4 = 20 s, total 40 s. Efficiency: 2.5 / 4 = 62.5 %.

```
one processor, 100 s:
  P1 |ssss|pppppppppppppppp|          s = serial, p = parallel work
     0    20               100 s      (each character is 5 s)

four processors, 40 s:
  P1 |ssss|pppp|
  P2 |....|pppp|                      . = waiting for the serial part
  P3 |....|pppp|
  P4 |....|pppp|
     0    20   40 s
```

The serial part leaves three processors idle for half of the run: that idle
time is exactly the efficiency lost.

Amdahl's law is an *upper bound*: it assumes the parallel part splits
perfectly and costs nothing to coordinate. Communication, synchronisation and
load imbalance only make the real speedup lower.
]]

calculator {
  id = "amdahl.laws",
  title = "Amdahl and Gustafson",
  inputs = {
    { name = "f", label = "serial fraction f", default = 0.2, min = 0, max = 1,
      help = "share of the one-processor time that cannot run in parallel" },
    { name = "p", label = "processors p", default = 4, min = 1, max = 100000, integer = true },
    { name = "t1", label = "one-processor time T(1)", default = 100, min = 0, max = 1e9, unit = "s" },
  },
  compute = function(v)
    local s = wb.amdahl(v.f, v.p)
    local out = {
      { label = "Amdahl speedup S(p)", value = s, unit = "x" },
      { label = "run time T(p)", value = v.t1 / s, unit = "s" },
      { label = "efficiency E(p)", value = 100 * s / v.p, unit = "%" },
    }
    if v.f > 0 then
      out[#out + 1] = { label = "ceiling 1/f (p unbounded)", value = 1 / v.f, unit = "x" }
    else
      out[#out + 1] = { label = "ceiling 1/f (p unbounded)", text = "none: with f = 0 the speedup grows with p" }
    end
    out[#out + 1] = { label = "Gustafson scaled speedup, s = f", value = wb.gustafson(v.f, v.p), unit = "x" }
    -- A timeline: 40 characters for T(1), at most 8 processor rows.
    local ser = math.floor(40 * v.f + 0.5)
    local par = math.max(1, math.floor(40 * (1 - v.f) / v.p + 0.5))
    if v.f >= 1 then par = 0 end
    local rows = { "P1 |" .. string.rep("s", ser) .. "|" .. string.rep("p", par) .. "|" }
    for i = 2, math.min(v.p, 8) do
      rows[#rows + 1] = string.format("P%-2d|%s|%s|", i, string.rep(".", ser), string.rep("p", par))
    end
    if v.p > 8 then rows[#rows + 1] = string.format("... %d processors in all", v.p) end
    rows[#rows + 1] = "s serial, p parallel, . idle; 40 characters = T(1)"
    out[#out + 1] = { label = "timeline", text = table.concat(rows, "\n") }
    return out
  end,
  examples = {
    { inputs = { f = 0.2, p = 4, t1 = 100 }, outputs = { 2.5, 40, 62.5, 5, 3.4 } },
    { inputs = { f = 0.15, p = 10 }, outputs = { 1 / 0.235, 23.5, 100 / 2.35, 1 / 0.15 } },
    { inputs = { f = 0.2, p = 100 }, outputs = { 1 / 0.208, 20.8, 100 / 20.8, 5, 80.2 } },
    { inputs = { f = 0, p = 8 }, outputs = { 8, 12.5, 100, "none: with f = 0 the speedup grows with p" } },
  },
}

question {
  id = "amdahl.speedup-worked",
  kind = "numeric",
  title = "Speedup with 20% serial on 4 processors",
  prompt = [[
A job spends 20% of its one-processor run time in serial code; the rest
parallelizes perfectly. What speedup does Amdahl's law give on 4 processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
    "Which part of the run gets faster with more processors, and which does not?",
    "The serial fraction is f = 0.2 and p = 4. Speedup = 1 / (f + (1 - f)/p).",
    "The denominator is 0.2 + 0.8/4 = 0.4.",
  },
  answer = 2.5,
  wrong = {
    { value = 1 / (0.8 + 0.2 / 4),
      feedback = "You used 0.8 as the serial fraction. 80% is the parallel share; f = 0.2." },
    { value = 4, feedback = "4 is the ideal, linear speedup. The serial 20% does not get faster." },
    { value = 5, feedback = "5 = 1/f is the limit for infinitely many processors, not for 4." },
    { value = 0.4, feedback = "0.4 is the denominator f + (1 - f)/p; the speedup is its inverse." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "2.5", 1 },
    { "2.5x", 1 },
    { "1/(0.2+0.8/4)", 1 },
    { "2.52", 1 },          -- within 1%
    { "2.6", 0 },           -- 4% off: close but wrong
    { "1.18", 0 },          -- serial and parallel fractions swapped
    { "5", 0 },             -- the 1/f limit
    { "abc", "invalid" },
    { "2,5", "invalid" },   -- decimal comma
  },
}

question {
  id = "amdahl.time-worked",
  kind = "numeric",
  title = "Parallel run time",
  prompt = [[
The same job takes 100 s on one processor, with 20% of that time serial.
How long does it take on 4 processors?
Give three significant figures.]],
  unit = "s",
  topics = { "amdahl", "speedup" },
  hints = {
    "The serial part does not shrink: 20 s stay 20 s.",
    "The parallel 80 s are shared by 4 processors.",
  },
  answer = 40,
  wrong = {
    { value = 25, feedback = "100 s / 4 assumes everything parallelizes. The 20 s of serial work do not shrink." },
    { value = 20, feedback = "That is only the parallel part (80 s / 4). Add the 20 s of serial work." },
    { value = 250, feedback = "The run time goes down: divide T(1) by the speedup 2.5, do not multiply." },
    { value = 2.5, feedback = "2.5 is the speedup. The question asks for the time: 100 s / 2.5." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "40", 1 },
    { "40 s", 1 },
    { "40000 ms", 1 },      -- any time unit is converted
    { "20 + 80/4", 1 },
    { "25", 0 },            -- ideal linear scaling
    { "41", 0 },            -- 2.5% off
    { "20", 0 },            -- forgot the serial part
    { "40 MB", "invalid" }, -- not a time
    { "forty", "invalid" },
  },
}

question {
  id = "amdahl.speedup",
  kind = "numeric",
  title = "Amdahl speedup (your numbers)",
  prompt = [[
A training job spends a fraction f = {f} of its one-GPU time in serial work
(data preparation and bookkeeping on the host). The rest divides evenly.
What is the speedup on {p} GPUs, according to Amdahl's law?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
    "Split the one-processor time into a part that does not shrink and a part the processors share.",
    "Speedup = 1 / (f + (1 - f)/p).",
    "Here the denominator is {f} + (1 - {f})/{p}.",
  },
  params = function(rng)
    -- Half the draws take f from the course's worked examples and table
    -- (0.1, 0.15, 0.2, 0.25, 0.5), the others any f from 0.05 to 0.30; p
    -- includes the course's 4, 5, 8, 10, 16 and 100. f = 0.5 never meets
    -- p = 100, where S = 1.98 would lie within 1% of the wrong value 1/f.
    local f = rng:int(0, 1) == 0 and rng:pick({ 0.1, 0.15, 0.2, 0.25, 0.5 }) or rng:int(5, 30) / 100
    local ps = f == 0.5 and { 2, 4, 5, 8, 10, 16, 32 } or { 2, 4, 5, 8, 10, 16, 32, 100 }
    return { f = f, p = rng:pick(ps) }
  end,
  answer = function(p) return wb.amdahl(p.f, p.p) end,
  -- An answer 1-3% off usually comes from rounding the denominator too early:
  -- half credit and a nudge, rather than nothing.
  bands = {
    { rel = 0.03, score = 0.5, feedback = "Close: keep more digits in f + (1 - f)/p and round only at the end." },
  },
  wrong = {
    -- At f = 0.5 swapping the shares changes nothing, so the mistake cannot
    -- be told apart: -1 (no answer a student gives) stands for "not this time".
    { value = function(p) return p.f ~= 0.5 and 1 / ((1 - p.f) + p.f / p.p) or -1 end,
      feedback = "You swapped the fractions: f is the serial share, so it is the term that is NOT divided by p." },
    { value = function(p) return p.p end,
      feedback = "That is linear speedup; the serial fraction does not shrink with more GPUs." },
    { value = function(p) return 1 / p.f end,
      feedback = "1/f is the limit for infinitely many GPUs. With a finite p the parallel term (1 - f)/p still counts." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p)) end, score = 1 },
    -- 2% low (above the answer lies 1/f, a mistake of its own when p is large)
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p) * 0.98) end, score = 0.5 },
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p) * 1.10) end, score = 0 },
    { answer = function(p) return tostring(p.p) end, score = 0 },
    { "", "invalid" },
    { "NaN", "invalid" },
    -- The course's worked examples, with their own numbers:
    { params = { f = 0.2, p = 4 }, answer = "2.5", score = 1 },
    { params = { f = 0.15, p = 10 }, answer = "4.26", score = 1 },
    { params = { f = 0.15, p = 10 }, answer = "4.3", score = 0.5 },  -- 1.05% off
    { params = { f = 0.15, p = 10 }, answer = "6.67", score = 0 },   -- the limit, not S(10)
    { params = { f = 0.2, p = 100 }, answer = "4.8", score = 1 },    -- the notes' 4.8 (exactly 4.808)
    -- The crash course's table, cell by cell (its one-decimal values are
    -- within 1% except where noted):
    { params = { f = 0.1, p = 4 }, answer = "3.08", score = 1 },
    { params = { f = 0.1, p = 8 }, answer = "4.7", score = 1 },
    { params = { f = 0.1, p = 16 }, answer = "6.4", score = 1 },
    { params = { f = 0.2, p = 8 }, answer = "3.33", score = 1 },
    { params = { f = 0.2, p = 16 }, answer = "4.0", score = 1 },
    { params = { f = 0.25, p = 4 }, answer = "2.29", score = 1 },
    { params = { f = 0.5, p = 4 }, answer = "1.6", score = 1 },
    { params = { f = 0.5, p = 8 }, answer = "1.78", score = 1 },
    { params = { f = 0.5, p = 8 }, answer = "1.8", score = 0.5 },      -- table's rounding: 1.25% off
    { params = { f = 0.5, p = 16 }, answer = "1.88", score = 1 },
  },
}

question {
  id = "amdahl.time",
  kind = "numeric",
  title = "Parallel run time (your numbers)",
  prompt = [[
A job takes {t1} s on one processor, and {pct}% of that time is serial work.
How long does it take on {p} processors, according to Amdahl's law?
Give three significant figures.]],
  unit = "s",
  topics = { "amdahl", "speedup" },
  hints = {
    "The serial {pct}% keeps its length; the rest is shared by {p} processors.",
    "T(p) = T(1) x (f + (1 - f)/p) with f = {pct}/100.",
  },
  params = function(rng)
    return { t1 = rng:pick({ 60, 100, 120, 200, 300, 500, 900 }), pct = rng:int(5, 30),
             p = rng:pick({ 2, 4, 8, 10, 16, 32, 100 }) }
  end,
  answer = function(p) return p.t1 * (p.pct / 100 + (1 - p.pct / 100) / p.p) end,
  wrong = {
    { value = function(p) return p.t1 / p.p end,
      feedback = "T(1)/p assumes everything parallelizes. The serial part does not shrink." },
    { value = function(p) return p.t1 * (1 - p.pct / 100) / p.p end,
      feedback = "That is only the parallel part's time. Add the serial part, which does not shrink." },
    { value = function(p) return p.t1 * ((1 - p.pct / 100) + (p.pct / 100) / p.p) end,
      feedback = "You divided the serial share by p: only the PARALLEL share (1 - f) is divided." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", p.t1 * (p.pct / 100 + (1 - p.pct / 100) / p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f min", p.t1 * (p.pct / 100 + (1 - p.pct / 100) / p.p) / 60) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.05 * p.t1 * (p.pct / 100 + (1 - p.pct / 100) / p.p)) end, score = 0 },
    { answer = function(p) return string.format("%.4f", p.t1 / p.p) end, score = 0 },
    { params = { t1 = 100, pct = 20, p = 4 }, answer = "40", score = 1 },
    { params = { t1 = 100, pct = 20, p = 4 }, answer = "25", score = 0 },
    { "40 GB", "invalid" },
    { params = { t1 = 100, pct = 20, p = 100 }, answer = "20.8", score = 1 },   -- the notes' 4.8x
  },
}

------------------------------------------------------------------------------
page [[
# The ceiling: 1/f

Give Amdahl's formula more and more processors. The parallel term (1 − f)/p
shrinks towards zero, and what is left is the serial fraction alone:

```
S(p) -> 1 / f      as p grows without bound
```

No number of processors beats **1/f**. With 20 % serial work the job can
never run more than 5× faster; with 10 %, never more than 10×.

| f (serial) | p = 4 | p = 8 | p = 32 | p = 100 | limit 1/f |
|-----------:|------:|------:|-------:|--------:|----------:|
| 0          | 4     | 8     | 32     | 100     | none      |
| 0.05       | 3.48  | 5.93  | 12.55  | 16.8    | 20        |
| 0.1        | 3.08  | 4.71  | 7.80   | 9.17    | 10        |
| 0.2        | 2.50  | 3.33  | 4.44   | 4.81    | 5         |
| 0.5        | 1.60  | 1.78  | 1.94   | 1.98    | 2         |

(The course's own table has the columns p = 4, 8 and 16, the maximum, and
a row f = 0.25. The questions below ask you to fill it in, column by column,
and the row f = 0.25. Its values are rounded to one decimal; give three
significant figures, as everywhere in this course.)

## Worked examples

**f = 0.15 on 10 processors.** Denominator 0.15 + 0.85 / 10 = 0.235, so
S(10) = 1 / 0.235 ≈ **4.26×**. The ceiling is 1 / 0.15 ≈ **6.67×**: ten
processors already reach 64 % of everything parallelism can ever give this
job, at an efficiency of only 43 %.

**20 % serial on 100 processors.** Denominator 0.2 + 0.8 / 100 = 0.208, so
S(100) ≈ **4.81×** (often quoted as 4.8). That is 25 times the processors of
the 4-processor example for not even twice its 2.5×, and efficiency falls to
4.8 %: 95 of the 100 processors' time is idle.

The lesson for optimisation: once p is large, **the serial fraction is the
bottleneck, not the processor count.** Halving f from 0.2 to 0.1 doubles the
ceiling; doubling p from 100 to 200 gains 2 %.

## In ML training

Serial work in a training step is whatever all GPUs wait for: a data loader
that runs *before* each step instead of alongside it, the host-side optimizer
step, logging and checkpointing, and any communication that is not overlapped.
If loading overlaps with compute (prefetching), a step takes roughly
max(t_data, t_gpu), which is a pipelining bound rather than Amdahl's law;
only the part that cannot be overlapped behaves like f.
]]

question {
  id = "amdahl.hundred-worked",
  kind = "numeric",
  title = "20% serial on 100 processors",
  prompt = [[
20% of a program's one-processor run time is serial. What speedup does
Amdahl's law predict on 100 processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
    "With 100 processors the parallel part almost vanishes: the answer must stay below the ceiling 1/f.",
    "f = 0.2, p = 100: compute 1 / (0.2 + 0.8/100).",
    "The answer must be below the ceiling 1/f.",
  },
  answer = function() return wb.amdahl(0.2, 100) end,  -- 4.8077
  wrong = {
    { value = 5, feedback = "5 = 1/f is the ceiling with infinitely many processors; with 100 the term 0.8/100 still counts." },
    { value = 100, feedback = "That is linear speedup. Amdahl caps this job at 1/f = 5, however many processors." },
    { value = function() return wb.gustafson(0.2, 100) end,
      feedback = "80.2 is Gustafson's scaled speedup, for a problem that grows with p. Here the problem is fixed." },
    { value = function() return 1 / (0.8 + 0.2 / 100) end,
      feedback = "You used 0.8 as the serial fraction; the serial share is 0.2." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "4.8", 1 },
    { "4.81", 1 },
    { "4.7", 0 },           -- 2.2% off
    { "5", 0 },             -- forgot that p is finite
    { "100", 0 },           -- ignored the 1/f cap entirely
    { "80.2", 0 },          -- Gustafson
    { "4.8 ms", "invalid" },
    { "five", "invalid" },
  },
}

question {
  id = "amdahl.ceiling-worked",
  kind = "numeric",
  title = "The ceiling with 20% serial work",
  prompt = [[
20% of an ML training job's one-processor run time is inherently serial.
What is the largest speedup it can ever reach, with unlimited processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = { "As p grows, (1 - f)/p goes to 0 and only f is left in the denominator." },
  answer = 5,
  wrong = {
    { value = 1.25, feedback = "1/0.8 uses the parallel share. The ceiling is 1/f with the SERIAL share f = 0.2." },
    { value = 2.5, feedback = "2.5 is the speedup on 4 processors. With unlimited processors the limit is 1/f." },
    { value = 4.81, feedback = "4.81 is the speedup on 100 processors, still below the ceiling 1/f." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "5", 1 },
    { "1/0.2", 1 },
    { "5x", 1 },
    { "1.25", 0 },
    { "4.8", 0 },
    { "infinite", "invalid" },
  },
}

question {
  id = "amdahl.table-row",
  kind = "text",
  title = "A row of the Amdahl table",
  prompt = [[
Complete the row f = 0.25 of the Amdahl table: the speedup on 4, 8 and 16
processors, then the maximum speedup. Write four numbers separated by spaces,
e.g. 1.11 1.22 1.33 1.44. Give three significant figures.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "Along a row f stays the same and p grows: apply Amdahl's law once for each p.",
    "Speedup = 1 / (0.25 + 0.75/p) for p = 4, 8, 16.",
    "Maximum: 1 / 0.25.",
  },
  answer = "2.29 2.91 3.37 4",
  -- Four numbers, a quarter of the credit each, by the rounding rule (see
  -- TABLE_TOL); the course table's one-decimal 2.3 2.9 3.4 4 happen to be
  -- within 1%.
  grade = function(answer)
    return grade_speedups(answer, { { 0.25, 4 }, { 0.25, 8 }, { 0.25, 16 }, { 0.25 } },
                          "the speedups on 4, 8 and 16 processors, then the maximum")
  end,
  examples = {
    { "2.29 2.91 3.37 4", 1 },
    { "2.29 2.91 3.37 4.00", 1 },
    { "2.3 2.9 3.4 4", 1 },           -- the course table's rounding, within 1%
    { "2.29, 2.91, 3.37 and 4x", 1 },
    { "2.29 2.91 3.37 5", 0.75 },     -- wrong maximum
    { "1.23 1.29 1.31 4", 0.25 },     -- parallel share used as f
    { "4 8 16 4", 0.25 },             -- linear speedup
    { "2.29 2.91 3.37", "invalid" },  -- three numbers
    { "2,29 2,91 3,37 4", "invalid" },
  },
}

question {
  id = "amdahl.table-column",
  kind = "text",
  title = "A column of the Amdahl table",
  prompt = [[
Complete the column p = 16 of the Amdahl table: the speedup on 16 processors
for f = 0.1, 0.2, 0.25 and 0.5, in that order. Write four numbers separated
by spaces, to three significant figures.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "Down a column p is fixed and f changes: a larger serial fraction can only lower the speedup.",
    "Speedup = 1 / (f + (1 - f)/16) for each f.",
    "None of them can exceed 1/f.",
  },
  answer = "6.4 4 3.37 1.88",
  -- As amdahl.table-row: a quarter each; the table's 6.4 4.0 3.4 1.9 are
  -- within 1%.
  grade = function(answer)
    return grade_speedups(answer, { { 0.1, 16 }, { 0.2, 16 }, { 0.25, 16 }, { 0.5, 16 } },
                          "the speedups for f = 0.1, 0.2, 0.25 and 0.5")
  end,
  examples = {
    { "6.4 4 3.37 1.88", 1 },
    { "6.4 4.0 3.4 1.9", 1 },          -- the course table's rounding, within 1%
    { "6.4 4 3.37 2", 0.75 },          -- 1/f instead of S(16) for f = 0.5
    { "10 5 4 2", 0 },                 -- the ceilings
    { "16 16 16 16", 0 },
    { "6.4 4", "invalid" },
    { "six four", "invalid" },
  },
}

question {
  id = "amdahl.table-p4",
  kind = "text",
  title = "The Amdahl table, column p = 4",
  prompt = [[
Complete the column p = 4 of the Amdahl table: the speedup on 4 processors
for f = 0.1, 0.2, 0.25 and 0.5 (f is the serial fraction), in that order.
Write four numbers separated by spaces, to three significant figures.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "This column fixes p = 4: apply Amdahl's law once for each f.",
    "Speedup = 1 / (f + (1 - f)/4) for each f.",
    "For f = 0.2 you already know the answer from the worked example: 2.5.",
  },
  answer = "3.08 2.5 2.29 1.6",
  -- As amdahl.table-row: a quarter each; the course's one-decimal values
  -- (3.1 2.5 2.3 1.6) happen to be within 1%.
  grade = function(answer)
    return grade_speedups(answer, { { 0.1, 4 }, { 0.2, 4 }, { 0.25, 4 }, { 0.5, 4 } },
                          "the speedups on 4 processors for f = 0.1, 0.2, 0.25 and 0.5")
  end,
  examples = {
    { "3.08 2.5 2.29 1.6", 1 },
    { "3.1 2.5 2.3 1.6", 1 },          -- the course table's rounding, within 1%
    { "3.08 2.5 2.29 2", 0.75 },       -- the maximum instead of S(4) for f = 0.5
    { "1.08 1.18 1.23 1.6", 0.25 },    -- the parallel share used as f
    { "4 4 4 4", 0 },                  -- linear speedup
    { "3.08 2.5", "invalid" },
    { "3,08 2,5 2,29 1,6", "invalid" },
  },
}

question {
  id = "amdahl.table-p8",
  kind = "text",
  title = "The Amdahl table, column p = 8",
  prompt = [[
Complete the column p = 8 of the Amdahl table: the speedup on 8 processors
for f = 0.1, 0.2, 0.25 and 0.5 (f is the serial fraction), in that order.
Write four numbers separated by spaces, to three significant figures.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "This column fixes p = 8: apply Amdahl's law once for each f.",
    "Speedup = 1 / (f + (1 - f)/8) for each f.",
    "Each value must lie between the p = 4 value and the maximum 1/f.",
  },
  answer = "4.71 3.33 2.91 1.78",
  -- A quarter each. The course's one-decimal values (4.7 3.3 2.9 1.8) are
  -- judged by the rounding rule: 1.8 for 1.778 is 1.25% off.
  grade = function(answer)
    return grade_speedups(answer, { { 0.1, 8 }, { 0.2, 8 }, { 0.25, 8 }, { 0.5, 8 } },
                          "the speedups on 8 processors for f = 0.1, 0.2, 0.25 and 0.5")
  end,
  examples = {
    { "4.71 3.33 2.91 1.78", 1 },
    { "4.71 3.33 2.91 1.78", 1 },
    { "4.7 3.3 2.9 1.8", 0.75 },       -- the course table's rounding: 1.8 is 1.25% off
    { "4.71 3.33 2.91 1.6", 0.75 },    -- the p = 4 value for f = 0.5
    { "10 5 4 2", 0 },                 -- the maxima
    { "8 8 8 8", 0 },
    { "4.71 3.33 2.91", "invalid" },
    { "lots", "invalid" },
  },
}

question {
  id = "amdahl.table-max",
  kind = "text",
  title = "The Amdahl table, maximum speedup",
  prompt = [[
Complete the column "maximum speedup" (unlimited processors) of the Amdahl
table for f = 0.1, 0.2, 0.25 and 0.5 (f is the serial fraction), in that
order. Write four numbers separated by spaces.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = { "With p unbounded the speedup tends to 1/f." },
  answer = "10 5 4 2",
  -- A quarter each; the parallel share used as f is named in the feedback.
  grade = function(answer)
    return grade_speedups(answer, { { 0.1 }, { 0.2 }, { 0.25 }, { 0.5 } },
                          "the maximum speedups for f = 0.1, 0.2, 0.25 and 0.5")
  end,
  examples = {
    { "10 5 4 2", 1 },
    { "10x 5x 4x 2x", 1 },
    { "1.11 1.25 1.33 2", 0.25 },      -- 1/(1 - f): only f = 0.5 is right
    { "10 5 4 2.5", 0.75 },
    { "10 5 4", "invalid" },
    { "infinite", "invalid" },
  },
}

question {
  id = "amdahl.procs-needed",
  kind = "numeric",
  title = "Processors for a target speedup (your numbers)",
  prompt = [[
A job has a serial fraction f = {f}. What is the smallest number of
processors that gives a speedup of at least {S}, according to Amdahl's law?
Give a whole number.]],
  topics = { "amdahl", "speedup" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Speedup grows with p but ever more slowly: find the smallest p whose speedup reaches the target.",
    "Solve 1 / (f + (1 - f)/p) >= {S} for p: p >= (1 - f) / (1/{S} - f).",
    "Processors come whole: round up.",
  },
  params = function(rng)
    -- The target is a share of the ceiling 1/f, so it is always reachable.
    -- Not when a whole number of processors gives exactly S: rounding down
    -- (the common mistake) would then be right.
    local f, S, n
    repeat
      f = rng:pick({ 0.02, 0.04, 0.05, 0.08, 0.1 })
      S = wb.round(rng:pick({ 0.5, 0.6, 0.7, 0.8 }) / f, 1)
      n = (1 - f) / (1 / S - f)
    until math.abs(n - math.floor(n + 0.5)) > 1e-9
    return { f = f, S = S }
  end,
  answer = function(p) return math.ceil((1 - p.f) / (1 / p.S - p.f) - 1e-9) end,
  tolerance = { abs = 0.01 },   -- a whole number of processors
  wrong = {
    { value = function(p) return math.floor((1 - p.f) / (1 / p.S - p.f) + 1e-9) end,
      feedback = "Rounded down: with that many processors the speedup falls just short. Round up." },
    { value = function(p) return p.S end,
      feedback = "That assumes linear speedup (S = p). The serial fraction makes more processors necessary." },
  },
  examples = {
    { answer = function(p) return tostring(math.ceil((1 - p.f) / (1 / p.S - p.f) - 1e-9)) end, score = 1 },
    { params = { f = 0.05, S = 12 }, answer = "29", score = 1 },    -- S(29) = 12.08, S(28) = 11.92
    { params = { f = 0.05, S = 12 }, answer = "28", score = 0 },
    { params = { f = 0.05, S = 12 }, answer = "12", score = 0 },
    { params = { f = 0.1, S = 5 }, answer = "9", score = 1 },       -- exactly 5 at p = 9
    { "29 GPUs", "invalid" },
  },
}

question {
  id = "amdahl.double-p",
  kind = "numeric",
  title = "What doubling the processors buys (your numbers)",
  prompt = [[
A job with serial fraction f = {f} runs on {p} processors. You double them
to {p2}. By what factor does its speedup grow?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Compute S({p}) and S({p2}) with Amdahl's formula.",
    "The factor is S({p2}) / S({p}).",
  },
  params = function(rng)
    local p = rng:pick({ 2, 4, 8, 16, 32, 64 })
    return { f = rng:int(2, 20) / 100, p = p, p2 = 2 * p }
  end,
  answer = function(p) return wb.amdahl(p.f, p.p2) / wb.amdahl(p.f, p.p) end,
  wrong = {
    { value = 2, feedback = "Doubling the processors doubles the speedup only without serial work. Compute S(2p) / S(p)." },
    { value = function(p) return wb.amdahl(p.f, p.p2) end,
      feedback = "That is the new speedup itself; the question asks how much it grew: divide by the old one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p2) / wb.amdahl(p.f, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.03 * wb.amdahl(p.f, p.p2) / wb.amdahl(p.f, p.p)) end, score = 0 },
    { params = { f = 0.1, p = 4, p2 = 8 }, answer = "1.53", score = 1 },
    { params = { f = 0.1, p = 4, p2 = 8 }, answer = "2", score = 0 },
    { params = { f = 0.2, p = 100, p2 = 200 }, answer = "1.02", score = 1 },   -- the page's "2%"
    { "double", "invalid" },
  },
}

question {
  id = "amdahl.max-p-efficiency",
  kind = "numeric",
  title = "How far can it scale efficiently? (your numbers)",
  prompt = [[
A job has a serial fraction f = {f}. The team only adds processors while the
parallel efficiency stays at {epct}% or more. What is the largest number of
processors that meets this target, according to Amdahl's law?
Give a whole number.]],
  topics = { "amdahl", "efficiency" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Efficiency is speedup per processor, and it falls as p grows: find where it drops below the bound.",
    "E(p) = S(p)/p = 1 / (f p + 1 - f).",
    "Solve 1 / (f p + 1 - f) >= E for p, and round down.",
  },
  params = function(rng)
    return { f = rng:pick({ 0.01, 0.02, 0.03, 0.05, 0.08 }), epct = rng:pick({ 70, 75, 80, 90 }) }
  end,
  answer = function(p)
    local e = p.epct / 100
    return math.floor((1 / e - 1 + p.f) / p.f + 1e-9)
  end,
  tolerance = { abs = 0.01 },   -- a whole number of processors
  wrong = {
    { value = function(p) local e = p.epct / 100; return math.floor((1 / e - 1 + p.f) / p.f + 1e-9) + 1 end,
      feedback = "One too many: at that count the efficiency has dropped below the target. Round down." },
    { value = function(p) return 1 / p.f end,
      feedback = "1/f is the ceiling on the speedup, not a processor count for an efficiency target." },
  },
  examples = {
    { answer = function(p) local e = p.epct / 100; return tostring(math.floor((1 / e - 1 + p.f) / p.f + 1e-9)) end, score = 1 },
    { params = { f = 0.05, epct = 70 }, answer = "9", score = 1 },    -- E(9) = 71.4%, E(10) = 69.0%
    { params = { f = 0.05, epct = 70 }, answer = "10", score = 0 },
    { params = { f = 0.05, epct = 80 }, answer = "6", score = 1 },    -- exactly 80% at p = 6
    { params = { f = 0.05, epct = 70 }, answer = "20", score = 0 },
    { "nine", "invalid" },
  },
}

-- The crash course's practice question 1 (f = 0.15, p = 10) asks for two
-- numbers; each is a worked example of its own, so each is also a
-- single-number question here, before the pair.
question {
  id = "amdahl.speedup-15-worked",
  kind = "numeric",
  title = "15% serial on 10 processors",
  prompt = [[
A program has a serial fraction f = 0.15. What speedup does Amdahl's law
give on 10 processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = { "Speedup = 1 / (0.15 + 0.85/10)." },
  answer = function() return wb.amdahl(0.15, 10) end,   -- 4.255
  -- The rounding rule (the first page): 4.26 is right; 4.3, two figures,
  -- is 1.05% off and earns half, as a near miss does in amdahl.speedup.
  bands = {
    { rel = 0.03, score = 0.5,
      feedback = "Close, but more than 1% off: give three significant figures, rounded only at the end." },
  },
  wrong = {
    { value = 10, feedback = "10 is linear speedup; the serial 15% does not shrink." },
    { value = 1 / 0.15, feedback = "6.67 = 1/f is the ceiling with unlimited processors, not the speedup on 10." },
    { value = 1 / (0.85 + 0.15 / 10),
      feedback = "You used 0.85 as the serial fraction. f = 0.15 is serial; 0.85 is the parallel share." },
    { value = 0.235, feedback = "0.235 is the denominator f + (1 - f)/p; the speedup is its inverse." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "4.26", 1 },
    { "1/0.235", 1 },
    { "1/(0.15+0.85/10)", 1 },
    { "4.25", 1 },          -- cut off after three figures: 0.1% off
    { "4.255", 1 },
    { "4.3", 0.5 },         -- two figures: 1.05% off, a near miss
    { "6.67", 0 },
    { "1.16", 0 },
    { "four", "invalid" },
  },
}

question {
  id = "amdahl.ceiling-15-worked",
  kind = "numeric",
  title = "The ceiling for 15% serial",
  prompt = [[
The same program (serial fraction f = 0.15) may use as many processors as it
likes. What is the largest speedup Amdahl's law allows?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "ceiling" },
  hints = { "Let p grow without bound: (1 - f)/p vanishes." },
  answer = 1 / 0.15,   -- 6.667
  wrong = {
    { value = 1 / 0.85, feedback = "1/0.85 uses the parallel share. The ceiling is 1/f with f = 0.15 serial." },
    { value = function() return wb.amdahl(0.15, 10) end,
      feedback = "4.26 is the speedup on 10 processors. With unlimited processors only f is left: 1/0.15." },
    { value = 0.15, feedback = "That is f itself; the ceiling is its inverse." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "6.67", 1 },
    { "1/0.15", 1 },
    { "20/3", 1 },
    { "6.5", 0 },           -- 2.5% off
    { "1.18", 0 },
    { "infinite", "invalid" },
  },
}

question {
  id = "amdahl.limit-pair",
  kind = "text",
  title = "Speedup and its ceiling",
  prompt = [[
A program has a serial fraction f = 0.15. Give two numbers, separated by a
space: its Amdahl speedup on 10 processors, then its maximum possible speedup
with unlimited processors. Example of the form: 1.52 2.07
Give three significant figures.]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "Two numbers: the speedup at p = 10, and the ceiling that no number of processors can beat.",
    "First number: 1 / (0.15 + 0.85/10).",
    "Second number: let p grow without bound; only f is left in the denominator.",
  },
  answer = "4.26 6.67",
  -- Two numbers in one answer: a custom grade gives half credit for each and
  -- names the mistake behind a wrong one. Each number is graded by the
  -- rounding rule (within 1%, or the same three significant figures); one
  -- within 3% but not 1% (4.3, two figures) is named as too coarse.
  grade = function(answer, ctx)
    local s10, smax = wb.amdahl(0.15, 10), 1 / 0.15
    local text = answer:gsub("%f[%a][Aa][Nn][Dd]%f[%A]", " "):gsub(",%s+", " "):gsub(";", " ")
    local nums = {}
    for word in text:gmatch("%S+") do
      if word ~= "x" and word ~= "X" and word ~= "×" then
        local v, why = wb.number(word, "")
        if not v then
          return { valid = false, feedback = "Could not read '" .. word .. "': " .. (why or "not a number") }
        end
        nums[#nums + 1] = v
      end
    end
    if #nums ~= 2 then
      return { valid = false,
               feedback = "Write exactly two numbers separated by a space: the speedup on 10 processors, then the maximum." }
    end
    local a, b = nums[1], nums[2]
    local score, notes = 0, {}
    local RULE = { rel = 0.01, sig = 3 }
    local function right(v, ref) return wb.within(v, ref, RULE) end
    local function coarse(v, ref, what)
      if wb.within(v, ref, { rel = 0.03 }) then
        notes[#notes + 1] = string.format("%s: %s is more than 1%% off; give three significant figures.",
                                          what, wb.sig(v, 6))
        return true
      end
    end
    if right(a, smax) and right(b, s10) then
      a, b = b, a  -- the ceiling is necessarily the larger one; order does not matter
    end
    if right(a, s10) then
      score = score + 0.5
    elseif coarse(a, s10, "Speedup on 10 processors") then
      -- named above
    elseif wb.close(a, 10) then
      notes[#notes + 1] = "10 would be linear speedup; the serial 15% does not shrink (S(10) = 1/0.235 = 4.26)."
    elseif wb.close(a, 1 / (0.85 + 0.15 / 10)) then
      notes[#notes + 1] = "Your speedup uses 0.85 as the serial fraction; f = 0.15 is serial."
    else
      notes[#notes + 1] = "Speedup on 10 processors: 1 / (0.15 + 0.85/10) = 1/0.235 = 4.26."
    end
    if right(b, smax) then
      score = score + 0.5
    elseif coarse(b, smax, "Maximum speedup") then
      -- named above
    elseif wb.close(b, 1 / 0.85) then
      notes[#notes + 1] = "1/0.85 uses the parallel share; the ceiling is 1/f with f = 0.15 serial."
    elseif b > 1e6 then
      notes[#notes + 1] = "The speedup does not grow without bound: the serial part caps it at 1/f."
    else
      notes[#notes + 1] = "Maximum speedup: with p unbounded only f is left, 1/0.15 = 6.67."
    end
    if score == 1 then return 1, "Right: 4.26x on 10 processors, and never more than 6.67x." end
    return score, table.concat(notes, " ")
  end,
  examples = {
    { "4.26 6.67", 1 },
    { "4.26; 6.67", 1 },
    { "4.26x and 6.67x", 1 },
    { "1/0.235 1/0.15", 1 },
    { "6.67 4.26", 1 },       -- order does not matter
    { "4.3 6.7", 0.5 },       -- two figures each: 4.3 is 1.05% off, 6.7 within 1%
    { "4.25 6.66", 1 },       -- cut off after three figures, within 1%
    { "4.26 1.18", 0.5 },     -- ceiling from the parallel share
    { "10 100", 0 },
    { "4.26", "invalid" },    -- only one number
    { "4,26 6,67", "invalid" },
    { "abc def", "invalid" },
  },
}

question {
  id = "amdahl.ceiling",
  kind = "numeric",
  title = "Maximum speedup (your numbers)",
  prompt = [[
Profiling shows that {par}% of a job's one-GPU run time is in code that
parallelizes perfectly; the rest is serial. With as many GPUs as you like,
what is the largest speedup you can get?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
    "The given share is the parallel one. The serial fraction is f = 1 - {par}/100.",
    "With p unbounded, Speedup = 1/f.",
  },
  params = function(rng)
    -- 50% is left out: there the serial and parallel shares are equal and
    -- the classic mistake (1 / parallel share) would be right by accident.
    return { par = rng:pick({ 60, 75, 80, 85, 90, 95, 98, 99 }) }
  end,
  answer = function(p) return 1 / (1 - p.par / 100) end,
  wrong = {
    { value = function(p) return 100 / p.par end,
      feedback = "You divided by the parallel share. The ceiling is 1/f, with f the SERIAL share." },
    { value = function(p) return 1 - p.par / 100 end,
      feedback = "That is f itself; the ceiling is its inverse, 1/f." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 1 / (1 - p.par / 100)) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 100 / p.par) end, score = 0 },
    { "infinite", "invalid" },
    { "", "invalid" },
    -- The notes' example (20% serial -> 5x) and the crash course's (f = 0.15 -> 6.67x):
    { params = { par = 80 }, answer = "5", score = 1 },
    { params = { par = 80 }, answer = "1.25", score = 0 },
    { params = { par = 85 }, answer = "6.67", score = 1 },
    { params = { par = 85 }, answer = "6.9", score = 0 },   -- 3.5% off
  },
}

question {
  id = "amdahl.efficiency",
  kind = "numeric",
  title = "Parallel efficiency (your numbers)",
  prompt = [[
A job has a serial fraction f = {f} and runs on {p} processors. What is its
parallel efficiency according to Amdahl's law, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "amdahl", "efficiency" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Efficiency = speedup / p.",
    "First compute the speedup 1 / (f + (1 - f)/p), then divide by {p}.",
  },
  params = function(rng)
    -- Not p = 100: there the efficiency in per cent equals the speedup, so
    -- the wrong value "the speedup" could not be told apart.
    return { f = rng:int(5, 25) / 100, p = rng:pick({ 4, 8, 10, 16, 32 }) }
  end,
  answer = function(p) return 100 * wb.amdahl(p.f, p.p) / p.p end,
  wrong = {
    { value = function(p) return wb.amdahl(p.f, p.p) / p.p end,
      feedback = "That is the efficiency as a fraction; the question asks per cent (a fraction of 0.5 is written 50, or 50%)." },
    { value = function(p) return wb.amdahl(p.f, p.p) end,
      feedback = "That is the speedup. Efficiency divides it by the number of processors." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.3f", 100 * wb.amdahl(p.f, p.p) / p.p) end, score = 1 },
    { answer = function(p) return string.format("%.3f%%", 100 * wb.amdahl(p.f, p.p) / p.p) end, score = 1 },
    { answer = function(p) return string.format("%.3f", 95 * wb.amdahl(p.f, p.p) / p.p) end, score = 0 },
    { "62.5 ms", "invalid" },
    -- The worked example f = 0.2, p = 4: S = 2.5, E = 62.5%.
    { params = { f = 0.2, p = 4 }, answer = "62.5", score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "62.5%", score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "0.625", score = 0 },  -- a fraction, read as 0.625%
    { params = { f = 0.2, p = 4 }, answer = "60", score = 0 },
    -- The crash course's f = 0.15 on 10 processors: 4.26x, 42.6%.
    { params = { f = 0.15, p = 10 }, answer = "42.55", score = 1 },
  },
}

question {
  id = "amdahl.rank",
  kind = "ordering",
  title = "Rank the speedups",
  prompt = [[
Put these configurations in order of their Amdahl speedup, smallest first.
(f is the serial fraction, p the number of processors.)]],
  topics = { "amdahl", "speedup" },
  hints = {
    "A configuration can never beat its ceiling 1/f, however large p is.",
    "Two of them are close: compute 1/(0.1 + 0.9/8) and 1/(0.2 + 0.8/1000).",
  },
  items = {
    "f = 0.5 on 1000 processors",   -- 2.00
    "f = 0.2 on 4 processors",      -- 2.50
    "f = 0.1 on 8 processors",      -- 4.71
    "f = 0.2 on 1000 processors",   -- 4.98
    "f = 0.05 on 16 processors",    -- 9.14
  },
  -- The letters a student types depend on the per-variant shuffle, so only
  -- answers that are unreadable whatever the shuffle are listed here; pack
  -- check also grades the reference order itself (must score 1).
  examples = {
    { order = { 1, 2, 3, 4, 5 }, score = 1 },    -- the right order, as declared
    { order = { 2, 1, 3, 4, 5 }, score = 0.8 },  -- one neighbouring pair swapped: 1 - 2*1/10
    { order = { 5, 4, 3, 2, 1 }, score = 0 },    -- reversed
    { "a b c", "invalid" },       -- too few items
    { "a a b c d", "invalid" },   -- an item twice
    { "a b c d z", "invalid" },   -- no item z
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# From a measured speedup back to f

Amdahl's formula can be run backwards. If you *measure* a speedup S on p
processors, the serial fraction that would explain it is:

```
1/S = f + (1 - f)/p
1/S - 1/p = f * (1 - 1/p)

     1/S - 1/p
f = -----------
      1 - 1/p
```

## Worked example

A program runs 3 times faster on 5 processors. Then 1/S = 1/3 and 1/p = 1/5:

- numerator: 1/3 − 1/5 = 5/15 − 3/15 = 2/15
- denominator: 1 − 1/5 = 4/5
- f = (2/15) / (4/5) = 10/60 = **1/6 ≈ 0.167**, about 16.7 % serial.

Keep fractions, or several digits, until the end: f is the difference of two
close numbers, so early rounding hurts. With 1/3 rounded to 0.33 you get
f = 0.1625, 2.5 % off, and even 0.333 gives 0.16625. (Worked solutions that
write 0.333 and still report 0.167 have quietly used the exact 1/6.)

## The Karp–Flatt metric

Computed from *measured* speedups, the same expression is called the
**Karp–Flatt metric** e(p), the experimentally determined serial fraction.
Amdahl's f only counts code that cannot run in parallel; e(p) counts
everything that keeps the parallel part from dividing perfectly: true serial
code, but also communication, synchronisation, load imbalance and stragglers.

The metric is most useful as a *trend* over several p:

| p | measured S | e(p)  |   | p  | measured S | e(p)  |
|---|-----------:|------:|---|----|-----------:|------:|
| 2 | 1.90       | 0.053 |   | 2  | 1.90       | 0.053 |
| 4 | 3.48       | 0.050 |   | 4  | 3.20       | 0.083 |
| 8 | 5.93       | 0.050 |   | 8  | 4.80       | 0.095 |

- **e stays flat** (left): the program behaves like Amdahl's model with about
  5 % serial work. Shrink the serial code.
- **e rises with p** (right): something grows with the processor count
  (typically communication, such as a gradient all-reduce, or waiting for the
  slowest worker). More processors will make it worse; attack the overhead.
]]

calculator {
  id = "amdahl.from-times",
  title = "From measured times to Karp-Flatt",
  inputs = {
    { name = "t1", label = "time on 1 processor", default = 800, min = 1e-9, max = 1e12, unit = "ms" },
    { name = "tp", label = "time on p processors", default = 145, min = 1e-9, max = 1e12, unit = "ms" },
    { name = "p", label = "processors p", default = 8, min = 2, max = 100000, integer = true },
  },
  compute = function(v)
    local s = v.t1 / v.tp
    local e = wb.karp_flatt(s, v.p)
    local out = {
      { label = "measured speedup S", value = s, unit = "x" },
      { label = "efficiency E", value = 100 * s / v.p, unit = "%" },
      { label = "Karp-Flatt e (serial fraction)", value = e },
    }
    if e > 0 then
      out[#out + 1] = { label = "ceiling 1/e if e stays constant", value = 1 / e, unit = "x" }
    else
      out[#out + 1] = { label = "ceiling 1/e if e stays constant",
                        text = "none: e <= 0 means linear or superlinear speedup" }
    end
    return out
  end,
  examples = {
    { inputs = { t1 = 800, tp = 145, p = 8 }, outputs = { 800 / 145, 1000 / 14.5, (145 / 800 - 0.125) / 0.875 } },
    { inputs = { t1 = 3, tp = 1, p = 5 }, outputs = { 3, 60, 1 / 6, 6 } },
    { inputs = { t1 = 100, tp = 20, p = 5 }, outputs = { 5, 100, 0, "none: e <= 0 means linear or superlinear speedup" } },
  },
}

question {
  id = "amdahl.serial-fraction",
  kind = "numeric",
  title = "Serial fraction from a measurement (your numbers)",
  prompt = [[
On {p} processors a program measures a speedup of {S}. Assuming Amdahl's
model, what serial fraction f explains this? Give f as a fraction (e.g.
0.123), to three significant figures.]],
  topics = { "amdahl", "serial-fraction", "karp-flatt" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "You know the speedup S and p: in Amdahl's law only f is unknown.",
    "Solve 1/S = f + (1 - f)/p for f.",
    "f = (1/S - 1/p) / (1 - 1/p). Keep several digits of 1/{S}.",
  },
  params = function(rng)
    -- Built from a true f and rounded, so the shown S is exactly what the
    -- reference uses. With f <= 0.3 the wrong values stay far from f.
    -- One draw in six is the crash course's own: speedup 3 on 5 processors.
    if rng:int(1, 6) == 1 then return { S = 3, p = 5 } end
    local f = rng:int(5, 30) / 100
    local p = rng:pick({ 4, 5, 6, 8, 10, 12, 16 })
    return { S = wb.round(wb.amdahl(f, p), 2), p = p }
  end,
  answer = function(p) return wb.karp_flatt(p.S, p.p) end,
  -- f is the difference of two close reciprocals, so a student who keeps 3
  -- decimals of 1/S can be off by ~0.001 in f. Accept +-0.002 absolute (or
  -- 1%, whichever is wider); a few per cent off earns half credit.
  tolerance = { rel = 0.01, abs = 0.002 },
  bands = {
    { rel = 0.05, score = 0.5,
      feedback = "Close, but outside the accepted range: keep four or more digits of 1/S until the end (f is a difference of close numbers), then give three significant figures." },
  },
  wrong = {
    { value = function(p) return 1 - wb.karp_flatt(p.S, p.p) end,
      feedback = "That is the parallel fraction 1 - f. The question asks for the serial fraction f." },
    { value = function(p) return 1 / p.S end,
      feedback = "1/S is the parallel run time as a share of T(1); it still contains the parallel part (1 - f)/p. Subtract 1/p and divide by (1 - 1/p)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.karp_flatt(p.S, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1 - wb.karp_flatt(p.S, p.p)) end, score = 0 },
    { "three", "invalid" },
    -- The crash course's Q2: speedup 3 on 5 processors, f = 1/6.
    { params = { S = 3, p = 5 }, answer = "0.167", score = 1 },
    { params = { S = 3, p = 5 }, answer = "1/6", score = 1 },
    { params = { S = 3, p = 5 }, answer = "16.7%", score = 1 },
    { params = { S = 3, p = 5 }, answer = "0.1625", score = 0.5 },  -- 1/3 rounded to 0.33
    { params = { S = 3, p = 5 }, answer = "0.833", score = 0 },     -- the parallel fraction
    { params = { S = 3, p = 5 }, answer = "0.333", score = 0 },     -- 1/S
    { params = { S = 3, p = 5 }, answer = "0,167", score = "invalid" },
  },
}

question {
  id = "amdahl.serial-fraction-worked",
  kind = "numeric",
  title = "Speedup 3 on 5 processors",
  prompt = [[
A program runs 3 times faster on 5 processors than on one. Assuming
Amdahl's model, what is its serial fraction f?
Give three significant figures.]],
  topics = { "amdahl", "serial-fraction" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "The measured speedup and p are known: in Amdahl's law only f is unknown.",
    "Solve 1/3 = f + (1 - f)/5 for f.",
    "f = (1/3 - 1/5) / (1 - 1/5): keep fractions.",
  },
  answer = 1 / 6,
  -- As amdahl.serial-fraction: +-0.002 absolute (or 1%). The crash course's
  -- own steps (0.8 f = 0.133) give 0.16625 and report 0.167; both count.
  -- Two near misses have different causes, and each is named: 0.1625 is 1/3
  -- rounded to 0.33 too early (a wrong step: 0), while 0.17 is the right
  -- value given to two figures, 2% off (half, as other near misses earn).
  tolerance = { rel = 0.01, abs = 0.002 },
  bands = {
    { rel = 0.05, score = 0.5,
      feedback = "Close, but outside the accepted range: give three significant figures (or the exact fraction), and round only at the end." },
  },
  wrong = {
    { value = 0.1625,
      feedback = "0.1625 comes from rounding 1/3 to 0.33 too early: f is the difference of two close numbers. Keep fractions: (1/3 - 1/5) / (1 - 1/5)." },
    { value = 5 / 6, feedback = "That is the parallel fraction 1 - f. The serial fraction is 1/6." },
    { value = 1 / 3, feedback = "1/S is the parallel run time as a share of T(1); it still contains the parallel part (1 - f)/5." },
    { value = 0.2, feedback = "1/p is not the serial fraction. Solve 1/3 = f + (1 - f)/5." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "0.167", 1 },
    { "1/6", 1 },
    { "16.7%", 1 },
    { "0.16625", 1 },      -- the crash course's rounded steps
    { "0.1625", 0 },       -- 1/3 rounded to 0.33: named as that
    { "0.17", 0.5 },       -- two figures: 2% off, named as too coarse
    { "0.833", 0 },
    { "0.333", 0 },
    { "0,167", "invalid" },
  },
}

question {
  id = "amdahl.kf-times",
  kind = "numeric",
  title = "Karp-Flatt from measured times (your numbers)",
  prompt = [[
A training step takes {t1} ms on 1 GPU and {tp} ms on {p} GPUs, same global
batch. What is the Karp-Flatt metric e (the experimentally determined serial
fraction) at p = {p}?
Give three significant figures.]],
  topics = { "karp-flatt", "serial-fraction" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "First the measured speedup S = {t1} / {tp}.",
    "e = (1/S - 1/p) / (1 - 1/p).",
  },
  params = function(rng)
    local t1, p = rng:pick({ 400, 800, 1200 }), rng:pick({ 4, 8, 16 })
    local e = rng:int(3, 15) / 100
    return { t1 = t1, p = p, tp = wb.round(t1 * (e + (1 - e) / p)) }
  end,
  answer = function(p) return wb.karp_flatt(p.t1 / p.tp, p.p) end,
  -- As amdahl.serial-fraction: a difference of close numbers; +-0.002.
  tolerance = { rel = 0.01, abs = 0.002 },
  wrong = {
    { value = function(p) return 1 - wb.karp_flatt(p.t1 / p.tp, p.p) end,
      feedback = "That is the parallel share. e is the SERIAL fraction." },
    { value = function(p) return p.tp / p.t1 end,
      feedback = "T(p)/T(1) = 1/S still contains the parallel part. Subtract 1/p and divide by (1 - 1/p)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.karp_flatt(p.t1 / p.tp, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", wb.karp_flatt(p.t1 / p.tp, p.p) + 0.01) end, score = 0 },
    -- The design question's numbers: 800 ms -> 145 ms on 8 GPUs, e = 0.064.
    { params = { t1 = 800, tp = 145, p = 8 }, answer = "0.064", score = 1 },
    { params = { t1 = 800, tp = 145, p = 8 }, answer = "0.181", score = 0 },
    { params = { t1 = 800, tp = 145, p = 8 }, answer = "0.936", score = 0 },
    { "0.064 s", "invalid" },   -- a fraction, not a time
  },
}

question {
  id = "amdahl.predict",
  kind = "numeric",
  title = "From one measurement to a prediction (your numbers)",
  prompt = [[
A program measures a speedup of {S} on {p} processors. Assuming Amdahl's
model holds, what speedup should it reach on {p2} processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "serial-fraction", "karp-flatt" },
  rubric = { "theory.parallel", "practice.profiling", "advanced.cost" },
  hints = {
    "First find the serial fraction: f = (1/S - 1/p) / (1 - 1/p).",
    "Then apply Amdahl's law with that f at p = {p2}.",
  },
  params = function(rng)
    -- Built from a true f; S is rounded to 2 decimals, and the reference
    -- uses the rounded S, as the student does.
    local f = rng:int(5, 20) / 100
    local p = rng:pick({ 4, 6, 8 })
    return { S = wb.round(wb.amdahl(f, p), 2), p = p, p2 = rng:pick({ 16, 32, 64, 128 }) }
  end,
  answer = function(p) return wb.amdahl(wb.karp_flatt(p.S, p.p), p.p2) end,
  -- f comes from a difference of close numbers; a student who rounds it to
  -- 3 decimals can be 1-2% off in the prediction. 2% is accepted.
  tolerance = { rel = 0.02 },
  wrong = {
    { value = function(p) return p.S * p.p2 / p.p end,
      feedback = "That extrapolates linearly. The serial part does not shrink, so the speedup grows far more slowly: find f first." },
    { value = function(p) return 1 / wb.karp_flatt(p.S, p.p) end,
      feedback = "That is the ceiling 1/f for unlimited processors; with {p2} the parallel term (1 - f)/{p2} still counts." },
    { value = function(p) return wb.amdahl(1 - wb.karp_flatt(p.S, p.p), p.p2) end,
      feedback = "You used the parallel share 1 - f in the formula where the serial f belongs." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.amdahl(wb.karp_flatt(p.S, p.p), p.p2)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.05 * wb.amdahl(wb.karp_flatt(p.S, p.p), p.p2)) end, score = 0 },
    { answer = function(p) return string.format("%.4f", p.S * p.p2 / p.p) end, score = 0 },
    -- The crash course's "3 on 5": f = 1/6, so 32 processors give 5.19x.
    { params = { S = 3, p = 5, p2 = 32 }, answer = "5.19", score = 1 },
    { params = { S = 3, p = 5, p2 = 32 }, answer = "19.2", score = 0 },   -- linear
    { params = { S = 3, p = 5, p2 = 32 }, answer = "6", score = 0 },      -- the ceiling
    { "fast", "invalid" },
  },
}

question {
  id = "amdahl.overhead-optimum",
  kind = "numeric",
  title = "When more processors make it slower (your numbers)",
  prompt = [[
A job takes {t1} s on one processor, and a fraction f = {f} of that is
serial. Each processor also adds {c} s of coordination (start-up, messages),
so T(p) = {t1} × (f + (1 - f)/p) + {c} × p seconds. Treating p as a real
number, which p gives the shortest run time?
Give three significant figures.]],
  topics = { "amdahl", "scaling", "karp-flatt" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "More processors shrink the parallel part but each adds overhead: the best p balances the two.",
    "Set dT/dp = 0: -T(1)(1 - f)/p^2 + c = 0.",
    "p* = sqrt(T(1) × (1 - f) / c).",
  },
  params = function(rng)
    -- f from 0.1 keeps the answer 5% or more away from sqrt(T(1)/c), the
    -- slip of forgetting the (1 - f).
    return { t1 = rng:pick({ 100, 200, 400, 800 }), f = rng:pick({ 0.1, 0.2, 0.3 }),
             c = rng:pick({ 0.05, 0.1, 0.2, 0.5 }) }
  end,
  answer = function(p) return math.sqrt(p.t1 * (1 - p.f) / p.c) end,
  wrong = {
    { value = function(p) return math.sqrt(p.t1 / p.c) end,
      feedback = "Only the parallel part, T(1)(1 - f), shrinks with p: p* = sqrt(T(1)(1 - f)/c)." },
    { value = function(p) return p.t1 * (1 - p.f) / p.c end,
      feedback = "Take the square root: c = T(1)(1 - f)/p^2 gives p^2 = T(1)(1 - f)/c." },
    { value = function(p) return 1 / p.f end,
      feedback = "1/f is the ceiling on the speedup, not a processor count." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", math.sqrt(p.t1 * (1 - p.f) / p.c)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.05 * math.sqrt(p.t1 * (1 - p.f) / p.c)) end, score = 0 },
    -- 400 s, f = 0.1, 0.1 s per processor: sqrt(3600) = 60 processors.
    { params = { t1 = 400, f = 0.1, c = 0.1 }, answer = "60", score = 1 },
    { params = { t1 = 400, f = 0.1, c = 0.1 }, answer = "sqrt(400*0.9/0.1)", score = 1 },
    { params = { t1 = 400, f = 0.1, c = 0.1 }, answer = "63.2", score = 0 },   -- sqrt(T1/c)
    { params = { t1 = 400, f = 0.1, c = 0.1 }, answer = "3600", score = 0 },
    { "many", "invalid" },
  },
}

question {
  id = "amdahl.serial-time",
  kind = "numeric",
  title = "The serial part from two runs (your numbers)",
  prompt = [[
A job takes {t2} s on 2 processors and {t4} s on 4. Assume its time is
T(p) = T_serial + T_parallel / p. How many seconds of it are serial?
Give three significant figures.]],
  unit = "s",
  topics = { "amdahl", "serial-fraction" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Only the parallel part changes between 2 and 4 processors: the difference of the two times tells you its size.",
    "Going from 2 to 4 processors saves T_parallel/2 - T_parallel/4 = T_parallel/4.",
    "So T_parallel = 4 x ({t2} - {t4}); subtract T_parallel/4 from T(4).",
  },
  params = function(rng)
    -- Not when T_parallel / 4 (the time saved, a common mistake) is the
    -- serial part itself: the mistake would be graded right.
    local ts, tpar
    repeat ts, tpar = rng:int(5, 40), 4 * rng:int(15, 100) until ts ~= tpar / 4
    return { t2 = ts + tpar / 2, t4 = ts + tpar / 4 }
  end,
  answer = function(p) return 2 * p.t4 - p.t2 end,
  -- A few seconds of serial time: 1% of that is below the 0.1 s a student
  -- may round to, so +-0.1 s also counts.
  tolerance = { rel = 0.01, abs = 0.1 },
  wrong = {
    { value = function(p) return p.t2 - p.t4 end,
      feedback = "That is the time saved from 2 to 4 processors, T_parallel/4, not the serial part." },
    { value = function(p) return p.t4 - (p.t2 - p.t4) / 2 end,
      feedback = "From 2 to 4 processors the parallel part drops by a QUARTER of T_parallel, which equals all of T(4)'s parallel part." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring(2 * p.t4 - p.t2) end, score = 1 },
    { answer = function(p) return tostring(2 * p.t4 - p.t2 + 3) end, score = 0 },
    -- 100 s job, 20 s serial: T(2) = 60 s, T(4) = 40 s.
    { params = { t2 = 60, t4 = 40 }, answer = "20", score = 1 },
    { params = { t2 = 60, t4 = 40 }, answer = "20000 ms", score = 1 },
    { params = { t2 = 60, t4 = 40 }, answer = "30", score = 0 },
    { "20 processors", "invalid" },
  },
}

question {
  id = "amdahl.karp-flatt-trend",
  kind = "choice",
  title = "Reading the Karp-Flatt metric",
  prompt = [[
You measure a training job's speedup on 2, 4, 8 and 16 GPUs and compute the
Karp-Flatt metric for each: e = 0.05, 0.07, 0.10, 0.14. What is the best
reading of these numbers?]],
  topics = { "karp-flatt", "scaling" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "If the job were Amdahl's model with a fixed serial part, what would e do as p grows?",
  },
  choices = {
    "The job has a fixed serial part of about 5%; the rest is measurement noise.",
    "An overhead that grows with the number of GPUs (communication, synchronisation, stragglers) is eating the speedup.",
    "The job is superlinear: caches help more as p grows.",
    "Amdahl's law predicts exactly this for a serial fraction of 14%.",
  },
  answer = 2,
  why = {
    [1] = "A fixed serial part gives a FLAT e. Here e nearly triples from p = 2 to p = 16.",
    [3] = "Superlinear speedup would push e down (even below 0), not up.",
    [4] = "Under Amdahl's model e equals f at every p; a rising e is exactly what Amdahl's model does not explain.",
  },
  examples = {
    { "b", 1 },
    { "B", 1 },
    { "2", 1 },
    { "An overhead that grows with the number of GPUs (communication, synchronisation, stragglers) is eating the speedup.", 1 },
    { "a", 0 },
    { "d", 0 },
    { "e", "invalid" },   -- there is no choice e
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Gustafson's law: scaled speedup

Amdahl asks: *this* problem, more processors, how much faster? In practice
more GPUs are usually bought to solve a **bigger** problem in the same time:
more data per epoch, a larger global batch, a finer grid. Gustafson's law
answers that question.

Start from the **parallel** run and let **s** be the share of *its* time
spent in serial code. On one processor the serial part takes the same time,
but the parallel part, which p processors shared, takes p times longer.
Measured in units of the parallel run time:

```
T(1) = s + p * (1 - s)        T(p) = s + (1 - s) = 1

S_scaled(p) = s + p * (1 - s) = p - s * (p - 1)
```

## Worked example

s = 0.2 and p = 4: S = 4 − 0.2 × 3 = **3.4**, where Amdahl gave 2.5.
s = 0.2 and p = 100: S = 100 − 0.2 × 99 = **80.2**, where Amdahl gave 4.81.

This does not contradict Amdahl: the two laws answer different questions and
their fractions are measured on different runs.

- Amdahl's **f** is a share of the *one-processor* time of a *fixed* problem.
- Gustafson's **s** is a share of the *p-processor* time of a problem that
  *grows with p*.

As the problem grows, its serial part becomes a smaller share of the
one-processor time. The scaled problem's Amdahl fraction is
f = s / (s + p(1 − s)); for s = 0.2 and p = 4 that is 0.2 / 3.4 ≈ 0.059, and
Amdahl's formula with that f on 4 processors gives 3.4 again.
]]

question {
  id = "amdahl.gustafson",
  kind = "numeric",
  title = "Gustafson's scaled speedup (your numbers)",
  prompt = [[
A simulation is scaled up with the machine so that every run takes the same
time. On {p} processors, {spct}% of the run time is serial. What is the
scaled speedup according to Gustafson's law?
Give three significant figures.]],
  unit = "x",
  topics = { "gustafson", "scaling" },
  hints = {
    "Gustafson keeps the run time fixed and lets the work grow with p: the serial share is measured on the parallel run.",
    "Scaled speedup = p - s(p - 1), with s the serial share of the PARALLEL run.",
    "Here s = {spct}/100 and p = {p}.",
  },
  params = function(rng)
    return { spct = rng:int(5, 30), p = rng:pick({ 8, 16, 32, 64, 128 }) }
  end,
  answer = function(p) return wb.gustafson(p.spct / 100, p.p) end,
  wrong = {
    { value = function(p) return wb.amdahl(p.spct / 100, p.p) end,
      feedback = "That is Amdahl's fixed-size speedup. Here the problem grows with p: use p - s(p - 1)." },
    { value = function(p) return p.p end,
      feedback = "That ignores the serial share; the scaled speedup is p - s(p - 1)." },
    { value = function(p) return p.p - (1 - p.spct / 100) * (p.p - 1) end,
      feedback = "You used the parallel share where s belongs; s is the SERIAL share of the run." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.gustafson(p.spct / 100, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.spct / 100, p.p)) end, score = 0 },
    { answer = function(p) return string.format("%.4f", 0.97 * wb.gustafson(p.spct / 100, p.p)) end, score = 0 },
    { "lots", "invalid" },
    -- The page's worked example.
    { params = { spct = 20, p = 4 }, answer = "3.4", score = 1 },
    { params = { spct = 20, p = 100 }, answer = "80.2", score = 1 },
    { params = { spct = 20, p = 100 }, answer = "4.81", score = 0 },
  },
}

question {
  id = "amdahl.gustafson-f",
  kind = "numeric",
  title = "From Gustafson's s to Amdahl's f (your numbers)",
  prompt = [[
On {p} processors, a scaled problem spends {spct}% of its run time in serial
code. Run on ONE processor, what fraction of that (much longer) run would
be serial? Give it as a fraction, e.g. 0.0512, to three
significant figures.]],
  topics = { "gustafson", "amdahl", "scaling" },
  hints = {
    "In units of the parallel run: serial s, parallel (1 - s), which takes p times longer on one processor.",
    "f = s / (s + p (1 - s)).",
  },
  params = function(rng)
    return { spct = rng:int(10, 40), p = rng:pick({ 4, 8, 16, 32 }) }
  end,
  answer = function(p) local s = p.spct / 100; return s / (s + p.p * (1 - s)) end,
  wrong = {
    { value = function(p) return p.spct / 100 end,
      feedback = "That is the share in the p-processor run. On one processor the parallel part takes p times longer, so the serial share shrinks." },
    { value = function(p) return p.spct / 100 / p.p end,
      feedback = "Dividing s by p ignores that the serial part stays the same length: f = s / (s + p(1 - s))." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) local s = p.spct / 100; return string.format("%.5f", s / (s + p.p * (1 - s))) end, score = 1 },
    { answer = function(p) local s = p.spct / 100; return string.format("%.5f", 1.05 * s / (s + p.p * (1 - s))) end, score = 0 },
    -- The page's example: s = 0.2 on 4 processors -> f = 0.2/3.4 = 0.0588.
    { params = { spct = 20, p = 4 }, answer = "0.0588", score = 1 },
    { params = { spct = 20, p = 4 }, answer = "5.88%", score = 1 },
    { params = { spct = 20, p = 4 }, answer = "0.2", score = 0 },
    { params = { spct = 20, p = 4 }, answer = "0.05", score = 0 },
    { "0,0588", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Strong and weak scaling

A **scaling study** runs a job at several processor counts and plots speedup
and efficiency against p. There are two kinds, and a report must say which.

|                | strong scaling    | weak scaling            |
|----------------|-------------------|-------------------------|
| problem size   | fixed in total    | fixed *per processor*   |
| ideal result   | T(p) = T(1) / p   | T(p) = T(1)             |
| efficiency     | T(1) / (p × T(p)) | T(1) / T(p)             |
| limited by     | Amdahl: S ≤ 1/f   | Gustafson: p − s(p − 1) |
| in DP training | same global batch | same batch per GPU      |

In weak scaling the total problem grows with p: the run on p processors does
p times the work of the one-processor run, so its ideal is the *same* time,
and in data-parallel training the global batch grows with the GPU count.

Strong scaling tells you how much faster one given job can finish. Weak
scaling tells you how large a job you can run in a given time. A common
target for training clusters is a strong-scaling efficiency above about 70 %
up to 64 GPUs, with communication below 20 % of the step time.

In data-parallel training, weak scaling grows the global batch. Throughput
(samples per second) scales, but a larger batch can need a retuned learning
rate (scaling rules, warm-up) and may take more samples to reach the same
accuracy: a speedup in samples per second is not automatically a speedup in
time to a trained model.

## Measuring well

- Warm up first (the first iterations pay for compilation, allocation and
  caching); time the steady state.
- Repeat every run and keep the median; report the spread.
- Keep everything but p fixed: input, batch rules, software, clocks.
- Record the machine and interconnect with the numbers.
- Plot S(p) and E(p), and compute Karp–Flatt e(p) to see whether the losses
  come from a fixed serial part or from overhead that grows with p.

**See the lab lesson next**: it runs a workload with a serial fraction you
choose on 1, 2, 4, ... workers of your own machine, draws the measured
speedup against Amdahl's and Gustafson's curves, and computes Karp–Flatt from
your numbers, so the questions there are graded against what *your* machine
measured.
]]

question {
  id = "amdahl.strong-efficiency",
  kind = "numeric",
  title = "Strong-scaling efficiency (your numbers)",
  prompt = [[
Strong scaling, same global batch: a step takes {t1} ms on 1 GPU and {tp} ms
on {p} GPUs. What is the parallel efficiency, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "scaling", "efficiency" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Strong scaling keeps the problem fixed: compare the ideal time T(1)/p with the measured T(p).",
    "E = T(1) / (p x T(p)).",
  },
  params = function(rng)
    local t1, p = rng:pick({ 400, 800, 1200 }), rng:pick({ 4, 8, 16, 32, 64 })
    local eff = rng:int(45, 95) / 100
    return { t1 = t1, p = p, tp = wb.round(t1 / (p * eff)) }
  end,
  answer = function(p) return 100 * p.t1 / (p.p * p.tp) end,
  wrong = {
    { value = function(p) return p.t1 / p.tp end,
      feedback = "That is the speedup. Efficiency divides it by the number of GPUs." },
    { value = function(p) return 100 * p.t1 / p.tp end,
      feedback = "That is the speedup in per cent. Divide by the number of GPUs as well." },
    { value = function(p) return p.t1 / (p.p * p.tp) end,
      feedback = "That is the efficiency as a fraction; the question asks per cent (0.69 is written 69, or 69%)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.3f", 100 * p.t1 / (p.p * p.tp)) end, score = 1 },
    { answer = function(p) return string.format("%.3f", 95 * p.t1 / (p.p * p.tp)) end, score = 0 },
    -- The design question's numbers: 800 ms -> 145 ms on 8 GPUs.
    { params = { t1 = 800, tp = 145, p = 8 }, answer = "69", score = 1 },
    { params = { t1 = 800, tp = 145, p = 8 }, answer = "5.5", score = 0 },
    { "69 ms", "invalid" },
  },
}

question {
  id = "amdahl.weak-efficiency",
  kind = "numeric",
  title = "Weak-scaling efficiency (your numbers)",
  prompt = [[
Weak scaling, same batch PER GPU: a step takes {t1} ms on 1 GPU and {tp} ms
on {p} GPUs, which process {p} times the data per step. What is the
weak-scaling efficiency, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "scaling", "efficiency", "gustafson" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = { "Ideal weak scaling keeps the step time constant: E = T(1) / T(p)." },
  params = function(rng)
    local t1 = rng:pick({ 100, 150, 240, 400 })
    return { t1 = t1, p = rng:pick({ 8, 16, 64, 256 }), tp = wb.round(t1 * rng:int(105, 160) / 100) }
  end,
  answer = function(p) return 100 * p.t1 / p.tp end,
  wrong = {
    { value = function(p) return 100 * p.t1 / (p.p * p.tp) end,
      feedback = "That is the strong-scaling formula. Here every GPU does the same work as the single GPU did, so ideal is T(p) = T(1): E = T(1)/T(p)." },
    { value = function(p) return 100 * p.tp / p.t1 end,
      feedback = "Upside down: the efficiency is at most 100%, T(1)/T(p)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.3f", 100 * p.t1 / p.tp) end, score = 1 },
    { answer = function(p) return string.format("%.3f", 97 * p.t1 / p.tp) end, score = 0 },
    { params = { t1 = 100, tp = 125, p = 64 }, answer = "80", score = 1 },
    { params = { t1 = 100, tp = 125, p = 64 }, answer = "1.25", score = 0 },
    { params = { t1 = 100, tp = 125, p = 64 }, answer = "125", score = 0 },
    { "eighty", "invalid" },
  },
}

question {
  id = "amdahl.weak-scaling-name",
  kind = "text",
  title = "Name the study",
  prompt = [[
A scaling study gives every GPU the same amount of work at every size, so the
total problem grows with the number of GPUs. What is this kind of scaling
called? (Two words.)]],
  topics = { "scaling", "gustafson" },
  hints = {
    "Its counterpart, with the total problem fixed, is called strong scaling.",
  },
  answer = { "weak scaling", "weak-scaling", "weak" },
  patterns = { "^weak%s*%-?%s*scal" },
  examples = {
    { "weak scaling", 1 },
    { "Weak Scaling.", 1 },
    { "weak", 1 },
    { "strong scaling", 0 },
    { "scaled speedup", 0 },
    { "", "invalid" },
  },
}

question {
  id = "amdahl.statements",
  kind = "multi",
  title = "True or false",
  prompt = "Which of these statements are true? Pick all that apply.",
  points = 2,
  topics = { "amdahl", "gustafson", "karp-flatt", "scaling" },
  hints = {
    "Four of the six are true.",
    "For each one, try a number: f = 0.1, p = 4 and p = 8.",
  },
  choices = {
    "If 10% of the one-processor run time is serial, no number of processors gives more than a 10x speedup.",
    "With f = 0.1, going from 4 to 8 processors halves the run time.",
    "Under Amdahl's law with f > 0, parallel efficiency falls as p grows.",
    "Gustafson's scaled speedup assumes the problem grows with the number of processors.",
    "A Karp-Flatt metric that stays constant as p grows points to communication overhead that grows with p.",
    "Strong scaling keeps the total problem size fixed while p grows.",
  },
  answer = { 1, 3, 4, 6 },
  why = {
    [2] = "Only the parallel part halves: T(4) = 0.325 T(1) and T(8) = 0.2125 T(1), a factor of 1.53, not 2.",
    [5] = "A constant e is what a fixed serial part looks like. Growing overhead makes e rise with p.",
  },
  examples = {
    { "a c d f", 1 },
    { "a,c,d,f", 1 },
    { "a c d", 0.75 },          -- one right pick missing
    { "a b c d e f", 0.5 },     -- every pick: (4 - 2) / 4
    { "a b", 0 },               -- (1 - 1) / 4
    { "b e", 0 },               -- never below 0
    { "a z", "invalid" },
    { "", "invalid" },
  },
}

question {
  id = "amdahl.scaling-design",
  kind = "design",
  title = "Why does it not scale?",
  prompt = [[
A data-parallel training job takes 800 ms per step on 1 GPU and 145 ms per
step on 8 GPUs, with the same global batch. Your manager expected about
100 ms. In a short paragraph: what do these numbers tell you, how would you
find out what is limiting the scaling, and what would you try?]],
  points = 4,
  topics = { "scaling", "karp-flatt", "speedup" },
  rubric = { "practice.profiling", "practice.optimization", "theory.parallel" },
  hints = {
    "Start with the speedup and efficiency, and a serial fraction.",
    "Where can the time of a data-parallel step go besides the GPU's own compute?",
  },
  concepts = {
    { name = "speedup and efficiency", points = 1,
      claims = {
        { relation = { "is", "are", "was", "were", "gives", "give", "reach*", "achiev*", "get*",
                       "run*", "come*", "drop*", "fall*", "fell", "equals", "equal", "amount*",
                       "work*", "scale*" },
          object = { "5.5x", "5.5", "5 5", "69", "0.69", "69 percent", "5.5 times" } },
        { subject = { "speedup*", "speed-up", "speed up", "efficiency", "scaling" },
          relation = { "is", "are", "was", "drop*", "fall*", "stay*", "remain*", "fell" },
          object = { "low", "below", "short", "under", "sublinear", "sub-linear", "less than",
                     "far from", "poor", "well short", "not linear" } },
      },
      contradicts = {
        { match = { "scales perfectly", "perfect scaling", "linear speedup", "scales linearly",
                    "scaling is perfect", "what you should expect", "as expected" },
          feedback = "You said it scales as it should: 800/145 = 5.5x on 8 GPUs is 69% efficiency, well short of linear." },
      },
      feedback = "Quantify first: S = 800/145 = 5.5x, efficiency 5.5/8 = 69%." },
    { name = "serial fraction", points = 2,
      claims = {
        { subject = { "karp-flatt", "karp flatt", "karp", "serial fraction", "serial part", "fraction",
                      "metric", "it", "this", "e", "amdahl" },
          relation = { "is", "gives", "give", "turn*", "yield*", "come*", "estimat*", "put*", "be",
                       "show*", "suggest*", "mean*", "indicat*", "point*", "equal*", "work*" },
          object = { "0.064", "0 064", "0.06", "0 06", "6.4", "6 4", "6%", "serial fraction",
                     "serial part", "serial work", "6 percent", "about 6" } },
        { relation = { "comput*", "estimat*", "calculat*", "measur*", "get*", "us*", "appl*",
                       "work*", "derive*", "find*", "check*", "turn*" },
          object = { "karp*", "serial fraction", "amdahl*", "serial part", "sequential part" } },
        { subject = { "part", "portion", "share", "some", "work" },
          relation = { "is", "are", "stays", "remains", "runs" },
          object = { "serial", "sequential", "not parallel" } },
      },
      feedback = "Turn the measurement into a serial fraction (Karp-Flatt): e = (145/800 - 1/8) / (7/8) = 0.064, and check how it changes with p." },
    { name = "profile the step", points = 2,
      claims = {
        { relation = { "profil*", "measur*", "time*", "trace*", "instrument*", "look*", "inspect*",
                       "break*", "use*", "run*", "record*", "collect*", "check*", "examin*", "see*" },
          object = { "nsight", "profiler", "timeline", "trace", "each phase", "per phase",
                     "per-phase", "breakdown", "phases", "pytorch profiler", "torch profiler",
                     "timers", "where the time", "where the" } },
        { subject = { "profiler", "timeline", "nsight", "trace", "breakdown" },
          relation = { "show*", "reveal*", "tell*", "give*", "break*", "would", "expose*" },
          object = { "where", "time", "phase*", "step", "ms", "each" } },
      },
      feedback = "Measure where the step time goes (a profiler timeline, per-phase timers) before changing anything." },
    { name = "communication", points = 2,
      claims = {
        { subject = { "all-reduce", "allreduce", "all reduce", "communication", "gradient sync*",
                      "synchroni*", "network", "nccl", "traffic", "exchange" },
          relation = { "grow*", "increas*", "dominat*", "cost*", "take*", "scale*", "rise*", "get*",
                       "become*", "add*", "limit*", "eat*", "consume*", "shrink*" },
          object = { "gpus", "number", "p", "time", "step", "bottleneck", "culprit", "expensive",
                     "overhead", "more", "cost" } },
        { subject = { "culprit", "suspect", "bottleneck", "problem", "cause", "limit", "limiter" },
          relation = { "is", "are", "be", "was" },
          object = { "all-reduce", "allreduce", "all reduce", "communication", "synchroni*",
                     "network", "gradient*", "interconnect" } },
        { subject = { "i", "we", "it" },
          relation = { "expect*", "suspect*", "think", "blame*", "guess*", "bet" },
          object = { "all-reduce", "allreduce", "all reduce", "communication", "synchroni*" } },
        { relation = { "look*", "check*", "examin*", "inspect*", "measur*", "suspect*", "blame*",
                       "watch*", "investigat*", "time*", "profil*" },
          object = { "communication", "all-reduce", "allreduce", "all reduce", "gradient sync*",
                     "synchroni*", "nccl" } },
      },
      contradicts = {
        { patterns = { "communicat[^.]-free", "communicat[^.]-cost%a* nothing", "communicat[^.]-negligible",
                       "all%-?%s?reduce[^.]-free", "all%-?%s?reduce[^.]-negligible" },
          feedback = "You said communication is (almost) free: the gradient all-reduce is a cost that grows with the number of GPUs, and the likely cause here." },
      },
      feedback = "Name the gradient all-reduce (communication and synchronisation) as a likely cost that grows with p." },
    { name = "overlap or shrink communication", points = 1,
      claims = {
        { relation = { "overlap*", "hide*", "compress*", "bucket*", "fuse*", "quantiz*", "quantis*",
                       "send*", "shrink*", "cut*", "reduce*" },
          object = { "backward", "backprop*", "back-prop*", "computation", "compute", "gradient*",
                     "all-reduce", "allreduce", "all reduce", "communication", "bucket*", "precision",
                     "fp16", "bf16", "bytes", "traffic" } },
      },
      feedback = "Overlap the all-reduce with the backward pass (gradient buckets) or send fewer bytes (compression, lower precision)." },
    { name = "input pipeline", points = 1,
      claims = {
        { relation = { "prefetch*", "load*", "overlap*", "pipelin*", "check*", "cache*", "add*",
                       "speed*", "fix*", "make*", "stage*" },
          object = { "data", "input*", "loader", "dataloader", "batches", "pipeline", "prefetch*" } },
        { subject = { "data loading", "loading", "data loader", "input pipeline", "dataloader", "loader" },
          relation = { "overlap*", "run*", "prefetch*", "keep*", "stall*", "block*", "wait*", "is",
                       "act*", "hide*" },
          object = { "compute", "computation", "gpu*", "serial", "bottleneck", "ahead", "background",
                     "step" } },
      },
      feedback = "Check the input pipeline: loading that does not overlap with compute acts as serial work." },
    { name = "weak scaling", points = 1,
      claims = {
        { relation = { "try*", "mov*", "switch*", "consider*", "scal*", "increas*", "rais*", "grow*",
                       "go", "apply*", "use*", "double*" },
          object = { "weak scaling", "gustafson", "larger batch", "bigger batch", "batch size",
                     "per-gpu batch", "per gpu batch", "batch per gpu", "more work per gpu" } },
        { subject = { "larger batch", "bigger batch", "weak scaling", "gustafson", "batch" },
          relation = { "help*", "improve*", "give*", "increase*", "amortiz*", "amortis*", "fix*",
                       "solve*", "raise*", "restore*" } },
      },
      feedback = "Consider weak scaling: a larger per-GPU batch gives each GPU more compute per all-reduce (mind the learning rate)." },
  },
  model = [[
The speedup is 800/145 = 5.5x on 8 GPUs, an efficiency of 69%, just under the
usual 70% target. Karp-Flatt gives a serial fraction e = (145/800 - 1/8)/(7/8)
= 0.064; measuring at 2 and 4 GPUs shows whether it is a fixed serial part or
overhead that grows with p. I would profile a step with a timeline (Nsight
Systems or the framework profiler) and time each phase: data loading, forward,
backward, the gradient all-reduce, the optimizer step. The likely culprit is
communication: the all-reduce grows with the number of GPUs. Fixes: overlap the
all-reduce with the backward pass using gradient buckets, compress gradients
or send them in lower precision, prefetch input data so loading overlaps with
compute, and consider weak scaling with a larger per-GPU batch size
(Gustafson), retuning the learning rate.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
On 8 GPUs the speedup is 800/145 = 5.5x, so the efficiency is only 69%.
Karp-Flatt turns that into a serial fraction of about 0.064, and I would
measure it at 2 and 4 GPUs to see whether it grows with p. Before changing
anything I would profile one step with Nsight Systems and time each phase.
The prime suspect is communication, because the gradient all-reduce gets
more expensive as GPUs are added. I would overlap the all-reduce with the
backward pass using gradient buckets, prefetch the input data so loading
overlaps with compute, and try weak scaling with a larger per-GPU batch.]] },
    { role = "good", score = 1, tol = 0, answer = [[
The job runs 5.5 times faster on 8 GPUs, an efficiency of 69%. The
Karp-Flatt metric gives a serial fraction of 0.064 for this run. A profiler
timeline from Nsight would show where the 145 ms of each step go. I expect
the all-reduce of the gradients to dominate, since its communication does
not shrink when GPUs are added. I would overlap it with backpropagation
through gradient buckets or compress the gradients, make the data loader
prefetch batches, and move to weak scaling (Gustafson): a bigger batch per
GPU gives each GPU more work per synchronisation.]] },
    { role = "partial", score = 0.5, tol = 0.2, answer = [[
The speedup is 5.5x. I would profile the step with Nsight and look at the
communication of the gradients.]] },
    { role = "partial", score = 0.3, tol = 0.2, answer = [[
The serial fraction from Karp-Flatt is about 0.064, so part of the step does
not parallelise. A larger batch per GPU (weak scaling) should help.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
Speedup 5.5x, efficiency 69%, Karp-Flatt, serial fraction, profiling, Nsight,
all-reduce, communication, overlap, gradient buckets, data loading, prefetch,
weak scaling, Gustafson.]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
The job scales perfectly: 145 ms on 8 GPUs is what you should expect, so
there is no serial fraction. Profiling would not tell us anything, and the
all-reduce is not the bottleneck because communication with NCCL is free.
Overlapping it with the backward pass never helps, data loading is not the
problem, and a larger batch changes nothing.]] },
  },
  examples = {
    { answer = [[
Speedup is 5.5x, efficiency 69%. Karp-Flatt serial fraction about 0.064.
Profile with Nsight, look at all-reduce communication, overlap it with the
backward pass, prefetch data loading, and try weak scaling with a bigger batch.]],
      -- "Karp-Flatt serial fraction about 0.064" has no verb: the design
      -- reader takes it for a list of terms and credits no claim (8 of 10)
      score = 0.8 },
    { "I would profile it with Nsight and look at the communication.", 0.4 },
    { "Buy faster GPUs.", 0 },
    { "", "invalid" },
  },
}
