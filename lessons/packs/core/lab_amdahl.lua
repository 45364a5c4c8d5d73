-- Lab: Amdahl speedup on your machine.
--
-- Sends the student to the `amdahl` lab (labs/lab_amdahl.c) and grades
-- questions against their own latest run (ctx.lab). Facts come from the
-- course material (Amdahl's law, Karp-Flatt, Gustafson: midterm-crash-course.md,
-- ml-system-optimization-notes.txt, day5-summary-and-assessment.md); the
-- text is ours.
--
-- Lab-linked questions read the run's summary figures (their keys are listed
-- on the "Reading the charts" page and in the lab's file header). A question
-- whose figure is missing from the run (P = 1, an old run) explains what to
-- run instead of grading, so those questions grade through wb.lab.grade()
-- rather than the built-in numeric grading (which needs a reference).
-- Numbers shown in a prompt are rounded first, and the reference is computed
-- from the rounded value the student sees.

lesson {
  id = "lab-amdahl",
  title = "Lab: Amdahl speedup on your machine",
  topics = { "amdahl", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
}

-- The f the run was started with: its parameter, else the summary's copy.
local function f_set(ctx)
  local v = wb.lab.param(ctx, "f")
  if type(v) == "number" then return v end
  return wb.lab.figure(ctx, "f_set")
end

------------------------------------------------------------------------------
page [[
# Lab: Amdahl speedup on your machine

The Amdahl lesson worked with made-up numbers. This lab makes the numbers on
your own computer: it runs a job whose serial fraction **you** choose on
p = 1, 2, ..., P workers, times every run, and draws what it measured next
to what Amdahl's law predicts.

## What one trial does

1. The lab first *calibrates*: it measures how much of its work unit (a
   loop of pure integer arithmetic that never touches memory) one core does
   per second, and sizes the whole job, W, to take `work_ms` milliseconds on
   one core.
2. A trial with p workers runs a **serial phase** (f·W) in the lab's main
   process while every worker waits,
3. then a **parallel phase**: (1 − f)·W is split into p equal shares, one per
   worker, and the trial ends when the last worker reports back.

Every p is tried `reps` times and the median time counts, so one trial that
another program interrupted does not bend the curve.

## Running it

```
warpbench lab run amdahl                    # f = 0.1, P = your cores
warpbench lab run amdahl --set f=0.2        # a more serial job
warpbench lab run amdahl --set P=8 --set reps=5
warpbench lab run amdahl --json             # one JSON object per line
```

In the terminal UI, open the **Lab** screen, pick *amdahl*, edit the
parameters in the form and start it; the charts fill in while it runs, and
`q` cancels (so does Ctrl-C on the command line). A cancelled run leaves no
worker process behind and is not used for grading.

| parameter | default    | range       | meaning                         |
|-----------|------------|-------------|---------------------------------|
| `f`       | 0.1        | 0 to 1      | serial fraction of the job W    |
| `P`       | your cores | 1 to 256    | largest number of workers       |
| `work_ms` | 400        | 10 to 10000 | W, in milliseconds on one core  |
| `reps`    | 3          | 1 to 20     | trials per p; the median counts |

`P` defaults to the number of online cores of your machine.
With the defaults on a two-core machine the run takes about two seconds.
A `P` above your core count is allowed: the lab warns that it
*oversubscribes* the machine, and from p = cores + 1 on two workers share a
core. Try it once to see what that does to the curves.

The questions after the next pages use the numbers of **your latest
completed run**; until you have one they tell you to run the lab.
]]

page [[
# Why processes, and what the clock sees

The workers are separate **processes**, not threads of one program. That is
a choice with reasons:

- Each worker has its own address space, as the workers of the distributed
  labs later in the course (MapReduce, parameter servers) will have. What you
  learn here about starting and signalling them carries over.
- Nothing is shared between workers: no common memory allocator to queue
  on, and no *false sharing* (two threads' counters in one cache line,
  bouncing between cores). Those effects are real, but they are a lesson of
  their own and would blur this one.
- You can watch them: `ps` or `top` lists one `warpbench` per worker while
  the lab runs.

The cost of a process is its start-up, which is much slower than a thread's.
The lab keeps it **out of every timing**: it starts all P workers once,
before the first trial (a *worker pool*), and then only sends each one a
number (how many iterations to run) over a socket pair and reads the answer.
An idle worker sleeps in a blocking read and uses no CPU. Before the first
timed trial every worker runs one untimed share, so no timing pays for a
worker's first run on a cold core.

So the clock sees: the serial phase, the few microseconds to hand out the
shares, the slowest worker's share, and the few microseconds to collect the
answers. T(1) is measured with the same machinery (one worker), so the
speedups compare like with like.

Because the work unit only does arithmetic in registers, no cache effect can
make a worker faster when its share shrinks: you should not see superlinear
speedup here. What you *can* see is everything Amdahl's model leaves out:
the hand-out and collection, cores that run at a lower clock when several
are busy, and other programs taking a core away.
]]

page [[
# Reading the charts

**time** — the median trial time for each p. The first point is T(1).

**speedup** — three curves over p:

- *measured*: T(1) / T(p) from your trials;
- *Amdahl*: 1 / (f + (1 − f)/p) for the f you set, the best this job could
  do with perfect workers and free coordination;
- *Gustafson*: p − f·(p − 1). This answers a **different question**: how
  much more work p processors finish in the same time when the job grows
  with p (weak scaling). The lab keeps W fixed (strong scaling), so your
  measurement should follow Amdahl's curve, not Gustafson's. The curve is
  there so you can see how far apart the two laws are for your f.

**efficiency** — S(p)/p in per cent. 100 % means every worker you added
paid off in full.

**karp_flatt** — the experimentally determined serial fraction
e(p) = (1/S − 1/p) / (1 − 1/p) for p ≥ 2, drawn next to the f you set.
If e(p) sits on your f, the job behaves as Amdahl's model says. If it sits
above, something else is serial too; if it **rises with p**, that something
grows with the number of workers (coordination, shared resources, or more
workers than cores).

## The summary

At the end the lab writes named figures; the questions read them.

Figures for each p:

| key                  | what it is                 |
|----------------------|----------------------------|
| `t_p1`, `t_p2`, ...  | median time per p (s)      |
| `speedup_p2`, ...    | measured speedup T(1)/T(p) |
| `efficiency_p2`, ... | S(p)/p in %                |
| `karp_flatt_p2`, ... | e(p)                       |

Per-p figures are kept for p up to 16, for powers of two and for P.
Figures for the whole run:

- `f_set`, `P`, `work_ms`, `reps`, `cores`: the run's settings and your
  core count.
- `t_pmax`, `speedup_pmax`, `efficiency_pmax`, `karp_flatt_pmax`: the same
  as above, at p = P.
- `amdahl_pmax`, `gustafson_pmax`: the two laws at p = P for `f_set`.
- `speedup_max_measured`, `p_at_speedup_max`: the best measured speedup and
  its p.
- `fitted_f`: the serial fraction that best explains all measured speedups.
- `max_speedup_bound`: 1 / `fitted_f`, Amdahl's ceiling for that f.

`fitted_f` is a least-squares fit over every p. Amdahl's model is a straight
line in the *normalised time* 1/S = 1/p + f·(1 − 1/p), so the fit is exact
arithmetic, not a search. It is clamped to 0..1; when it comes out 0 there
is no measurable serial part and no finite ceiling to report.

## Things to try

- `--set f=0` : Amdahl's curve is the straight line S = p. How close do you
  get, and what does Karp–Flatt call the gap?
- `--set work_ms=10` : with a tiny job the fixed costs of handing out work
  weigh more, and e(p) climbs above f.
- `--set P=` twice your cores: look at e(p) beyond your core count.
- Run it while something else keeps a core busy: the median hides a single
  interruption but not a steady competitor.
]]

------------------------------------------------------------------------------
question {
  id = "lab-amdahl.karp-flatt-p2",
  kind = "numeric",
  title = "Your serial fraction at p = 2",
  prompt = [[
In your latest run of the amdahl lab (you set f = {fset}), the measured
speedup on 2 workers was S(2) = {s2}. What serial fraction does that
measurement imply (the Karp-Flatt metric e)? Give it as a fraction, such as
0.12.
Give three significant figures.{note}]],
  lab = "amdahl",
  topics = { "amdahl", "karp-flatt", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Solve Amdahl's formula 1/S = f + (1 - f)/p for f, with p = 2.",
    "e = (1/S - 1/p) / (1 - 1/p). At p = 2 that simplifies to 2/S - 1.",
  },
  params = function(rng, ctx)
    local p = { fset = f_set(ctx) }
    local s2 = wb.lab.figure(ctx, "speedup_p2")
    if ctx.lab and not s2 then
      p.note = "\n\n(Your latest run has no measurement at p = 2: it ran with P = 1. "
        .. "Run `warpbench lab run amdahl --set P=2` first.)"
    elseif s2 then
      p.s2 = wb.round(s2, 3)
      p.ref = wb.karp_flatt(p.s2, 2)
    end
    return wb.lab.blanks(p, { "fset", "s2" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      -- S is shown with 3 decimals; +-0.002 absolute covers rounding 1/S.
      tol = { rel = 0.01, abs = 0.002 },
      wrong = {
        { value = function(p) return 1 - p.ref end,
          feedback = "That is the parallel share 1 - e; the question asks for the serial fraction." },
        { value = function(p) return 1 / p.s2 end,
          feedback = "1/S still contains the parallel part (1 - f)/p: subtract 1/p and divide by (1 - 1/p)." },
        { value = function(p) return type(p.fset) == "number" and p.fset or nil end,
          feedback = "That is the f you SET. The question asks what your MEASUREMENT implies." },
      },
      explain = function(p)
        local e = p.ref
        local s = string.format("e = (1/%s - 1/2) / (1 - 1/2) = %s.", wb.sig(p.s2, 4), wb.sig(e, 3))
        if type(p.fset) == "number" then
          if e > p.fset + 0.01 then
            s = s .. string.format(" That is above the %s you set: the rest is overhead the "
              .. "model does not count (handing out work, clock speed with two busy cores, "
              .. "other programs).", wb.sig(p.fset, 3))
          elseif e < p.fset - 0.01 then
            s = s .. string.format(" That is below the %s you set: the one-worker trials were "
              .. "slowed by something the two-worker ones escaped (noise). Run again with more reps.",
              wb.sig(p.fset, 3))
          else
            s = s .. " It matches the f you set: at p = 2 your machine behaves as Amdahl's model says."
          end
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "0.1236", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "2/1.78 - 1", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "12.4%", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "0.876", score = 0 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "0.5618", score = 0 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "0.1", score = 0 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { speedup_p2 = 1.78 } }, answer = "lots", score = "invalid" },
    -- the course's worked example at p = 2: f = 0.2 gives S = 1/(0.2 + 0.4) = 1.667
    { lab = { params = { f = 0.2, P = 4 }, summary = { speedup_p2 = 1.667 } }, answer = "0.2", score = 1 },
    -- a run with P = 1 has no S(2): explained, not scored
    { lab = { params = { f = 0.1, P = 1 }, summary = { P = 1 } }, answer = "0.1", score = "invalid" },
    -- no run at all: the question asks for one
    { "0.1", "invalid" },
  },
}

