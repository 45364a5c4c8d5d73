-- Lab: MapReduce k-means over worker processes.
--
-- Sends the student to the `kmeans` lab (labs/lab_kmeans.c): Lloyd's
-- k-means as one MapReduce job per iteration, map tasks on worker
-- processes, the combiner on or off, injected crashes and a straggler,
-- results that are the same bits for any number of workers. Facts come from
-- the course material (k-means, O(n*k*d), MapReduce and the combiner, the
-- speedup question: midterm-crash-course.md hour 3,
-- ml-system-optimization-notes.txt question 7); the text is ours.
--
-- Lab-linked questions read the run's summary figures (keys listed on the
-- "Reading the charts" page and at the top of lab_kmeans.c) and grade
-- through wb.lab.grade(): a run that lacks a figure
-- (workers = 1 has no speedup over p = 1) is explained, not graded.
-- Numbers shown in a prompt are rounded first, and the reference is
-- computed from the rounded values the student sees.

lesson {
  id = "lab-kmeans",
  title = "Lab: MapReduce k-means on your machine",
  topics = { "kmeans", "mapreduce", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
}

local RERUN = "\n\n(Your latest kmeans run lacks a figure this question needs. "
  .. "Run `warpbench lab run kmeans` again with its defaults.)"

------------------------------------------------------------------------------
page [[
# Lab: MapReduce k-means on your machine

The MapReduce lesson wrote k-means as one job per iteration: map assigns
points and adds them up per cluster, the shuffle brings the partial sums
to a reducer, and the reduce divides. This lab runs exactly that on your
machine, with real worker processes, and measures every phase.

## What one iteration does

1. **Broadcast.** The master process writes the k current centres (the
   MapReduce lesson's centroids) into memory every worker can read.
2. **Map.** The points are split into a fixed number of **map tasks**
   (`tasks`, 16 by default). Each free worker takes the next task, assigns
   every point of it to the nearest centre (the n·k·d part), and with the
   **combiner** adds its points up per cluster: it sends back k sums and k
   counts. Without the combiner it sends one record per point.
3. **Shuffle.** The results travel over the workers' sockets to the master.
4. **Reduce.** The master adds the tasks' partial sums **in task order**
   and moves every centre to the mean of its points.

The loop stops when no centre moved more than `tol`, or after `max_iter`
iterations. A last map pass assigns every point to the final centres and
gives the final SSE (the sum of squared distances).

The points are Gaussian blobs generated from a seed, or your own file. They
sit in shared memory that every worker maps: a task is a range of indices,
and no point is copied to run it. (Without the combiner the points are
copied into the records: that copying *is* the shuffle being measured.)

## Running it

```
warpbench lab run kmeans                     # 1M points, d=16, k=16
warpbench lab run kmeans --set workers=1     # one worker
warpbench lab run kmeans --set combiner=off  # a record per point
warpbench lab run kmeans --set crash=0.1     # crash 10% of attempts
warpbench lab run kmeans --set straggler=2:5 # worker 2 five times slower
warpbench lab run kmeans --set file=pts.csv  # your own points
warpbench lab run kmeans --json              # one JSON object per line
```

In the terminal UI, open the **Lab** screen, pick *kmeans*, edit the form
and start it; `q` cancels (so does Ctrl-C), and no worker is left behind.
With the defaults the run takes a second or two.

| parameter     | default  | meaning                                   |
|---------------|----------|-------------------------------------------|
| `n` `d` `k`   | 1M 16 16 | points, dimensions, clusters              |
| `seed`        | 1        | points, random start, crash schedule      |
| `spread`      | 2        | std. deviation of each generated blob     |
| `file`        | none     | CSV with a header line, or raw float32    |
| `format`      | auto     | csv or f32 (auto: by the file name)       |
| `init`        | random   | random, first (k points) or file          |
| `init_file`   | none     | k starting centres for init=file          |
| `workers`     | cores    | worker processes                          |
| `tasks`       | 16       | map tasks per iteration                   |
| `combiner`    | on       | k sums per task, or a record per point    |
| `max_iter`    | 50       | most iterations                           |
| `tol`         | 0.0001   | stop when no centre moves more            |
| `crash`       | 0        | chance that a task attempt crashes        |
| `straggler`   | none     | W:FACTOR, worker W is FACTOR times slower |
| `device`      | cpu      | gpu runs the map as a CUDA kernel         |
| `scale_iters` | 3        | iterations timed on p = 1..workers-1      |
| `save`        | none     | write the final centres as CSV            |

A float32 file holds n·d little-endian 4-byte floats and does not say its
dimension, so it needs `d`. A CSV file sets `d` from its header; every
later line is one point. A bad file is refused before the run starts, with
the file, the line and what is wrong there.
]]

page [[
# Faults, and the same answer anyway

Real clusters lose machines and have slow ones. The lab can do both to its
workers, in the **main run** only (the speedup passes stay clean):

- `crash=0.1`: every map task attempt kills its worker process with
  probability 0.1, half-way through the task. The master notices the
  closed socket, reaps the process (the log says it was killed by signal
  9), starts a new worker in its place and runs the task again. Whether an
  attempt crashes is drawn from (seed, iteration, task, attempt number), so
  the same seed replays the same crashes, whichever worker runs what.
- `straggler=2:5`: worker 2 takes five times as long for every task. When
  every task has been handed out and a worker sits idle, a task running
  more than three times as long as the typical one (and at least 5 ms
  longer) gets a **backup copy** on the idle worker (speculative
  execution, as in Google's MapReduce); the first copy to finish wins and
  the other result is dropped.

**Why the result does not change.** A task's partial sums depend only on
its points and the centres. The master keeps each task's result in its own
slot and adds the slots in task order, in double precision. So it does not
matter which worker ran a task, how many times, or in which order the
results arrived: the centres come out the **same bits**. The same holds for
the number of workers and for the combiner (the reducer adds a task's
records in the same order the combiner would have). The run checks this
itself: the speedup passes must reach exactly the centres of the main run.
Compare `centres_fnv` and `labels_fnv` (fingerprints of the final centres
and labels) between runs with different `workers`, `crash` or `combiner`.

**Empty clusters.** When no point is nearest to a centre, its cluster is
empty and has no mean. The lab keeps that centre where it was, says so in
the log and counts it in `empty_clusters`. (scikit-learn moves it to a
far-away point instead; either is a policy, not a law.)

**The GPU.** With `device=gpu` the map runs as one CUDA kernel per
iteration. Iteration 1 is also done by the CPU routine and compared: every
label must be the same and the sums equal up to rounding. Without a GPU the
lab says so in one line and runs on the CPU workers.
]]

page [[
# Reading the charts

**sse** falls with every iteration and flattens as the centres settle.
**shift** is the largest distance any centre moved; the run stops when it
drops to `tol`.

**phases** splits each iteration as the master's clock sees it:

- *map*: waiting for the map tasks: the workers computing, plus the
  commands and results in flight. This is the part that divides by p.
- *shuffle*: reading the results off the sockets.
- *reduce*: adding records into partial sums (no combiner), the
  task-order merge, the new centres. One process does it, for every p.

**shuffle** draws the bytes the master received per iteration. Try
`combiner=off`: the bytes jump from tasks·(48 + 8·k·(d+1)) to about
n·4·(d+2), and the shuffle and reduce bars grow with them.

**faults** counts re-executed tasks per iteration. **workers** shows how
many tasks each worker finished over the run, and how many attempts it
started: a straggler finishes fewer, a crashing slot starts more.

**speedup** and **time_p**: before the main run the lab times `scale_iters`
iterations on p = 1, 2, ..., workers − 1, then the main run gives p =
workers. Speedup is T(1)/T(p) with T the median time per iteration.

## The summary

| key                       | what it is                               |
|---------------------------|------------------------------------------|
| `iter_ms`                 | median time per iteration (main run)     |
| `map_ms` `shuffle_ms`     | means per iteration; with `reduce_ms`    |
| `reduce_ms`               | they add up to `iter_ms_mean`            |
| `shuffle_bytes`           | bytes received per iteration (mean)      |
| `shuffle_records`         | records per iteration: tasks·k or n      |
| `nkd_per_s`               | distance terms n·k·d per second          |
| `speedup` `efficiency`    | T(1)/T(workers), and that / workers in % |
| `iter_ms_pN` `speedup_pN` | the same for each p = N                  |
| `iterations` `converged`  | how the loop ended                       |
| `final_sse` `sse_first`   | SSE of the final centres, of iteration 1 |
| `reexec` `crashes`        | re-run tasks, crashed workers            |
| `speculative` `respawns`  | backup copies, workers restarted         |
| `empty_clusters`          | cluster-iterations with no points        |
| `centres_fnv`             | fingerprint of the final centres         |
| `labels_fnv`              | fingerprint of the final labels          |

Also: `n`, `d`, `k`, `workers`, `tasks`, `combiner` (1 or 0), `cores`,
`shift_final`, `shuffle_bytes_total`, `map_cpu_ms` (the workers' own time
in map tasks, summed), `timeouts`, `deterministic` (1 when the speedup
passes matched), `device`; with a GPU `gpu_kernel_ms`, `gpu_gbs`,
`gpu_roofline`, `gpu_check_labels` and `gpu_check_sum_rel`.

## Things to try

- `--set workers=1` and then the default: compare `centres_fnv`.
- `--set combiner=off`: how many times more bytes, and what happens to
  the shuffle and reduce times?
- `--set crash=0.2`: count the re-runs, then check the fingerprint.
- `--set n=50000`: with less work per task, the fixed costs of handing
  out tasks weigh more, and the speedup drops.
]]

------------------------------------------------------------------------------
question {
  id = "lab-kmeans.throughput",
  kind = "numeric",
  title = "Distance terms per second on your machine",
  prompt = [[
Your latest kmeans run clustered n = {n} points of d = {d} dimensions into
k = {k} clusters, and one iteration took {t} ms (the median). Each
iteration computes every point's squared distance to every centre, one
term per coordinate. How many such terms per second is that? (Scientific
notation is fine, e.g. 2.5e10.)
Give three significant figures.{note}]],
  lab = "kmeans",
  topics = { "kmeans", "complexity", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "One iteration computes n x k x d terms.",
    "Divide by the time of one iteration in SECONDS: {t} ms = {t} / 1000 s.",
  },
  params = function(rng, ctx)
    local p = {}
    local n, d, k = wb.lab.figure(ctx, "n"), wb.lab.figure(ctx, "d"), wb.lab.figure(ctx, "k")
    local t = wb.lab.figure(ctx, "iter_ms")
    if ctx.lab and not (n and d and k and t and t > 0) then
      p.note = RERUN
    elseif n and t then
      p.n = math.floor(n + 0.5)
      p.d = math.floor(d + 0.5)
      p.k = math.floor(k + 0.5)
      p.t = tonumber(wb.sig(t, 3))
      p.ref = p.n * p.k * p.d / (p.t / 1000)
    end
    return wb.lab.blanks(p, { "n", "d", "k", "t" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.02 },
      wrong = {
        { value = function(p) return p.n * p.k / (p.t / 1000) end,
          feedback = "That counts distances (n x k); each distance has d terms, one per coordinate." },
        { value = function(p) return p.n * p.k * p.d / p.t end,
          feedback = "That is per millisecond: the time must be in seconds." },
        { value = function(p) return p.n * p.d / (p.t / 1000) end,
          feedback = "That counts the coordinates of the data (n x d); every point is compared with all k centres." },
      },
      explain = function(p)
        return string.format("%d x %d x %d = %.4g terms in %s s: %.3g terms per second. The lab's "
          .. "'distance terms n·k·d per second' result is the same quantity.", p.n, p.k, p.d,
          p.n * p.k * p.d, wb.sig(p.t / 1000, 3), p.ref)
      end,
    })
  end,
  examples = {
    { lab = { summary = { n = 1000000, d = 16, k = 16, iter_ms = 12.5 } }, answer = "2.048e10", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, iter_ms = 12.5 } }, answer = "1e6*16*16/0.0125", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, iter_ms = 12.5 } }, answer = "1.28e9", score = 0 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, iter_ms = 12.5 } }, answer = "2.048e7", score = 0 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, iter_ms = 12.5 } }, answer = "fast", score = "invalid" },
    { lab = { summary = { n = 50000, d = 8, k = 4, iter_ms = 0.5 } }, answer = "3.2e9", score = 1 },
    { lab = { summary = { workers = 2 } }, answer = "1e10", score = "invalid" },
    { "1e10", "invalid" },
  },
}

