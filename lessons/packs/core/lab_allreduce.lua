-- Lab: all-reduce, ring against tree.
--
-- Sends the student to the `allreduce` lab (labs/lab_allreduce.c, the ring
-- of labs/lab_ps_ring.c and the binomial tree of labs/lab_ps_tree.c): a
-- message-size sweep on a log axis, the ring and the tree timed side by
-- side, the course's alpha-beta model drawn beside them, and over Open MPI
-- MPI_Allreduce and an MPI ping-pong as the anchors. The formulas are the
-- course's (day5-summary-and-assessment.md: ring 2(p-1)/p M/B, tree
-- 2 log2(p) M/B; gpu-ml-training-inference-guide.md adds the latency terms,
-- 2(p-1) alpha for the ring and 2 log2(p) alpha for the tree); nccl-tests'
-- bus bandwidth is cited as such. The text is ours.
--
-- The figure keys read here are those of ar_summary() in
-- labs/lab_allreduce.c: workers, tree_levels, alpha_us, bandwidth_gbs,
-- model_crossover_bytes, tree_wins_up_to_bytes, min_bytes, max_bytes,
-- ring_ms_min, tree_ms_min, ring_ms_max, tree_ms_max, and (over MPI)
-- ring_vs_mpi_64m and p2p_vs_mpi_4m.

lesson {
  id = "lab-allreduce",
  title = "Lab: all-reduce, ring against tree",
  topics = { "all-reduce", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
}

local function sig(x, n) return tonumber(wb.sig(x, n or 3)) end

------------------------------------------------------------------------------
page [[
# Lab: all-reduce, ring against tree

Data-parallel training ends every step with an all-reduce: each of p workers
holds M bytes of gradients and every worker must end with their sum. The
course gives two ways to do it and a model for each. This lab times both on
your machine over a sweep of message sizes, 4 KiB to 256 MiB by default, and
draws the model beside the measurement.

## The two algorithms

The **ring** cuts the buffer into p chunks. In p − 1 steps every worker
passes one chunk to its right neighbour and adds the chunk it gets from the
left (reduce-scatter); in p − 1 more steps the finished chunks travel round
once (all-gather). Every step moves M/p bytes per worker.

The **tree** (binomial) pairs workers 2^l apart at level l. Going up, half
the workers send their whole buffer to a partner, which adds it; after
log2(p) levels worker 1 holds the sum. Going down, the sum is copied back
along the same links. Every step moves all M bytes.

## The model

With a latency α per message and a bandwidth B per link:

```
ring  = 2(p-1)·α + 2(p-1)/p · M/B
tree  = 2·log2(p)·(α + M/B)
```

The course writes the ring without its α term, 2(p−1)/p·M/B: for large
messages the latency does not matter and the ring moves the least data per
link, whatever p is. For small messages it is the other way round: the ring
pays 2(p−1) latencies, the tree only 2·log2(p). Below a crossover size the
tree wins. Setting the two equal gives it, with L = log2(p):

```
M* = (p - 1 - L)·α·B / (L - (p-1)/p)
```

For p = 4 (L = 2) that is M* = 0.8·α·B; with p = 2 or 3 the latency terms
are equal and the tree never wins.
]]

page [[
# Running the sweep

```
warpbench lab run allreduce
warpbench lab run allreduce --set link=1Gbps --set latency_ms=0.1
```

`workers` processes (4 by default) each hold the buffer. For every size the
master asks them to run, in turn: the ring, the tree, and a ping-pong
between workers 1 and 2 (half a round trip is one point-to-point message).
The first operation of each kind sums known integers and every worker
checks the exact result; then the operation is repeated for `time_ms`
milliseconds and the slowest worker's mean counts.

From the ping-pong the lab fits the model's two numbers: B from the slope
between the two largest sizes, α from the smallest. With `link=` the
connections go through the same emulated link as the parameter-server
lab's, so the fit recovers the link you set (plus the processes' own
overhead); with `link=off` it measures this machine's sockets.

The x axis of every chart is the message size, which grows by a factor
(`factor`, 4): the lab declares the axis logarithmic, so 4 KiB and 256 MiB
both get room.

## Over Open MPI

```
mpirun -np 5 warpbench lab run allreduce --set transport=mpi
warpbench lab run allreduce --set hosts=node1:3,node2:2
```

Rank 0 is the master; ranks 1..p the workers. Beside our ring and tree the
lab then runs Open MPI's own MPI_Allreduce and an MPI_Send/MPI_Recv
ping-pong on the same ranks and sizes, and reports the ratios:
`ring_vs_mpi_64m` (our ring's bus bandwidth over MPI's at 64 MiB) and
`p2p_vs_mpi_4m` (our point-to-point over MPI's at 4 MiB, the size of a
parameter-server pull of a million floats).

## Bus bandwidth

The lab reports, as nccl-tests does, the bus bandwidth:

```
algbw = M / t          busbw = algbw · 2(p-1)/p
```

busbw is the rate each link carried in a ring, so it can be compared with
the link's own speed, whatever p is.
]]