question {
  id = "lab-amdahl.ceiling",
  kind = "numeric",
  title = "The ceiling your fitted f implies",
  prompt = [[
Fitting Amdahl's law to all the speedups of your latest amdahl run gave a
serial fraction of f = {ff} (you set {fset}). If that f were the whole
story, what is the largest speedup ANY number of workers could give this
job?
Give three significant figures.{note}]],
  lab = "amdahl",
  unit = "x",
  topics = { "amdahl", "speedup", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Let p grow without bound in 1 / (f + (1 - f)/p).",
    "Only f is left in the denominator.",
  },
  params = function(rng, ctx)
    local p = { fset = f_set(ctx) }
    local ff = wb.lab.figure(ctx, "fitted_f")
    if ctx.lab and not ff then
      p.note = "\n\n(Your latest run has no fitted f: it ran with P = 1. "
        .. "Run `warpbench lab run amdahl --set P=2` or more first.)"
    elseif ff then
      p.ff = wb.round(ff, 4)
      if p.ff < 0.001 then
        p.note = "\n\n(Your fitted f is practically 0, so there is no finite ceiling to compute. "
          .. "Run the lab with a serial part, e.g. `warpbench lab run amdahl --set f=0.1`.)"
      else
        p.ref = 1 / p.ff
        p.smax = wb.lab.figure(ctx, "speedup_max_measured")
        p.P = wb.lab.figure(ctx, "P")
        -- the p the best speedup was measured at (not always the largest)
        p.pbest = wb.lab.figure(ctx, "p_at_speedup_max") or p.P
      end
    end
    return wb.lab.blanks(p, { "fset", "ff" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "x",
      wrong = {
        { value = function(p) return 1 / (1 - p.ff) end,
          feedback = "You divided by the parallel share 1 - f; the ceiling is 1/f with f the SERIAL share." },
        { value = function(p) return p.ff end,
          feedback = "That is f itself; the ceiling is its inverse." },
        { value = function(p) return p.P end,
          feedback = "That is your largest p, i.e. linear speedup. The serial part caps the speedup at 1/f." },
      },
      explain = function(p)
        local s = string.format("1/f = 1/%s = %sx.", wb.sig(p.ff, 4), wb.sig(p.ref, 3))
        if wb.finite(p.smax) and wb.finite(p.pbest) then
          local w = math.floor(p.pbest + 0.5)
          s = s .. string.format(" Your run's best was %sx with %d worker%s, %d%% of that ceiling.",
            wb.sig(p.smax, 3), w, w == 1 and "" or "s", math.floor(100 * p.smax / p.ref + 0.5))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "8.09", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "1/0.1236", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "1.141", score = 0 },   -- 1/(1 - f)
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "10", score = 0 },      -- 1/f_set, not the fitted f
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "2", score = 0 },       -- P
    { lab = { params = { f = 0.1, P = 2 }, summary = { fitted_f = 0.1236, speedup_max_measured = 1.78, P = 2 } },
      answer = "infinite", score = "invalid" },
    -- the course's numbers: f = 0.15 caps the speedup at 6.67x
    { lab = { params = { f = 0.15, P = 8 }, summary = { fitted_f = 0.15, speedup_max_measured = 3.9, P = 8 } },
      answer = "6.67", score = 1 },
    -- no serial part measured: nothing to compute, explained
    { lab = { params = { f = 0, P = 2 }, summary = { fitted_f = 0, P = 2 } }, answer = "100", score = "invalid" },
    { lab = { params = { f = 0.1, P = 1 }, summary = { P = 1 } }, answer = "10", score = "invalid" },
  },
}