question {
  id = "lab-kmeans.phase-model",
  kind = "numeric",
  title = "Predict the iteration on twice the workers",
  prompt = [[
Your latest kmeans run on p = {p} {wk} measured, per iteration, map
{map} ms, shuffle {sh} ms and reduce {red} ms. Model the iteration as a
compute term that divides by the number of workers (the map) plus terms
that do not (the shuffle and the reduce, done by the one master). What
time per iteration does this model predict on {p2} workers, in ms?
Give three significant figures.{note}]],
  lab = "kmeans",
  unit = "ms",
  topics = { "kmeans", "speedup", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Twice the workers: the map term halves.",
    "The shuffle and reduce terms stay as they are: {map}/2 + {sh} + {red}.",
  },
  params = function(rng, ctx)
    local p = {}
    local w, map = wb.lab.figure(ctx, "workers"), wb.lab.figure(ctx, "map_ms")
    local sh, red = wb.lab.figure(ctx, "shuffle_ms"), wb.lab.figure(ctx, "reduce_ms")
    if ctx.lab and w == 0 then
      p.note = "\n\n(Your latest kmeans run ran the map on the GPU, not on worker processes."
        .. "\nRun `warpbench lab run kmeans` with device=cpu, the default.)"
    elseif ctx.lab and not (w and w >= 1 and map and sh and red) then
      p.note = RERUN
    elseif w and map then
      p.p = math.floor(w + 0.5)
      p.p2 = 2 * p.p
      p.wk = p.p == 1 and "worker" or "workers"
      p.map = tonumber(wb.sig(map, 3))
      p.sh = tonumber(wb.sig(sh, 3))
      p.red = tonumber(wb.sig(red, 3))
      p.ref = p.map / 2 + p.sh + p.red
      local re = wb.lab.figure(ctx, "reexec")
      if re and re > 0 then
        p.note = string.format("\n\n(Your run re-executed %d map tasks after crashes or late tasks;"
          .. "\nthat cost is part of its map time.)", math.floor(re + 0.5))
      end
    end
    p.wk = p.wk or "workers"
    return wb.lab.blanks(p, { "p", "p2", "map", "sh", "red" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "ms",
      tol = { rel = 0.02, abs = 0.005 },
      wrong = {
        { value = function(p) return (p.map + p.sh + p.red) / 2 end,
          feedback = "You halved everything; the shuffle and reduce run on the one master whatever p is." },
        { value = function(p) return p.map / 2 end,
          feedback = "That is the map alone; the shuffle and reduce are still paid every iteration." },
        { value = function(p) return p.map + p.sh + p.red end,
          feedback = "That is the time you measured on p workers; the map term shrinks with more workers." },
      },
      explain = function(p)
        local t = p.map + p.sh + p.red
        return string.format("%s/2 + %s + %s = %s ms, against %s ms measured on %d: a predicted "
          .. "speedup of %s from doubling, not 2, because %s ms of every iteration does not divide. "
          .. "(The model also ignores that a machine with more workers than cores cannot run them "
          .. "all at once.)", wb.sig(p.map, 3), wb.sig(p.sh, 3), wb.sig(p.red, 3), wb.sig(p.ref, 3),
          wb.sig(t, 3), p.p, wb.sig(t / p.ref, 3), wb.sig(p.sh + p.red, 3))
      end,
    })
  end,
  examples = {
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "3.5", score = 1 },
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "6.2/2+0.35+0.05", score = 1 },
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "3300 us", score = 0 },
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "3.3", score = 0 },
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "3.1", score = 0 },
    { lab = { summary = { workers = 2, map_ms = 6.2, shuffle_ms = 0.35, reduce_ms = 0.05 } }, answer = "3.5 GB", score = "invalid" },
    -- without the combiner the shuffle and reduce dominate
    { lab = { summary = { workers = 1, map_ms = 20, shuffle_ms = 30, reduce_ms = 25 } }, answer = "65", score = 1 },
    { lab = { summary = { n = 1000 } }, answer = "3", score = "invalid" },
    { lab = { summary = { workers = 0, map_ms = 2, shuffle_ms = 0.1, reduce_ms = 0.05 } }, answer = "1.15", score = "invalid" },
  },
}

