-- Lesson 1: Amdahl's law and scalability.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md, ml-system-optimization-notes.txt,
-- day5-summary-and-assessment.md); the text is ours. Every worked example of
-- the material is a question here, either with the document's numbers as the
-- question itself or as a fixed-number example of a variant question.
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
of every GPU-hour is spent waiting. Speedup is what a user feels; efficiency is
what the budget feels.

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

Amdahl's law is an *upper bound*: it assumes the parallel part splits
perfectly and costs nothing to coordinate. Communication, synchronisation and
load imbalance only make the real speedup lower.
]]

question {
  id = "amdahl.speedup-worked",
  kind = "numeric",
  title = "Speedup with 20% serial on 4 processors",
  prompt = [[
A job spends 20% of its one-processor run time in serial code; the rest
parallelizes perfectly. What speedup does Amdahl's law give on 4 processors?]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
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
How long does it take on 4 processors?]],
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
What is the speedup on {p} GPUs, according to Amdahl's law?]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
    "Speedup = 1 / (f + (1 - f)/p).",
    "Here the denominator is {f} + (1 - {f})/{p}.",
  },
  params = function(rng)
    -- f from 0.05 to 0.30 and p up to 32 keep the answer at least 6% away
    -- from the wrong values below (1/f is the nearest, at f = 0.3, p = 32).
    return { f = rng:int(5, 30) / 100, p = rng:pick({ 2, 4, 6, 8, 12, 16, 24, 32 }) }
  end,
  answer = function(p) return wb.amdahl(p.f, p.p) end,
  -- An answer 1-3% off usually comes from rounding the denominator too early:
  -- half credit and a nudge, rather than nothing.
  bands = {
    { rel = 0.03, score = 0.5, feedback = "Close: keep more digits in f + (1 - f)/p and round only at the end." },
  },
  wrong = {
    { value = function(p) return 1 / ((1 - p.f) + p.f / p.p) end,
      feedback = "You swapped the fractions: f is the serial share, so it is the term that is NOT divided by p." },
    { value = function(p) return p.p end,
      feedback = "That is linear speedup; the serial fraction does not shrink with more GPUs." },
    { value = function(p) return 1 / p.f end,
      feedback = "1/f is the limit for infinitely many GPUs. With a finite p the parallel term (1 - f)/p still counts." },
  },
  examples = {
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p) * 1.02) end, score = 0.5 },
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