question {
  id = "lab-amdahl.efficiency",
  kind = "numeric",
  title = "Your efficiency at p = P",
  prompt = [[
With p = {P} workers your latest amdahl run measured a speedup of {sP}.
What parallel efficiency is that, in per cent?
Give three significant figures.{note}]],
  lab = "amdahl",
  unit = "%",
  topics = { "efficiency", "lab" },
  rubric = { "practice.profiling", "advanced.cost" },
  hints = { "Efficiency = S(p) / p." },
  params = function(rng, ctx)
    local p = {}
    local P, s = wb.lab.figure(ctx, "P"), wb.lab.figure(ctx, "speedup_pmax")
    if ctx.lab and not (P and P >= 2 and s) then
      p.note = "\n\n(Your latest run used only one worker. Run `warpbench lab run amdahl --set P=2` or more first.)"
    elseif P and s then
      p.P = math.floor(P + 0.5)
      p.sP = wb.round(s, 3)
      p.ref = 100 * p.sP / p.P
    end
    return wb.lab.blanks(p, { "P", "sP" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "%",
      wrong = {
        { value = function(p) return p.sP / p.P end,
          feedback = "That is the efficiency as a fraction; the question asks per cent (0.9 is written 90, or 90%)." },
        { value = function(p) return p.sP end, feedback = "That is the speedup; divide it by p." },
      },
      explain = function(p)
        return string.format("%s / %d = %s%%: of every %d core-seconds you paid for, %s did useful work.",
          wb.sig(p.sP, 4), p.P, wb.sig(p.ref, 3), p.P, wb.sig(p.ref * p.P / 100, 3))
      end,
    })
  end,
  examples = {
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "89", score = 1 },
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "89%", score = 1 },
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "0.89", score = 0 },
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "1.78", score = 0 },
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "80", score = 0 },
    { lab = { summary = { P = 8, speedup_pmax = 4.71 } }, answer = "58.9", score = 1 },
    { lab = { summary = { P = 1, speedup_pmax = 1 } }, answer = "100", score = "invalid" },
  },
}