question {
  id = "lab-kmeans.efficiency",
  kind = "numeric",
  title = "Your parallel efficiency",
  prompt = [[
Your latest kmeans run took {t1} ms per iteration on one worker and {tp} ms
on p = {p} workers (medians per iteration, same data). What is the
parallel efficiency on {p} workers, in per cent?
Give three significant figures.{note}]],
  lab = "kmeans",
  unit = "%",
  topics = { "kmeans", "speedup", "efficiency", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Speedup S = T(1) / T(p).",
    "Efficiency = S / p, as a percentage.",
  },
  params = function(rng, ctx)
    local p = {}
    local w = wb.lab.figure(ctx, "workers")
    local t1 = wb.lab.figure(ctx, "iter_ms_p1")
    local tp = w and w >= 2 and wb.lab.figure(ctx, "iter_ms_p" .. math.floor(w + 0.5)) or nil
    if ctx.lab and not (t1 and tp and tp > 0) then
      p.note = "\n\n(Your latest kmeans run has no speedup to read: it ran with workers = 1, "
        .. "scale_iters = 0 or on the GPU. Run `warpbench lab run kmeans --set workers=2` first.)"
    elseif t1 and tp then
      p.p = math.floor(w + 0.5)
      p.t1 = tonumber(wb.sig(t1, 3))
      p.tp = tonumber(wb.sig(tp, 3))
      p.ref = 100 * p.t1 / (p.p * p.tp)
      p.cores = wb.lab.figure(ctx, "cores")
      p.reexec = wb.lab.figure(ctx, "reexec")
      if p.reexec and p.reexec > 0 then
        p.note = string.format("\n\n(Your run re-executed %d map tasks after crashes or late tasks. That"
          .. "\nslowed its main run, which gives the time on %d workers, but not the"
          .. "\nfault-free timing on one.)", math.floor(p.reexec + 0.5), p.p)
      end
    end
    return wb.lab.blanks(p, { "p", "t1", "tp" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "%",
      tol = { rel = 0.01, abs = 0.5 },
      wrong = {
        { value = function(p) return 100 * p.t1 / p.tp end,
          feedback = "That is the speedup written as a percentage; efficiency divides it by p." },
        { value = function(p) return 100 * p.tp / p.t1 end,
          feedback = "That is T(p)/T(1), upside down: speedup is T(1)/T(p)." },
      },
      explain = function(p)
        local s = p.t1 / p.tp
        local e = p.ref
        local tail = e >= 90 and " Nearly every worker you added paid off: the map dominates."
          or e >= 70 and " Some of each iteration does not divide: the master's shuffle and reduce, handing out tasks, and cores shared with other programs."
          or " Much of each iteration does not divide (the less work per task, the more the fixed cost of handing out tasks and collecting results weighs)."
        if wb.finite(p.reexec) and p.reexec > 0 then
          tail = string.format(" Your main run re-executed %d tasks (after crashes or late tasks), "
            .. "and its time per iteration includes restarting workers and re-running tasks, while "
            .. "the p = 1 timing had no faults. A run without crash or straggler measures the speedup itself.",
            math.floor(p.reexec + 0.5))
        elseif wb.finite(p.cores) and p.cores < p.p then
          tail = tail .. string.format(" Also, your machine has %d cores for %d workers, so they cannot all run at once.",
            math.floor(p.cores + 0.5), p.p)
        elseif wb.finite(p.cores) and p.cores == p.p and e < 90 then
          tail = tail .. " With as many workers as cores, the master and any other program take cores from the workers too."
        end
        return string.format("S = %s / %s = %s; S / %d = %s%%.", wb.sig(p.t1, 3), wb.sig(p.tp, 3),
          wb.sig(s, 3), p.p, wb.sig(e, 3)) .. tail
      end,
    })
  end,
  examples = {
    { lab = { summary = { workers = 2, iter_ms_p1 = 11.8, iter_ms_p2 = 6.4 } }, answer = "92.2", score = 1 },
    { lab = { summary = { workers = 2, iter_ms_p1 = 11.8, iter_ms_p2 = 6.4 } }, answer = "92.19 %", score = 1 },
    { lab = { summary = { workers = 2, iter_ms_p1 = 11.8, iter_ms_p2 = 6.4 } }, answer = "184", score = 0 },
    { lab = { summary = { workers = 2, iter_ms_p1 = 11.8, iter_ms_p2 = 6.4 } }, answer = "54.2", score = 0 },
    { lab = { summary = { workers = 2, iter_ms_p1 = 11.8, iter_ms_p2 = 6.4 } }, answer = "good", score = "invalid" },
    { lab = { summary = { workers = 4, iter_ms_p1 = 40, iter_ms_p4 = 12.5 } }, answer = "80%", score = 1 },
    { lab = { summary = { workers = 2, iter_ms_p1 = 0.789, iter_ms_p2 = 3.94, reexec = 65, cores = 2 } },
      answer = "10", score = 1 },
    { lab = { summary = { workers = 1, iter_ms_p1 = 11.8 } }, answer = "100", score = "invalid" },
  },
}