page [[
# What the sweep shows

On one machine with four workers and an emulated 1 Gbit/s link with
0.05 ms of latency, one run measured (the model in brackets):

| size   | ring (ms)     | tree (ms)     |
|--------|---------------|---------------|
| 4 KiB  | 0.78 (0.76)   | 0.61 (0.61)   |
| 16 KiB | 0.95 (0.91)   | 1.02 (1.00)   |
| 1 MiB  | 13.9 (13.3)   | 35.1 (34.1)   |
| 16 MiB | 217 (202)     | 546 (538)     |

The fitted α was 119 µs (the 50 µs of the link plus the processes' own
turn-around) and B 0.125 GB/s, so the model put the crossover at about
12 KB: the tree won at 4 KiB and lost from 16 KiB on. At 16 MiB the ring
took 0.40 of the tree's time, close to 2(p−1)/p ÷ 2·log2(p) = 1.5/4.

Two things the model leaves out show up too. With more workers than cores,
the processes take turns and every step waits for one that is not
running: small sizes get slower than α predicts. And for very large
buffers the copies run at memory speed, not link speed.
]]

------------------------------------------------------------------------------
question {
  id = "lab-allreduce.small-ratio",
  kind = "numeric",
  title = "Tree against ring at your smallest message",
  prompt = [[
In your latest allreduce run ({w} workers), the smallest message
({bytes} bytes) took {ring} ms with the ring and {tree} ms with the tree.
How many times the ring's time did the tree take? (Below 1: the tree was
faster.)
Give three significant figures.{note}]],
  lab = "allreduce",
  topics = { "all-reduce", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = { "tree time / ring time." },
  params = function(rng, ctx)
    local p = {}
    local r, t = wb.lab.figure(ctx, "ring_ms_min"), wb.lab.figure(ctx, "tree_ms_min")
    local w, b = wb.lab.figure(ctx, "workers"), wb.lab.figure(ctx, "min_bytes")
    if ctx.lab and not (r and t and r > 0 and t > 0) then
      p.note = "\n\n(Your latest run does not report ring_ms_min and tree_ms_min. "
        .. "Run `warpbench lab run allreduce` again.)"
    elseif r and t then
      p.ring, p.tree = sig(r, 3), sig(t, 3)
      p.w = w and math.floor(w + 0.5) or nil
      p.bytes = b and math.floor(b + 0.5) or nil
      p.ref = p.tree / p.ring
    end
    return wb.lab.blanks(p, { "w", "bytes", "ring", "tree" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.02 },
      wrong = {
        { value = function(p) return p.ring / p.tree end,
          feedback = "That is ring / tree; the question asks for the tree's time over the ring's." },
      },
      explain = function(p)
        return string.format("%s / %s = %s. The model: 2 log2(p) latencies for the "
          .. "tree against 2(p-1) for the ring; at %d workers that is %d against %d.",
          wb.sig(p.tree, 3), wb.sig(p.ring, 3), wb.sig(p.ref, 3), p.w or 4,
          2 * math.ceil(math.log(p.w or 4, 2) - 1e-9), 2 * ((p.w or 4) - 1))
      end,
    })
  end,
  examples = {
    { lab = { params = { workers = 4 }, summary = { workers = 4, min_bytes = 4096,
        ring_ms_min = 0.7814, tree_ms_min = 0.6104 } }, answer = "0.781", score = 1 },
    { lab = { params = { workers = 4 }, summary = { workers = 4, min_bytes = 4096,
        ring_ms_min = 0.7814, tree_ms_min = 0.6104 } }, answer = "0.61/0.781", score = 1 },
    { lab = { params = { workers = 4 }, summary = { workers = 4, min_bytes = 4096,
        ring_ms_min = 0.7814, tree_ms_min = 0.6104 } }, answer = "1.28", score = 0 },
    { lab = { params = { workers = 4 }, summary = { max_bytes = 4096 } }, answer = "1",
      score = "invalid" },
    { "0.8", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-allreduce.crossover",
  kind = "numeric",
  title = "The crossover from your fitted alpha and B",
  prompt = [[
Your latest allreduce run had p = {w} workers and fitted a latency
α = {alpha} µs and a bandwidth B = {bw} GB/s. Using the model with the
ring's latency term (ring = 2(p−1)α + 2(p−1)/p·M/B, tree =
2·log2(p)·(α + M/B)), below what message size M, in bytes, is the tree
faster?
Give three significant figures.{note}]],
  lab = "allreduce",
  unit = "B",
  topics = { "all-reduce", "lab", "alpha-beta" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Set the two times equal and solve for M.",
    "M* = (p − 1 − L)·α·B / (L − (p−1)/p), with L = log2(p).",
    "Keep units: α in seconds, B in bytes per second.",
  },
  params = function(rng, ctx)
    local p = {}
    local w = wb.lab.figure(ctx, "workers")
    local a, b = wb.lab.figure(ctx, "alpha_us"), wb.lab.figure(ctx, "bandwidth_gbs")
    if ctx.lab and not (w and a and b and b > 0 and a >= 0) then
      p.note = "\n\n(Your latest run does not report workers, alpha_us and bandwidth_gbs. "
        .. "Run `warpbench lab run allreduce` again.)"
    elseif w and a and b then
      p.w = math.floor(w + 0.5)
      p.alpha, p.bw = sig(a, 3), sig(b, 3)
      local L = math.ceil(math.log(p.w, 2) - 1e-9)
      local num, den = p.w - 1 - L, L - (p.w - 1) / p.w
      if num <= 0 or den <= 0 then
        p.note = string.format("\n\n(With p = %d the two latency terms are equal: the tree "
          .. "never wins, so this question needs a run with p >= 4 workers.)", p.w)
      else
        p.ref = num * p.alpha * 1e-6 * p.bw * 1e9 / den
        p.L = L
      end
    end
    return wb.lab.blanks(p, { "w", "alpha", "bw" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.03 },
      wrong = {
        { value = function(p) return p.ref * 1e-3 end,
          feedback = "Off by 1000: α is in microseconds, B in GB/s; the answer is in bytes." },
        { value = function(p) return p.ref * 1e3 end,
          feedback = "Off by 1000: α is in microseconds, B in GB/s; the answer is in bytes." },
        { value = function(p) return p.alpha * 1e-6 * p.bw * 1e9 end,
          feedback = "α·B alone is the size whose transfer takes one latency; the crossover scales it by (p-1-L)/(L-(p-1)/p)." },
      },
      explain = function(p)
        return string.format("L = %d; M* = (%d - 1 - %d) x %s us x %s GB/s / (%d - %d/%d) = %s "
          .. "bytes. The lab reports the same as model_crossover_bytes, and the largest size "
          .. "at which your tree won as tree_wins_up_to_bytes.", p.L, p.w, p.L,
          wb.sig(p.alpha, 3), wb.sig(p.bw, 3), p.L, p.w - 1, p.w, wb.sig(p.ref, 3))
      end,
    })
  end,
  examples = {
    { lab = { params = { workers = 4 }, summary = { workers = 4, alpha_us = 118.7,
        bandwidth_gbs = 0.1248 } }, answer = "11850", score = 1 },
    { lab = { params = { workers = 4 }, summary = { workers = 4, alpha_us = 118.7,
        bandwidth_gbs = 0.1248 } }, answer = "0.8*118.7e-6*0.125e9", score = 1 },
    { lab = { params = { workers = 4 }, summary = { workers = 4, alpha_us = 118.7,
        bandwidth_gbs = 0.1248 } }, answer = "11.85", score = 0 },
    { lab = { params = { workers = 8 }, summary = { workers = 8, alpha_us = 10,
        bandwidth_gbs = 1 } }, answer = "4*10e-6*1e9/(3-7/8)", score = 1 },
    { lab = { params = { workers = 2 }, summary = { workers = 2, alpha_us = 10,
        bandwidth_gbs = 1 } }, answer = "0", score = "invalid" },
    { "12000", "invalid" },
  },
}