question {
  id = "lab-amdahl.predict-time",
  kind = "numeric",
  title = "Predict T(P) from T(1)",
  prompt = [[
Your latest amdahl run took T(1) = {t1} s with one worker, and you set the
serial fraction to f = {fset}. What run time does Amdahl's law predict with
p = {P} workers? (The feedback compares it with what you measured.)
Give three significant figures.{note}]],
  lab = "amdahl",
  unit = "s",
  topics = { "amdahl", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "The serial part f * T(1) does not shrink; the parallel part (1 - f) * T(1) is shared by p workers.",
  },
  params = function(rng, ctx)
    local p = { fset = f_set(ctx) }
    local t1, P = wb.lab.figure(ctx, "t_p1"), wb.lab.figure(ctx, "P")
    if ctx.lab and not (t1 and P and P >= 2 and type(p.fset) == "number") then
      p.note = "\n\n(Your latest run used only one worker. Run `warpbench lab run amdahl --set P=2` or more first.)"
    elseif t1 and P then
      p.t1 = wb.round(t1, 4)
      p.P = math.floor(P + 0.5)
      p.ref = p.t1 * (p.fset + (1 - p.fset) / p.P)
      p.tP = wb.lab.figure(ctx, "t_pmax")
    end
    return wb.lab.blanks(p, { "t1", "fset", "P" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "s",
      wrong = {
        { value = function(p) return p.t1 / p.P end,
          feedback = "T(1)/p treats the whole job as parallel; the serial part keeps its full length." },
        { value = function(p) return p.t1 * p.fset end,
          feedback = "That is the serial part alone; add the parallel part (1 - f) T(1) / p." },
        { value = function(p) return p.t1 * (1 - p.fset) / p.P end,
          feedback = "That is the parallel part alone; add the serial part f T(1)." },
      },
      explain = function(p)
        local s = string.format("T(%d) = %s s x (%s + %s/%d) = %s s.", p.P, wb.sig(p.t1, 4),
          wb.sig(p.fset, 3), wb.sig(1 - p.fset, 3), p.P, wb.sig(p.ref, 3))
        if wb.finite(p.tP) then
          s = s .. string.format(" You measured %s s, %s%% %s the prediction.", wb.sig(p.tP, 3),
            wb.sig(math.abs(100 * (p.tP - p.ref) / p.ref), 2), p.tP >= p.ref and "above" or "below")
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { f = 0.1, P = 2 }, summary = { t_p1 = 0.4, P = 2, t_pmax = 0.228 } },
      answer = "0.22", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { t_p1 = 0.4, P = 2, t_pmax = 0.228 } },
      answer = "220 ms", score = 1 },
    { lab = { params = { f = 0.1, P = 2 }, summary = { t_p1 = 0.4, P = 2, t_pmax = 0.228 } },
      answer = "0.2", score = 0 },       -- T(1)/p
    { lab = { params = { f = 0.1, P = 2 }, summary = { t_p1 = 0.4, P = 2, t_pmax = 0.228 } },
      answer = "0.228", score = 0 },     -- the measurement, not the prediction
    { lab = { params = { f = 0.1, P = 2 }, summary = { t_p1 = 0.4, P = 2, t_pmax = 0.228 } },
      answer = "0.22 GB", score = "invalid" },
    -- the course's worked example scaled down: 100 s, 20% serial, 4 workers -> 40 s
    { lab = { params = { f = 0.2, P = 4 }, summary = { t_p1 = 100, P = 4 } }, answer = "40", score = 1 },
    { lab = { params = { f = 0.2, P = 1 }, summary = { t_p1 = 0.4, P = 1 } }, answer = "0.4", score = "invalid" },
  },
}