question {
  id = "lab-kmeans.combiner-bytes",
  kind = "numeric",
  title = "Bytes shuffled with the other combiner setting",
  prompt = [[
Your latest kmeans run had n = {n} points, d = {d}, k = {k} and tasks =
{tasks}, ran with the combiner {comb}, and its master received {b} bytes per
iteration. Every task's result starts with a 48-byte header. With the
combiner the rest is k sums of d 8-byte doubles plus k 8-byte counts;
without it, one record per point: a 4-byte cluster id, d 4-byte floats and
a 4-byte count. How many bytes per iteration would the run shuffle with the
combiner {other}?
Give three significant figures.{note}]],
  lab = "kmeans",
  unit = "B",
  topics = { "kmeans", "combiner", "communication", "lab" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "The combiner sends one partial sum per cluster per task instead of one record per point.",
    "With the combiner: tasks x (48 + 8 k d + 8 k).",
    "Without it: tasks x 48 + n x 4 (d + 2).",
  },
  params = function(rng, ctx)
    local p = {}
    local n, d, k = wb.lab.figure(ctx, "n"), wb.lab.figure(ctx, "d"), wb.lab.figure(ctx, "k")
    local t, c = wb.lab.figure(ctx, "tasks"), wb.lab.figure(ctx, "combiner")
    local b = wb.lab.figure(ctx, "shuffle_bytes")
    if ctx.lab and not (n and d and k and t and c and b) then
      p.note = RERUN
    elseif n and c then
      p.n = math.floor(n + 0.5)
      p.d = math.floor(d + 0.5)
      p.k = math.floor(k + 0.5)
      p.tasks = math.floor(t + 0.5)
      p.b = math.floor(b + 0.5)
      p.comb = c == 1 and "on" or "off"
      p.other = c == 1 and "off" or "on"
      local with = p.tasks * (48 + 8 * p.k * p.d + 8 * p.k)
      local without = p.tasks * 48 + p.n * 4 * (p.d + 2)
      p.ref = c == 1 and without or with
      p.mine = c == 1 and with or without
    end
    return wb.lab.blanks(p, { "n", "d", "k", "tasks", "b", "comb", "other" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "B",
      tol = { rel = 0.01 },
      wrong = {
        { value = function(p) return p.comb == "on" and p.n * 4 * p.d or p.tasks * 8 * p.k * p.d end,
          feedback = "That counts the coordinates (or sums) alone: add the counts, the cluster ids and the headers." },
        { value = function(p) return p.comb == "on" and p.n * (p.d + 2) or p.tasks * p.k * (p.d + 1) end,
          feedback = "That counts numbers, not bytes." },
        { value = function(p) return p.comb == "off" and p.tasks * (8 * p.k * p.d + 8 * p.k) or nil end,
          feedback = "Add the 48-byte header of every task's result: with the combiner the headers are a large share of a small message." },
        { value = function(p) return p.comb == "off" and 48 + 8 * p.k * p.d + 8 * p.k or nil end,
          feedback = "That is one task's result; every one of the tasks sends one." },
        { value = function(p) return p.comb == "off" and p.tasks * (48 + 4 * p.k * p.d + 4 * p.k) or nil end,
          feedback = "The combiner's sums and counts are 8 bytes each (doubles and 64-bit counts), not 4." },
      },
      explain = function(p)
        local s
        if p.comb == "on" then
          s = string.format("%d x 48 + %d x 4 x (%d + 2) = %s bytes without the combiner", p.tasks, p.n,
            p.d, wb.sig(p.ref, 6))
        else
          s = string.format("%d x (48 + 8 x %d x %d + 8 x %d) = %s bytes with the combiner", p.tasks,
            p.k, p.d, p.k, wb.sig(p.ref, 6))
        end
        local big, small = math.max(p.ref, p.mine), math.min(p.ref, p.mine)
        s = s .. string.format(", against %s in your run's setting (measured: %s, more when backup "
          .. "copies sent a result twice). The combiner cuts the shuffle by a factor of %s.",
          wb.sig(p.mine, 6), wb.sig(p.b, 6), wb.sig(big / small, 3))
        return s
      end,
    })
  end,
  examples = {
    -- combiner on: 16 x (48 + 8*16*16 + 8*16) = 35584; off: 16*48 + 1e6*72 = 72000768
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 1, shuffle_bytes = 35584 } },
      answer = "72000768", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 1, shuffle_bytes = 35584 } },
      answer = "72 MB", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 1, shuffle_bytes = 35584 } },
      answer = "64e6", score = 0 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 1, shuffle_bytes = 35584 } },
      answer = "18e6", score = 0 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 1, shuffle_bytes = 35584 } },
      answer = "72 ms", score = "invalid" },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 0, shuffle_bytes = 72000768 } },
      answer = "35584", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 0, shuffle_bytes = 72000768 } },
      answer = "35.584 KB", score = 1 },
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 0, shuffle_bytes = 72000768 } },
      answer = "34816", score = 0 },   -- no headers
    { lab = { summary = { n = 1000000, d = 16, k = 16, tasks = 16, combiner = 0, shuffle_bytes = 72000768 } },
      answer = "2224", score = 0 },    -- one task
    { lab = { summary = { iter_ms = 3 } }, answer = "1000", score = "invalid" },
  },
}