| f (serial) | p = 4 | p = 8 | p = 16 | p = 100 | limit 1/f |
|-----------:|------:|------:|-------:|--------:|----------:|
| 0          | 4     | 8     | 16     | 100     | none      |
| 0.05       | 3.48  | 5.93  | 9.14   | 16.8    | 20        |
| 0.1        | 3.08  | 4.71  | 6.40   | 9.17    | 10        |
| 0.2        | 2.50  | 3.33  | 4.00   | 4.81    | 5         |
| 0.25       | 2.29  | 2.91  | 3.37   | 3.88    | 4         |
| 0.5        | 1.60  | 1.78  | 1.88   | 1.98    | 2         |

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
Amdahl's law predict on 100 processors?]],
  unit = "x",
  topics = { "amdahl", "speedup" },
  hints = {
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
  id = "amdahl.limit-pair",
  kind = "text",
  title = "Speedup and its ceiling",
  prompt = [[
A program has a serial fraction f = 0.15. Give two numbers, separated by a
space: its Amdahl speedup on 10 processors, then its maximum possible speedup
with unlimited processors. Example of the form: 1.5 2]],
  points = 2,
  topics = { "amdahl", "speedup" },
  hints = {
    "First number: 1 / (0.15 + 0.85/10).",
    "Second number: let p grow without bound; only f is left in the denominator.",
  },
  answer = "4.26 6.67",
  -- Two numbers in one answer: a custom grade gives half credit for each and
  -- names the mistake behind a wrong one. Each number is accepted within 1%.
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
    if wb.close(a, smax) and wb.close(b, s10) then
      a, b = b, a  -- the ceiling is necessarily the larger one; order does not matter
    end
    local score, notes = 0, {}
    if wb.close(a, s10) then
      score = score + 0.5
    elseif wb.close(a, 10) then
      notes[#notes + 1] = "10 would be linear speedup; the serial 15% does not shrink (S(10) = 1/0.235 = 4.26)."
    elseif wb.close(a, 1 / (0.85 + 0.15 / 10)) then
      notes[#notes + 1] = "Your speedup uses 0.85 as the serial fraction; f = 0.15 is serial."
    else
      notes[#notes + 1] = "Speedup on 10 processors: 1 / (0.15 + 0.85/10) = 1/0.235 = 4.26."
    end
    if wb.close(b, smax) then
      score = score + 0.5
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
    { "4.3 6.7", 0.5 },       -- 4.3 is 1.05% off; 6.7 is within 1%
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
what is the largest speedup you can get?]],
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
parallel efficiency according to Amdahl's law, in per cent?]],
  unit = "%",
  topics = { "amdahl", "efficiency" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Efficiency = speedup / p.",
    "First compute the speedup 1 / (f + (1 - f)/p), then divide by {p}.",
  },
  params = function(rng)
    return { f = rng:int(5, 25) / 100, p = rng:pick({ 4, 8, 16, 32 }) }
  end,
  answer = function(p) return 100 * wb.amdahl(p.f, p.p) / p.p end,
  wrong = {
    { value = function(p) return wb.amdahl(p.f, p.p) / p.p end,
      feedback = "That is the efficiency as a fraction; the question asks per cent (0.625 is written 62.5, or 62.5%)." },
    { value = function(p) return wb.amdahl(p.f, p.p) end,
      feedback = "That is the speedup. Efficiency divides it by the number of processors." },
  },
  examples = {
    { answer = function(p) return string.format("%.3f", 100 * wb.amdahl(p.f, p.p) / p.p) end, score = 1 },
    { answer = function(p) return string.format("%.3f%%", 100 * wb.amdahl(p.f, p.p) / p.p) end, score = 1 },
    { answer = function(p) return string.format("%.3f", 95 * wb.amdahl(p.f, p.p) / p.p) end, score = 0 },
    { "62.5 ms", "invalid" },
    -- The worked example f = 0.2, p = 4: S = 2.5, E = 62.5%.
    { params = { f = 0.2, p = 4 }, answer = "62.5", score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "62.5%", score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "0.625", score = 0 },  -- a fraction, read as 0.625%
    { params = { f = 0.2, p = 4 }, answer = "60", score = 0 },
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

question {
  id = "amdahl.serial-fraction",
  kind = "numeric",
  title = "Serial fraction from a measurement (your numbers)",
  prompt = [[
On {p} processors a program measures a speedup of {S}. Assuming Amdahl's
model, what serial fraction f explains this? Give f as a fraction (e.g. 0.12).]],
  topics = { "amdahl", "serial-fraction", "karp-flatt" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Solve 1/S = f + (1 - f)/p for f.",
    "f = (1/S - 1/p) / (1 - 1/p). Keep several digits of 1/{S}.",
  },
  params = function(rng)
    -- Built from a true f and rounded, so the shown S is exactly what the
    -- reference uses. With f <= 0.3 the wrong values stay far from f.
    local f = rng:int(5, 30) / 100
    local p = rng:pick({ 4, 6, 8, 12, 16 })
    return { S = wb.round(wb.amdahl(f, p), 2), p = p }
  end,
  answer = function(p) return wb.karp_flatt(p.S, p.p) end,
  -- f is the difference of two close reciprocals, so a student who keeps 3
  -- decimals of 1/S can be off by ~0.001 in f. Accept +-0.002 absolute (or
  -- 1%, whichever is wider); a few per cent off earns half credit.
  tolerance = { rel = 0.01, abs = 0.002 },
  bands = {
    { rel = 0.05, score = 0.5, feedback = "Close: you probably rounded 1/S too early. Keep 4 or more digits." },
  },
  wrong = {
    { value = function(p) return 1 - wb.karp_flatt(p.S, p.p) end,
      feedback = "That is the parallel fraction 1 - f. The question asks for the serial fraction f." },
    { value = function(p) return 1 / p.S end,
      feedback = "1/S is the parallel run time as a share of T(1); it still contains the parallel part (1 - f)/p. Subtract 1/p and divide by (1 - 1/p)." },
  },
  examples = {
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
scaled speedup according to Gustafson's law?]],
  unit = "x",
  topics = { "gustafson", "scaling" },
  hints = {
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

------------------------------------------------------------------------------
page [[
# Strong and weak scaling

A **scaling study** runs a job at several processor counts and plots speedup
and efficiency against p. There are two kinds, and a report must say which.

|                    | strong scaling                  | weak scaling                               |
|--------------------|---------------------------------|--------------------------------------------|
| problem size       | fixed in total                  | fixed *per processor*; total grows with p  |
| ideal result       | T(p) = T(1) / p                 | T(p) = T(1)                                |
| efficiency         | E = T(1) / (p × T(p))           | E = T(1) / T(p), p times the work at p     |
| limited by         | Amdahl: S ≤ 1/f                 | Gustafson: S = p − s(p − 1)                |
| data-parallel ML   | same global batch, more GPUs    | same batch per GPU, global batch grows     |

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
]]

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
      match = { "speedup", "speed up", "speedups", "efficiency", "efficient", "5.5x", "69%" },
      patterns = { "5%.5", "69" },
      feedback = "Quantify first: S = 800/145 = 5.5x, efficiency 5.5/8 = 69%." },
    { name = "serial fraction", points = 2,
      match = { "karp-flatt", "karp flatt", "amdahl", "serial fraction", "serial part", "sequential" },
      patterns = { "karp", "serial", "sequential", "0%.06" },
      feedback = "Turn the measurement into a serial fraction (Karp-Flatt): e = (145/800 - 1/8) / (7/8) = 0.064, and check how it changes with p." },
    { name = "profile the step", points = 2,
      match = { "profile", "profiler", "profiling", "nsight", "timeline", "trace", "breakdown" },
      patterns = { "profil", "nsight", "time each", "per%-phase", "per phase" },
      feedback = "Measure where the step time goes (a profiler timeline, per-phase timers) before changing anything." },
    { name = "communication", points = 2,
      match = { "all-reduce", "allreduce", "all reduce", "communication", "gradient sync", "network", "interconnect", "nccl" },
      patterns = { "communicat", "all%-?%s?reduce", "synchroni[sz]" },
      feedback = "Name the gradient all-reduce (communication and synchronisation) as a likely cost that grows with p." },
    { name = "overlap or shrink communication", points = 1,
      match = { "overlap", "overlapping", "bucket", "buckets", "compression", "compress" },
      patterns = { "overlap", "compress", "bucket" },
      feedback = "Overlap the all-reduce with the backward pass (gradient buckets) or send fewer bytes (compression, lower precision)." },
    { name = "input pipeline", points = 1,
      match = { "data loading", "data loader", "dataloader", "input pipeline", "prefetch", "prefetching" },
      patterns = { "data ?load", "prefetch", "input pipeline" },
      feedback = "Check the input pipeline: loading that does not overlap with compute acts as serial work." },
    { name = "weak scaling", points = 1,
      match = { "weak scaling", "gustafson", "larger batch", "bigger batch" },
      patterns = { "gustafson", "weak scal", "batch size", "per%-gpu batch" },
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
  examples = {
    { answer = [[
Speedup is 5.5x, efficiency 69%. Karp-Flatt serial fraction about 0.064.
Profile with Nsight, look at all-reduce communication, overlap it with the
backward pass, prefetch data loading, and try weak scaling with a bigger batch.]],
      score = 1 },
    { "I would profile it with Nsight and look at the communication.", 0.4 },
    { "Buy faster GPUs.", 0 },
    { "", "invalid" },
  },
}