question {
  id = "lab-allreduce.busbw",
  kind = "numeric",
  title = "Bus bandwidth at your largest message",
  prompt = [[
In your latest allreduce run with p = {w} workers, the ring took {ms} ms
for the largest message, {mb} MB (10^6 bytes). What bus bandwidth is that,
in GB/s, as nccl-tests defines it?
Give three significant figures.{note}]],
  lab = "allreduce",
  unit = "GB/s",
  topics = { "all-reduce", "lab", "bus-bandwidth" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = { "algbw = M / t; busbw = algbw × 2(p − 1)/p." },
  params = function(rng, ctx)
    local p = {}
    local w, t = wb.lab.figure(ctx, "workers"), wb.lab.figure(ctx, "ring_ms_max")
    local b = wb.lab.figure(ctx, "max_bytes")
    if ctx.lab and not (w and t and b and t > 0 and b > 0) then
      p.note = "\n\n(Your latest run does not report ring_ms_max and max_bytes. "
        .. "Run `warpbench lab run allreduce` again.)"
    elseif w and t and b then
      p.w = math.floor(w + 0.5)
      p.ms, p.mb = sig(t, 4), sig(b / 1e6, 4)
      p.ref = p.mb * 1e6 / (p.ms * 1e-3) / 1e9 * 2 * (p.w - 1) / p.w
    end
    return wb.lab.blanks(p, { "w", "ms", "mb" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.02 },
      wrong = {
        { value = function(p) return p.mb * 1e6 / (p.ms * 1e-3) / 1e9 end,
          feedback = "That is the algorithm bandwidth; the bus bandwidth multiplies it by 2(p-1)/p." },
      },
      explain = function(p)
        return string.format("algbw = %s MB / %s ms = %s GB/s; busbw = algbw x 2(%d-1)/%d "
          .. "= %s GB/s.", wb.sig(p.mb, 4), wb.sig(p.ms, 4),
          wb.sig(p.mb / p.ms, 4), p.w, p.w, wb.sig(p.ref, 3))
      end,
    })
  end,
  examples = {
    { lab = { params = { workers = 4 }, summary = { workers = 4, ring_ms_max = 216.5,
        max_bytes = 16777216 } }, answer = "0.1162", score = 1 },
    { lab = { params = { workers = 4 }, summary = { workers = 4, ring_ms_max = 216.5,
        max_bytes = 16777216 } }, answer = "0.0775", score = 0 },
    { lab = { params = { workers = 4 }, summary = { workers = 4 } }, answer = "1",
      score = "invalid" },
    { "1", "invalid" },
  },
}