------------------------------------------------------------------------------
question {
  id = "lab-amdahl.why-pool",
  kind = "choice",
  title = "Why a worker pool",
  prompt = [[
The amdahl lab starts its worker processes once, before the first timed
trial, and afterwards only sends each worker a number over a socket. Suppose
it started fresh processes inside every trial instead. What would happen to
its measurements?]],
  topics = { "amdahl", "karp-flatt", "lab" },
  rubric = { "practice.profiling", "practice.design" },
  hints = { "What does the clock of a trial include, and does that grow with p?" },
  choices = {
    "Nothing: starting a process is free.",
    "Every trial would include p process start-ups, a cost that grows with p, so the measured speedup would fall further below Amdahl's curve and the Karp-Flatt metric would rise with p.",
    "The serial fraction f the student set would change.",
    "The speedup would become superlinear.",
  },
  answer = 2,
  why = {
    [1] = "Starting a process costs far more than starting a thread; the pool exists to keep that out of the timing.",
    [3] = "f is a share of the work the lab hands out; start-up time is extra time the model does not count.",
    [4] = "Extra work in every trial can only make the parallel runs slower.",
  },
  examples = {
    { "b", 1 },
    { "2", 1 },
    { "a", 0 },
    { "d", 0 },
    { "e", "invalid" },
  },
}