question {
  id = "lab-kmeans.same-bits",
  kind = "choice",
  title = "Why crashes do not change the centres",
  prompt = [[
Your latest kmeans run re-executed {re} map tasks (it saw {cr} worker
crashes and started {sp} backup copies) and ended with the fingerprint
centres_fnv = {fnv}.
Run it again on the same data with any number of workers, with or
without crash=0.2: the fingerprint does not change. What makes that so?]],
  lab = "kmeans",
  topics = { "kmeans", "mapreduce", "fault-tolerance", "lab" },
  rubric = { "theory.parallel", "practice.design" },
  hints = { "Where does a task's result go, and in what order are the results added up?" },
  params = function(rng, ctx)
    local function int(key)
      local v = wb.lab.figure(ctx, key)
      return v and math.floor(v + 0.5) or nil
    end
    return wb.lab.blanks({ re = int("reexec"), cr = int("crashes"), sp = int("speculative"),
      fnv = wb.lab.text(ctx, "centres_fnv") }, { "re", "cr", "sp", "fnv" })
  end,
  choices = {
    "A task's partial sums depend only on its points and the centres; each task's result has its own slot, and the reduce adds the slots in task order, so who ran a task, how often and when changes nothing.",
    "The master averages the results of the two copies of every re-run task, which cancels the error.",
    "Crashed workers are restarted from a checkpoint of their memory, so they continue where they stopped.",
    "Floating-point addition is associative, so any order of adding the partial sums gives the same bits.",
  },
  answer = 1,
  why = {
    [2] = "The master keeps exactly one result per task (the first to arrive) and drops any later copy.",
    [3] = "A crashed attempt's work is simply lost; the task runs again from the start on another worker.",
    [4] = "It is not: (a + b) + c and a + (b + c) can differ in the last bit. That is exactly why the lab fixes the order.",
  },
  examples = {
    { lab = { summary = { reexec = 9, crashes = 8, speculative = 1, centres_fnv = "685ce50ec96fd851" } }, answer = "a", score = 1 },
    { lab = { summary = { reexec = 9, crashes = 8, speculative = 1, centres_fnv = "685ce50ec96fd851" } }, answer = "d", score = 0 },
    { lab = { summary = { reexec = 0 } }, answer = "b", score = 0 },
    { lab = { summary = { reexec = 0 } }, answer = "z", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}