question {
  id = "lab-allreduce.guide-example",
  kind = "numeric",
  title = "Ring and tree on the guide's InfiniBand",
  prompt = [[
The course guide compares the two algorithms for a 100 MB gradient on 16
devices, with B = 25 GB/s and α = 1 µs. Keep its link, and take a {mb} MB
gradient on {n} devices. With the latency terms
(ring = 2(N−1)α + 2(N−1)/N·M/B, tree = 2·log2(N)·(α + M/B)), how many
times the ring's time does the tree take?
Give three significant figures.]],
  topics = { "all-reduce", "alpha-beta" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Work in seconds and bytes: M = mb × 10^6, B = 25 × 10^9.",
    "For large M the α terms hardly matter: the ratio tends to log2(N) / ((N−1)/N).",
  },
  params = function(rng)
    return { mb = rng:pick({ 100, 400, 1000 }), n = rng:pick({ 4, 8, 16 }) }
  end,
  answer = function(p)
    local M, B, a, N = p.mb * 1e6, 25e9, 1e-6, p.n
    local ring = 2 * (N - 1) * a + 2 * (N - 1) / N * M / B
    local tree = 2 * math.log(N, 2) * (a + M / B)
    return tree / ring
  end,
  tolerance = { rel = 0.02 },
  wrong = {
    { value = function(p)
        local M, B, a, N = p.mb * 1e6, 25e9, 1e-6, p.n
        return (2 * (N - 1) * a + 2 * (N - 1) / N * M / B) / (2 * math.log(N, 2) * (a + M / B))
      end,
      feedback = "That is ring / tree: the question asks how many times the ring's time the tree takes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { mb = 100, n = 16 }, answer = "4.25", score = 1 },
    { params = { mb = 100, n = 16 }, answer = "32.008/7.53", score = 1 },
    { params = { mb = 100, n = 16 }, answer = "0.235", score = 0 },
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { "fast", "invalid" },
  },
}

question {
  id = "lab-allreduce.which",
  kind = "choice",
  title = "Which all-reduce for a 4 KiB gradient?",
  prompt = [[
Sixteen workers all-reduce a 4 KiB tensor over a network with α = 20 µs and
B = 10 GB/s. Which algorithm is faster, and why?]],
  topics = { "all-reduce", "alpha-beta" },
  rubric = { "theory.parallel", "practice.design" },
  hints = { "Count the latencies each pays, and compare with how long 4 KiB takes on the wire." },
  choices = {
    "The tree: 8 latencies against the ring's 30, and the bytes take well under a microsecond either way.",
    "The ring: it is bandwidth-optimal, so it is faster at every size.",
    "The ring: each of its steps sends only 1/16 of the tensor.",
    "Both take the same time: the volume per link is the same.",
  },
  answer = 1,
  why = {
    [2] = "Bandwidth-optimal means least data per link; with 4 KiB the data takes 0.4 µs, and 2(p-1) = 30 latencies of 20 µs dominate.",
    [3] = "Smaller pieces do not help when each step costs a 20 µs latency: 30 of them take 0.6 ms, the tree's 8 take 0.16 ms.",
    [4] = "The volumes differ (the tree moves the whole tensor each step) and so do the numbers of latencies paid.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "c", 0 }, { "z", "invalid" } },
}