question {
  id = "lab-amdahl.gustafson-curve",
  kind = "choice",
  title = "Why your run does not follow Gustafson",
  prompt = [[
On the lab's speedup chart the Gustafson curve p - f(p - 1) lies above both
Amdahl's curve and the measured speedup. Why does the lab's measurement not
follow Gustafson's curve?]],
  topics = { "gustafson", "scaling", "lab" },
  rubric = { "theory.parallel" },
  hints = { "Does the total work W change when the lab adds workers?" },
  choices = {
    "The lab keeps the total work fixed as p grows (strong scaling); Gustafson's law describes a job that grows with p (weak scaling), which is a different question.",
    "Gustafson's law is wrong; only Amdahl's law holds.",
    "The machine is too slow for Gustafson's law to apply.",
    "Gustafson's curve needs more repetitions to show up.",
  },
  answer = 1,
  why = {
    [2] = "Both laws are right about their own question: fixed work (Amdahl) or work that grows with p (Gustafson).",
    [3] = "Speed has nothing to do with it; the shape of the experiment does.",
    [4] = "More repetitions only make the same fixed-work measurement more precise.",
  },
  examples = {
    { "a", 1 },
    { "b", 0 },
    { "c", 0 },
    { "", "invalid" },
  },
}

question {
  id = "lab-amdahl.oversubscribe",
  kind = "choice",
  title = "More workers than cores",
  prompt = [[
You run the amdahl lab with P = 8 on a machine with 4 cores (the lab warns
that this oversubscribes). What do you expect for p = 5 to 8?]],
  topics = { "amdahl", "karp-flatt", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = { "How many workers can compute at the same moment on 4 cores?" },
  choices = {
    "The speedup keeps following Amdahl's curve up to p = 8.",
    "The speedup stops growing (at best it stays near its p = 4 value, usually it drops a little), and the Karp-Flatt metric rises with p.",
    "The lab refuses to run more workers than cores.",
    "The speedup becomes superlinear because each share is smaller.",
  },
  answer = 2,
  why = {
    [1] = "Only 4 workers can run at once; the others wait for a core, so p = 8 is not faster than p = 4.",
    [3] = "It runs them, with a warning: seeing the effect is the point.",
    [4] = "The work unit never touches memory, so smaller shares gain nothing from caches.",
  },
  examples = {
    { "b", 1 },
    { "a", 0 },
    { "c", 0 },
    { "z", "invalid" },
  },
}
