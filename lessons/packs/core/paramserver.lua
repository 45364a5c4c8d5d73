-- Lesson 6: Parameter servers and distributed SGD.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md hour 4, ml-system-optimization-notes.txt parts 2
-- and 4 and question 5, day5-summary-and-assessment.md intermediate question
-- 3, gpu-ml-training-inference-guide.md "AllReduce Algorithm Analysis"); the
-- text is ours. Each worked example of the material is a fixed-number
-- question (the *-worked ids); the variant questions' examples rerun the
-- material's numbers where they fit.
--
-- Corrections and precisions taught here:
--   * The crash course's "time per sync = 40 MB / 125 MB/s = 320 ms" is one
--     transfer of the model in ONE direction. A synchronous round moves it
--     twice (pull the weights, push the gradients): 640 ms when the two are
--     not overlapped. Both are graded, each for what it is.
--   * Its 5-worker example (64 ms, 56%) silently assumes the server side is
--     not the bottleneck: each worker's own link is. With ONE server on a
--     1 Gbps link, the server moves 5x the data: 320 ms and 86%.
--   * Its sync/async table says async is "fast" and stragglers are "no
--     problem": async gives more updates per second, not necessarily a
--     sooner accuracy, and a straggler's gradients become very stale.
--   * The assessment question on ring vs tree all-reduce (175 B parameters)
--     does not give the precision; we state FP16 gradients (2 bytes) and
--     note the FP32 figures. The course's tree formula 2·log2(p)·M/B is the
--     unpipelined tree; NCCL's pipelined trees do better (page text).
--
-- Conventions: 1 Gbps = 10^9 bits/s = 125 MB/s; MB and GB are decimal.
-- Tolerance is the default 1% relative unless a comment says why not.
-- Prompts contain no braces except params placeholders.

lesson {
  id = "paramserver",
  title = "Parameter servers and distributed SGD",
  topics = { "parameter-server", "sgd" },
  rubric = { "theory.parallel" },
}

local function num(x) return string.format("%.6g", x) end

-- Seconds to move `bytes` at `gbps` gigabits per second.
local function secs(bytes, gbps) return bytes / (gbps * 125e6) end

local function log2(x) return math.log(x) / math.log(2) end

------------------------------------------------------------------------------
page [[
# The parameter server

Data-parallel training gives every worker a copy of the model and a different
shard of the data. Something has to combine the workers' gradients. The
**parameter server** (PS) architecture does it centrally:

```
                  ┌──────────────────────┐
                  │   parameter server   │   holds the weights w,
                  │   w <- w - eta * g   │   applies the updates
                  └──────────────────────┘
                     ^ push g    | pull w
          ┌──────────┴───────────┴──┬────────────────────┐
     ┌────┴─────┐             ┌─────┴────┐          ┌────┴─────┐
     │ worker 1 │             │ worker 2 │   ...    │ worker N │
     │ shard 1  │             │ shard 2  │          │ shard N  │
     └──────────┘             └──────────┘          └──────────┘
```

One iteration, from a worker's point of view:

1. **pull** the current weights w from the server;
2. run forward and backward on a local mini-batch: gradient g_i;
3. **push** g_i to the server;
4. the server combines the gradients and updates the weights.

The update is plain SGD, `w <- w - eta * g`, with eta the learning rate. In
*synchronous* training the server waits for all N gradients and uses their
average, so the step equals one SGD step on the union of the N mini-batches
(a global batch N times larger).

Large models do not fit one server, and one server's network link would not
keep up anyway, so the parameters are **sharded**: split by key ranges over S
server processes, each owning 1/S of w. A worker talks to all shards, each
about its slice.

The alternative without any server is **all-reduce**, where the workers
average the gradients among themselves (the last pages). Both are data
parallelism; the PS is the *centralised* design, all-reduce the
*decentralised* one.
]]

question {
  id = "paramserver.loop-order",
  kind = "ordering",
  title = "One parameter-server iteration",
  prompt = "Put the steps of one synchronous parameter-server iteration in order.",
  topics = { "parameter-server" },
  hints = { "A worker cannot compute a gradient before it has the current weights." },
  items = {
    "each worker pulls the current weights from the server",
    "each worker computes a gradient on its own mini-batch",
    "each worker pushes its gradient to the server",
    "the server waits for all gradients and averages them",
    "the server updates the weights: w <- w - eta * g",
  },
  examples = {
    { order = { 1, 2, 3, 4, 5 }, score = 1 },
    { order = { 2, 1, 3, 4, 5 }, score = 0.8 },
    { "a b", "invalid" },
    { "", "invalid" },
  },
}

question {
  id = "paramserver.sgd-step",
  kind = "numeric",
  title = "A synchronous update by hand (your numbers)",
  prompt = [[
A parameter server holds one weight w = {w}. Four workers push the gradients
{g1}, {g2}, {g3} and {g4} for it. Training is synchronous: the server averages
the gradients and takes one SGD step with learning rate eta = {eta}. What is
the new w? (Give at least 3 decimals, or an exact expression.)]],
  topics = { "sgd", "parameter-server" },
  hints = {
    "Average the four gradients first.",
    "w_new = w - eta × average gradient.",
  },
  params = function(rng)
    return { w = rng:int(5, 20) / 10, eta = rng:pick({ 0.01, 0.05, 0.1, 0.2 }),
             -- g1 + g2 + g3 + g4 >= 2, so summing instead of averaging always shows.
             g1 = rng:int(0, 10), g2 = rng:int(1, 10), g3 = rng:int(-3, 8), g4 = rng:int(4, 12) }
  end,
  answer = function(p) return p.w - p.eta * (p.g1 + p.g2 + p.g3 + p.g4) / 4 end,
  -- Absolute, not relative: with eta = 0.01 the step can be 0.3% of w, and
  -- a 1% tolerance would accept the old w unchanged. The exact answer has at
  -- most 4 decimals; +-0.001 accepts it rounded to 3.
  tolerance = { abs = 0.001 },
  wrong = {
    { value = function(p) return p.w end,
      feedback = "That is the old weight: the step w - eta × (average gradient) has not been taken." },
    { value = function(p) return p.w - p.eta * (p.g1 + p.g2 + p.g3 + p.g4) end,
      feedback = "You summed the gradients. Synchronous SGD averages them (or scales eta by 1/N)." },
    { value = function(p) return p.w + p.eta * (p.g1 + p.g2 + p.g3 + p.g4) / 4 end,
      feedback = "Gradient DEScent: subtract eta × g, the gradient points uphill." },
  },
  examples = {
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("%g - %g*(%d+%d+(%d)+%d)/4", p.w, p.eta, p.g1, p.g2, p.g3, p.g4) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference + 0.05) end, score = 0 },
    { "w", "invalid" },
    { params = { w = 1, eta = 0.1, g1 = 2, g2 = 4, g3 = 6, g4 = 8 }, answer = "0.5", score = 1 },
    { params = { w = 1, eta = 0.1, g1 = 2, g2 = 4, g3 = 6, g4 = 8 }, answer = "-1", score = 0 },
    -- A small step: 2 - 0.01 × 1.5 = 1.985; the unchanged 2 is not accepted.
    { params = { w = 2, eta = 0.01, g1 = 1, g2 = 1, g3 = 0, g4 = 4 }, answer = "1.985", score = 1 },
    { params = { w = 2, eta = 0.01, g1 = 1, g2 = 1, g3 = 0, g4 = 4 }, answer = "2", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# Data versus model parallelism

There are two basic ways to spread one training job over many machines.

| split     | each worker holds      | exchanged, and when              |
|-----------|------------------------|----------------------------------|
| the data  | the whole model, its   | gradients and weights, once per  |
|           | own slice of the data  | step                             |
| the model | a part of the model    | activations and their gradients, |
|           | (layers or matrices)   | at every cut, for every batch    |

**Data parallelism** is the parameter server's world: every worker runs the
*whole* model forward and backward on its own slice of the data, and only
the gradients travel. It scales throughput, and its traffic per step is the
model's size, whatever the batch. Its limit: the model (plus gradients and
optimizer state) must fit on every worker.

**Model parallelism** (the class notes call it *task* parallelism) cuts the
model itself: layers 1-12 on one machine and 13-24 on the next (pipeline),
or every weight matrix split in halves (tensor). It is what you do when the
model does not fit. The price: the machines depend on each other inside
every forward and backward pass, so the links are busy all the time and
stages can sit idle. The lesson *Distributed training and memory* goes deeper.

One thing that looks like model parallelism but is not: **sharding the
parameter server**. It splits where the parameters are *stored and
updated*, over S servers. Every worker still computes the gradient of the
whole model, so training stays data parallel. Large jobs combine both:
model parallelism inside a group of GPUs that together hold one copy of the
model, data parallelism across the groups.
]]

question {
  id = "paramserver.dp-mp",
  kind = "multi",
  title = "Which of these are data parallelism?",
  prompt = [[
Which of these set-ups are data parallelism? (Pick all that are.)]],
  topics = { "data-parallel", "model-parallel" },
  rubric = { "theory.parallel" },
  hints = { "Ask: does every worker run the WHOLE model on different examples?" },
  choices = {
    "8 workers each hold the full model, train on different mini-batches, and push gradients to one parameter server.",
    "The same, but the parameters are sharded over 4 servers by key range.",
    "Layers 1 to 12 run on GPU 1 and layers 13 to 24 on GPU 2; activations flow from one to the other.",
    "Every weight matrix is split into column halves on two GPUs, which exchange partial results in every layer.",
    "16 GPUs each hold a replica of the model and average their gradients with a ring all-reduce.",
  },
  answer = { 1, 2, 5 },
  why = {
    [2] = "Sharding the servers splits where parameters are stored, but each worker still computes the whole gradient on its own data: still data parallel.",
    [3] = "Different layers on different GPUs is model (pipeline) parallelism.",
    [4] = "Splitting each matrix is model (tensor) parallelism.",
    [5] = "Replicas averaging gradients: data parallelism without a server.",
  },
  examples = {
    { "a b e", 1 },
    { "a e", 2 / 3 },
    { "a b c e", 2 / 3 },
    { "c d", 0 },
    { "a z", "invalid" },
  },
}

question {
  id = "paramserver.dp-fit",
  kind = "choice",
  title = "The model does not fit",
  prompt = [[
A model's weights, gradients and optimizer state need 60 GB; each of your 32
GPUs has 24 GB. Which plan can train it?]],
  topics = { "data-parallel", "model-parallel" },
  rubric = { "theory.parallel", "practice.design" },
  hints = { "In plain data parallelism, what does EVERY worker have to hold?" },
  choices = {
    "Plain data parallelism over the 32 GPUs: each one then needs only 60/32 GB.",
    "Split the model over groups of GPUs (model parallelism, or sharding its state as ZeRO does), with data parallelism across the groups.",
    "A parameter server with 4 shards: the workers then hold only a quarter of the model.",
    "Asynchronous SGD: without a barrier less memory is needed.",
  },
  answer = 2,
  why = {
    [1] = "Data parallelism replicates the model: every GPU still needs all 60 GB.",
    [3] = "Sharding the server splits storage on the SERVERS; each worker still computes with the whole model.",
    [4] = "Sync or async changes when updates are applied, not what a worker holds.",
  },
  examples = { { "b", 1 }, { "a", 0 }, { "c", 0 }, { "x", "invalid" } },
}

------------------------------------------------------------------------------
page [[
# How long does a sync take?

Communication time is bytes divided by bandwidth (plus a latency per message,
small for big transfers). The unit trap: network links are quoted in **bits**
per second, memory and files in **bytes**.

```
1 Gbps = 10^9 bits/s = 10^9 / 8 bytes/s = 125 MB/s
model  = parameters × bytes per parameter      (FP32: 4, FP16/BF16: 2)
```

## Worked example: 10 million parameters on 1 Gbps

The model is 10 M × 4 B = **40 MB**. Sending it once over 1 Gbps takes
40 MB / 125 MB/s = **320 ms**.

A crash-course sheet calls this the "time per sync". It is the time of one
transfer in one direction. A synchronous PS iteration moves the model twice:
the worker **pulls** the weights (40 MB) and later **pushes** a gradient of
the same size (40 MB). Unless the two overlap, a worker's sync round is
2 × 320 = **640 ms**, and either figure can dwarf the compute of a step.

## Worked example: what fraction is communication?

5 workers, 1 M parameters (FP32), 1 Gbps, 50 ms of compute per iteration:

```
pull + push = 2 × (1 M × 4 B) / 125 MB/s = 8 MB / 125 MB/s = 64 ms
iteration   = 50 ms compute + 64 ms communication = 114 ms
fraction    = 64 / 114 = 0.56          -> more than half the time is talking
```

The number of workers does not appear in this calculation. It assumes each
worker's own link is the bottleneck and the server side keeps up (several
sharded servers, or a much faster server link). With **one** server behind a
single 1 Gbps link, the server must receive all 5 gradients and send 5 copies
of the weights, 20 MB each way:

```
push phase: 5 × 4 MB / 125 MB/s = 160 ms     pull phase: also 160 ms
communication = 320 ms,   fraction = 320 / (320 + 50) = 0.86
```

That is the **PS bottleneck**: the server's traffic grows with N while each
worker's stays the same. Sharding over S servers divides it by S; with
S ≥ N the workers' own links are the limit again.
]]

calculator {
  id = "paramserver.sync-time",
  title = "Parameter-server sync time",
  inputs = {
    { name = "params_m", label = "parameters", unit = "million", default = 1, min = 0.001, max = 1e7 },
    { name = "bytes", label = "bytes per value", default = 4, min = 1, max = 8, integer = true,
      help = "4 for FP32, 2 for FP16/BF16" },
    { name = "gbps", label = "link speed (every machine)", unit = "Gbps", default = 1, min = 0.001, max = 1e5 },
    { name = "workers", label = "workers N", default = 5, min = 1, max = 100000, integer = true },
    { name = "servers", label = "server shards S", default = 1, min = 1, max = 100000, integer = true },
    { name = "compute_ms", label = "compute per iteration", unit = "ms", default = 50, min = 0, max = 1e7 },
  },
  compute = function(v)
    local M = v.params_m * 1e6 * v.bytes
    local one = 1000 * M / (v.gbps * 125e6)              -- ms, one transfer on one link
    local round = 2 * one                                -- pull + push, worker links only
    local srv = 2 * math.max(v.workers / v.servers, 1) * one
    local ring = 2 * (v.workers - 1) / v.workers * one
    local function frac(c) return 100 * c / (c + v.compute_ms) end
    local longest = math.max(round, srv, ring, 1e-12)
    local function bar(t) return string.rep("#", math.max(1, math.floor(40 * t / longest + 0.5))) end
    return {
      { label = "model size", value = M, unit = "B" },
      { label = "one transfer on one link", value = one, unit = "ms" },
      { label = "pull + push, worker links only", value = round, unit = "ms" },
      { label = "pull + push through the server links", value = srv, unit = "ms" },
      { label = "communication share, worker links only", value = frac(round), unit = "%" },
      { label = "communication share, server links", value = frac(srv), unit = "%" },
      { label = "ring all-reduce at the same link speed", value = ring, unit = "ms" },
      { label = "time", text = "worker " .. bar(round) .. "\nserver " .. bar(srv) .. "\nring   " .. bar(ring) },
    }
  end,
  examples = {
    -- The crash course's 5 workers, 1 M FP32 parameters, 1 Gbps, 50 ms.
    { inputs = {}, outputs = { 4e6, 32, 64, 320, 100 * 64 / 114, 100 * 320 / 370, 51.2 } },
    -- Its 10 M-parameter model: 320 ms one way, 640 ms a round.
    { inputs = { params_m = 10 }, outputs = { 40e6, 320, 640, 3200 } },
  },
}

question {
  id = "paramserver.sync-10m-worked",
  kind = "numeric",
  title = "One transfer of a 10 M-parameter model",
  prompt = [[
A model has 10 million parameters stored as 32-bit floats. How long does it
take to send the whole model ONCE, in one direction, over a 1 Gbps link?
Ignore latency and protocol overhead.
Give three significant figures.]],
  unit = "ms",
  topics = { "communication", "bandwidth" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Transfer time is bytes over link speed: convert both to bytes.",
    "Bytes: 10 million × 4 bytes.",
    "1 Gbps is 10^9 bits per second; divide by 8 to get bytes per second.",
  },
  answer = 320,
  wrong = {
    { value = 640, feedback = "640 ms is pull + push, a full sync round. The question asks for one transfer in one direction." },
    { value = 40, feedback = "You divided 40 MB by 1 GB/s. 1 Gbps is gigaBITS: 125 MB/s." },
    { value = 2560, feedback = "You multiplied by 8 twice: turn the megabytes into megabits once, then divide by the link's 1000 Mbit/s." },
    { value = 312.5, feedback = "1 Gbps is 10^9 / 8 = 125 MB/s (decimal), not 128 MB/s." },
    { value = 160, feedback = "That is a 16-bit model (20 MB); the parameters here are 32-bit floats (4 bytes)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "320", 1 },
    { "0.32 s", 1 },
    { "40e6/125e6 s", 1 },
    { "640", 0 },
    { "40", 0 },
    { "300", 0 },           -- 6% off
    { "320 MB", "invalid" },
  },
}

question {
  id = "paramserver.sync-round-10m-worked",
  kind = "numeric",
  title = "A full sync round for the 10 M-parameter model",
  prompt = [[
The same 10-million-parameter FP32 model is trained with a parameter server
over a 1 Gbps link. In each iteration a worker pulls the weights and later
pushes a full gradient; the two transfers do not overlap. How much time per
iteration does the worker spend communicating?
Give three significant figures.]],
  unit = "ms",
  topics = { "communication", "bandwidth", "parameter-server" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "One transfer of the model takes 40 MB / 125 MB/s.",
    "A round is a pull AND a push.",
  },
  answer = 640,
  wrong = {
    { value = 320, feedback = "320 ms is ONE transfer (the crash course's \"time per sync\"). A round pulls the weights and pushes the gradients: twice that." },
    { value = 80, feedback = "You divided 80 MB by 1 GB/s; 1 Gbps is 125 MB/s." },
    { value = 5120, feedback = "Too many factors of 8: 1 Gbps is already 125 MB/s; divide the 80 MB by that." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "640", 1 },
    { "0.64 s", 1 },
    { "2*40/125 s", 1 },
    { "320", 0 },
    { "600", 0 },           -- 6% off
    { "640 Mb", "invalid" },
  },
}

question {
  id = "paramserver.comm-round",
  kind = "numeric",
  title = "Sync round time (your numbers)",
  prompt = [[
A worker trains a {pm}-million-parameter model whose weights and gradients
are {bits}-bit floats. Its link runs at {gbps} Gbps. Each iteration it pulls
the weights and pushes a gradient, one after the other. How long does it
spend communicating per iteration? (The server is not the bottleneck.)
Give three significant figures.]],
  unit = "ms",
  topics = { "communication", "bandwidth" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Model size in bytes: parameters × {bits}/8.",
    "Link speed in bytes: {gbps} × 125 MB/s. Count the pull and the push.",
  },
  params = function(rng)
    return { pm = rng:pick({ 1, 5, 10, 25, 50, 100, 340 }), bits = rng:pick({ 16, 32 }),
             gbps = rng:pick({ 1, 10, 25, 40, 100 }) }
  end,
  answer = function(p) return 1000 * secs(2 * p.pm * 1e6 * p.bits / 8, p.gbps) end,
  wrong = {
    { value = function(p) return 1000 * secs(p.pm * 1e6 * p.bits / 8, p.gbps) end,
      feedback = "That is one transfer. The round has two: pull the weights, push the gradient." },
    { value = function(p) return 1000 * 2 * p.pm * 1e6 * p.bits / 8 / (p.gbps * 1e9) end,
      feedback = "You divided bytes by gigaBITS per second. Divide the link speed by 8 first (1 Gbps = 125 MB/s)." },
    { value = function(p) return 1000 * secs(2 * p.pm * 1e6 * p.bits, p.gbps) end,
      feedback = "You used bits as bytes: a " .. "parameter of b bits is b/8 bytes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference / 1000) .. " s" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { answer = function(p, ctx) return num(ctx.reference / 2) end, score = 0 },
    { "64 GB", "invalid" },
    -- The crash course's numbers: 1 M FP32 on 1 Gbps -> 64 ms; 10 M -> 640 ms.
    { params = { pm = 1, bits = 32, gbps = 1 }, answer = "64", score = 1 },
    { params = { pm = 10, bits = 32, gbps = 1 }, answer = "640", score = 1 },
    { params = { pm = 10, bits = 32, gbps = 1 }, answer = "320", score = 0 },
  },
}

-- The crash course's 5-worker example computes its communication time
-- (64 ms) before the fraction: that number is a worked example of its own.
question {
  id = "paramserver.comm-1m-worked",
  kind = "numeric",
  title = "The crash course's communication time",
  prompt = [[
A worker of the course's example trains a 1-million-parameter FP32 model
over its own 1 Gbps link (the server keeps up). Each iteration it pulls the
weights and pushes the gradients, one after the other. How long does it
spend communicating per iteration?
Give three significant figures.]],
  unit = "ms",
  topics = { "communication", "parameter-server" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "1 M parameters × 4 bytes = 4 MB; 1 Gbps = 125 MB/s.",
    "Pull and push: two transfers of 4 MB.",
  },
  answer = 64,
  wrong = {
    { value = 32, feedback = "That is one transfer. The iteration pulls the weights AND pushes the gradients: 2 × 32 ms." },
    { value = 8, feedback = "You divided bytes by gigaBITS per second: 1 Gbps is 125 MB/s, not 1000 MB/s." },
    { value = 320, feedback = "320 ms is ONE server taking all 5 workers' gradients through its own 1 Gbps link. Here the server keeps up; count one worker's link." },
    { value = 512, feedback = "You used bits as bytes: an FP32 parameter is 4 bytes, 32 bits." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "64", 1 },
    { "0.064 s", 1 },
    { "2*4/125*1000", 1 },
    { "32", 0 },
    { "70", 0 },            -- 9% off
    { "64 MB", "invalid" },
  },
}

question {
  id = "paramserver.comm-fraction-worked",
  kind = "numeric",
  title = "The crash course's communication fraction",
  prompt = [[
5 workers train a 1-million-parameter FP32 model with a parameter server.
Each worker has its own 1 Gbps link and, as in the course's example, the
server side is fast enough not to matter. An iteration is 50 ms of compute,
then a pull of the weights and a push of the gradients (not overlapped).
What fraction of the iteration is communication? (A fraction like 0.3, or a
percentage like 30%.)
Give three significant figures.]],
  topics = { "communication", "parameter-server" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "A synchronous step pulls the weights and pushes the gradient: both cross the link.",
    "Pull + push: 2 × (1 M × 4 B) at 125 MB/s.",
    "Fraction = communication / (computation + communication).",
  },
  answer = 64 / 114,
  wrong = {
    { value = 50 / 114, feedback = "That is the computation's share; the question asks for communication." },
    { value = 32 / 82, feedback = "You counted one transfer (32 ms). Pull AND push: 64 ms." },
    { value = 64 / 50, feedback = "64/50 compares communication with computation; the fraction divides by the whole iteration (114 ms)." },
    { value = 100 * 64 / 114, feedback = "Write the fraction as 0.56, or as a percentage with the sign: 56%." },
    { value = 320 / 370,
      feedback = "86% is right for ONE server behind a 1 Gbps link, but this question (like the course's) assumes the server keeps up; each worker's 64 ms is all that counts." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "0.56", 1 },
    { "56%", 1 },
    { "64/114", 1 },
    { "0.44", 0 },
    { "0.39", 0 },
    { "0.6", 0 },           -- 7% off
    { "56", 0 },            -- a bare 56 is 56, not 56%
    { "56 ms", "invalid" },
  },
}

question {
  id = "paramserver.comm-fraction",
  kind = "numeric",
  title = "Communication share of an iteration (your numbers)",
  prompt = [[
A worker computes for {tc} ms per iteration, then pulls weights and pushes
gradients (not overlapped) for a {pm}-million-parameter FP32 model over a
{gbps} Gbps link. The server is not the bottleneck. What fraction of the
iteration is communication? (A fraction like 0.3, or a percentage like 30%.)
Give three significant figures.]],
  topics = { "communication", "parameter-server" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "A synchronous step pulls the weights and pushes the gradient: both cross the link.",
    "Communication: 2 × {pm} M × 4 B at {gbps} × 125 MB/s.",
    "Fraction = communication / (compute + communication).",
  },
  params = function(rng)
    return { tc = rng:pick({ 20, 50, 80, 100, 200 }), pm = rng:pick({ 1, 2, 5, 10, 25 }),
             gbps = rng:pick({ 1, 10, 25 }) }
  end,
  answer = function(p)
    local c = 1000 * secs(2 * p.pm * 4e6, p.gbps)
    return c / (c + p.tc)
  end,
  wrong = {
    { value = function(p)
        local c = 1000 * secs(2 * p.pm * 4e6, p.gbps)
        return p.tc / (c + p.tc)
      end,
      feedback = "That is the compute share; the question asks for communication." },
    { value = function(p)
        local c = 1000 * secs(p.pm * 4e6, p.gbps)
        return c / (c + p.tc)
      end,
      feedback = "You counted one transfer; the round is a pull and a push." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(100 * ctx.reference) .. "%" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.08) end, score = 0 },
    { "half", "invalid" },
    { params = { tc = 50, pm = 1, gbps = 1 }, answer = "0.561", score = 1 },
    { params = { tc = 50, pm = 1, gbps = 1 }, answer = "0.439", score = 0 },
  },
}

question {
  id = "paramserver.server-round",
  kind = "numeric",
  title = "When the server link is the bottleneck (your numbers)",
  prompt = [[
{n} workers train a {pm}-million-parameter FP32 model with {s} parameter
server(s); the parameters are split evenly over the servers. Every machine,
workers and servers, has one full-duplex {gbps} Gbps link. An iteration has a
push phase (all workers send their gradients) and then a pull phase (all
workers fetch the new weights). How long does the communication of one
iteration take?
Give three significant figures.]],
  unit = "ms",
  topics = { "communication", "parameter-server", "sharding" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "In the push phase each server receives n × (its share of the model). Each worker sends one model's worth.",
    "Each phase lasts as long as the busiest link: the larger of n/s and 1 model-transfers.",
  },
  params = function(rng)
    -- n / s >= 2: the servers, not the workers, are the bottleneck.
    return { n = rng:pick({ 4, 5, 8, 16, 32 }), s = rng:pick({ 1, 2 }),
             pm = rng:pick({ 1, 5, 10, 20 }), gbps = rng:pick({ 1, 10, 25 }) }
  end,
  answer = function(p)
    local one = 1000 * secs(p.pm * 4e6, p.gbps)
    return 2 * math.max(p.n / p.s, 1) * one
  end,
  wrong = {
    { value = function(p) return 2 * 1000 * secs(p.pm * 4e6, p.gbps) end,
      feedback = "That is a worker's own traffic. The servers carry n workers' gradients and weights over their links: each phase takes n/s model transfers." },
    { value = function(p) return math.max(p.n / p.s, 1) * 1000 * secs(p.pm * 4e6, p.gbps) end,
      feedback = "That is one phase. The iteration has a push phase and a pull phase." },
    { value = function(p) return p.s > 1 and 2 * p.n * 1000 * secs(p.pm * 4e6, p.gbps) end,   -- one server: no split
      feedback = "The model is split over the s servers, so each server carries only 1/s of the traffic." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "lots", "invalid" },
    -- The crash course's 5 workers and 1 M parameters, with ONE 1 Gbps server.
    { params = { n = 5, s = 1, pm = 1, gbps = 1 }, answer = "320", score = 1 },
    { params = { n = 5, s = 1, pm = 1, gbps = 1 }, answer = "64", score = 0 },
    { params = { n = 5, s = 1, pm = 1, gbps = 1 }, answer = "160", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# Bottlenecks and what to do about them

Where a parameter server loses time:

| bottleneck         | what happens                                     |
|--------------------|--------------------------------------------------|
| network congestion | one link carries N gradients in, N models out    |
| hotspot            | one shard holds the keys everyone updates        |
|                    | (a popular embedding row)                        |
| serial updates     | the PS applies updates one at a time; all wait   |
| stragglers (sync)  | every iteration waits for the slowest worker     |

And the standard remedies:

- **Shard the parameters** over S servers: each link carries 1/S of the
  traffic. Hash or range-partition keys so no shard is hot.
- **Send fewer bytes.** FP16 gradients halve the traffic; 8-bit quantisation
  quarters it. *Top-k sparsification* sends only the largest 1% of the
  gradient entries, each as a (4-byte index, 4-byte value) pair: 0.08 bytes
  per parameter instead of 4, 50× less. Keep the dropped remainder locally
  and add it to the next gradient (*error feedback*), or accuracy suffers.
- **Batch.** Bundle many small tensors into one message (the latency per
  message adds up), and use larger mini-batches so a sync covers more
  samples.
- **Local updates.** Take H local SGD steps between syncs: communication per
  step falls by H, at some cost in convergence per step.
- **Overlap communication with computation.** Push a layer's gradient as soon
  as backward has produced it, while earlier layers are still computing. With
  perfect overlap a step costs max(compute, communication) instead of their
  sum.
- Replace the server with **all-reduce** (last pages): no central link at
  all.

The `paramserver` lab (in versions that have it: `warpbench lab list`)
simulates a server and workers so you can watch these effects.
]]

question {
  id = "paramserver.fixes",
  kind = "multi",
  title = "What relieves the server's link?",
  prompt = [[
A parameter server's network link is saturated. Which of these changes reduce
the bytes that must cross THAT link per training sample? Pick all that apply.]],
  topics = { "parameter-server", "communication" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = { "Three of the five do." },
  choices = {
    "shard the parameters over 4 servers, each with its own link",
    "send gradients as FP16 instead of FP32",
    "take 4 local SGD steps between synchronisations",
    "add more workers",
    "raise the learning rate",
  },
  answer = { 1, 2, 3 },
  why = {
    [4] = "More workers send MORE gradients to the same link; that makes the bottleneck worse.",
    [5] = "The learning rate changes the size of the update, not the number of bytes sent.",
  },
  examples = {
    { "a b c", 1 },
    { "a b", 2 / 3 },
    { "a b c d", 2 / 3 },
    { "d e", 0 },
    { "a g", "invalid" },
  },
}

question {
  id = "paramserver.topk",
  kind = "numeric",
  title = "Top-k sparsification (your numbers)",
  prompt = [[
Instead of the full FP32 gradient, workers send only the largest {pct}% of
the entries, each as a 4-byte index plus a 4-byte FP32 value. By what factor
does this shrink the gradient message?
Give three significant figures.]],
  unit = "x",
  topics = { "compression", "communication" },
  rubric = { "practice.optimization", "theory.parallel" },
  hints = {
    "Dense: 4 bytes per parameter.",
    "Sparse: {pct}/100 of the parameters, 8 bytes each.",
  },
  params = function(rng) return { pct = rng:pick({ 0.1, 0.5, 1, 2, 5, 10 }) } end,
  answer = function(p) return 4 / (8 * p.pct / 100) end,
  wrong = {
    { value = function(p) return 100 / p.pct end,
      feedback = "You forgot the indices: every kept value needs a 4-byte index too, so each costs 8 bytes, not 4." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { answer = function(p) return num(100 / p.pct) end, score = 0 },
    { "50 ms", "invalid" },
    -- The page's example: top 1% -> 50x.
    { params = { pct = 1 }, answer = "50", score = 1 },
    { params = { pct = 1 }, answer = "100", score = 0 },
  },
}

question {
  id = "paramserver.overlap",
  kind = "numeric",
  title = "Overlapping communication (your numbers)",
  prompt = [[
A training step spends {tc} ms computing and {tm} ms communicating, one after
the other. Engineers overlap the two perfectly (gradients are sent while
backward is still running). By what factor does the step get faster?
Give three significant figures.]],
  unit = "x",
  topics = { "overlap", "communication" },
  rubric = { "practice.optimization", "theory.parallel" },
  hints = {
    "Before: compute + communication.",
    "After, with perfect overlap: the longer of the two.",
  },
  params = function(rng)
    local tc = rng:pick({ 40, 60, 80, 100, 150 })
    local tm
    repeat tm = rng:pick({ 20, 30, 50, 70, 120, 200 }) until tm ~= tc
    return { tc = tc, tm = tm }
  end,
  answer = function(p) return (p.tc + p.tm) / math.max(p.tc, p.tm) end,
  wrong = {
    { value = function(p) return (p.tc + p.tm) / math.min(p.tc, p.tm) end,
      feedback = "With overlap the step lasts as long as the LONGER part, not the shorter one." },
    { value = 2, feedback = "Overlap gives 2x only when both parts take the same time." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("(%d+%d)/%d", p.tc, p.tm, math.max(p.tc, p.tm)) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "2 ms", "invalid" },
    { params = { tc = 50, tm = 64 }, answer = "1.78", score = 1 },
    { params = { tc = 50, tm = 64 }, answer = "2.28", score = 0 },
  },
}

question {
  id = "paramserver.local-sgd",
  kind = "numeric",
  title = "Local updates (your numbers)",
  prompt = [[
A training step takes {tc} ms of compute, and a synchronisation with the
server takes {tm} ms (not overlapped). With local SGD, workers synchronise
only once every {h} steps. What is the average time per step?
Give three significant figures.]],
  unit = "ms",
  topics = { "local-sgd", "communication" },
  rubric = { "practice.optimization", "theory.parallel" },
  hints = {
    "Every step still computes.",
    "The sync cost is shared by {h} steps.",
  },
  params = function(rng)
    return { tc = rng:pick({ 20, 40, 50, 80 }), tm = rng:pick({ 64, 100, 160, 320, 640 }),
             h = rng:pick({ 2, 4, 8, 16 }) }
  end,
  answer = function(p) return p.tc + p.tm / p.h end,
  wrong = {
    { value = function(p) return (p.tc + p.tm) / p.h end,
      feedback = "The compute is not shared: every step computes. Only the sync is paid once per H steps." },
    { value = function(p) return p.tc + p.tm end,
      feedback = "That is the time without local SGD (a sync every step)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { answer = function(p) return num(p.tc + p.tm) end, score = 0 },
    { "fast", "invalid" },
    { params = { tc = 50, tm = 64, h = 4 }, answer = "66", score = 1 },
    { params = { tc = 50, tm = 64, h = 4 }, answer = "28.5", score = 0 },
  },
}

question {
  id = "paramserver.throughput",
  kind = "numeric",
  title = "Training throughput (your numbers)",
  prompt = [[
{n} workers each process a mini-batch of {b} samples per iteration. An
iteration takes {tc} ms of compute plus {tm} ms of communication (not
overlapped). How many samples per second does the whole job process?
Give three significant figures.]],
  topics = { "throughput", "data-parallel" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Global batch: {n} × {b} samples per iteration.",
    "An iteration lasts {tc} + {tm} ms.",
  },
  params = function(rng)
    return { n = rng:pick({ 4, 8, 16, 32 }), b = rng:pick({ 16, 32, 64, 128 }),
             tc = rng:pick({ 40, 60, 100, 150 }), tm = rng:pick({ 10, 25, 40, 64 }) }
  end,
  answer = function(p) return p.n * p.b / ((p.tc + p.tm) / 1000) end,
  wrong = {
    { value = function(p) return p.n * p.b / (p.tc / 1000) end,
      feedback = "You left out the communication time; the iteration lasts compute + communication." },
    { value = function(p) return p.b / ((p.tc + p.tm) / 1000) end,
      feedback = "That is one worker's throughput; the global batch is n × b." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 0.95) end, score = 0 },
    { "1000 ms", "invalid" },
    { params = { n = 5, b = 32, tc = 50, tm = 64 }, answer = "1403.5", score = 1 },
  },
}

------------------------------------------------------------------------------
page [[
# Sharding the parameters

One server holding all P parameters is both a bandwidth and a compute
hotspot. **Sharding** splits the parameter vector over S server
processes (shards); each owns one slice and receives only that slice of
every gradient.

**How keys are split.**

- *Range partitioning*: shard s holds keys [s·P/S, (s+1)·P/S) (the
  `paramserver` lab does this, giving the first P mod S shards one key
  more). A worker sends each shard one contiguous slice: simple and cheap.
- *Hash partitioning*: key k goes to shard hash(k) mod S. Slices are no
  longer contiguous, but keys that are used together no longer crowd onto
  one shard.

**Traffic.** Per synchronous iteration with N workers and a model of M
bytes, each shard takes in N gradient slices of M/S bytes and sends out N
weight slices of M/S. Each worker still sends M and receives M in total,
split over S connections. With one link speed B everywhere:

```
shard link:   2 × N × M / S  bytes per iteration
worker link:  2 × M          bytes per iteration
comm time  =  2 × M / B × max(1, N / S)
```

More shards help until S = N; beyond that, the workers' own links are the
limit (that is the course's 64 ms example). When the servers sit on faster
links than the workers, fewer shards do: the shard links keep up once
N·M/(S·B_server) ≤ M/B_worker.

**Hot keys.** In sparse models (embeddings, click features) a worker
pushes only the keys its batch touched, and some keys are touched by
everyone. Under range partitioning the popular rows can all land on one
shard, which then carries most of the traffic and most of the updates.
Hashing spreads them; very hot rows can also be replicated or updated
less often.

**Faults.** A shard holds the only copy of its slice. If it dies, training
stops until it comes back, so each shard writes a **checkpoint** every few
steps and a restarted shard resumes from its last one (in the lab:
`kill_server`, `checkpoint_every` and `recover=on`). Losing a worker only
loses its share of the data for a while: the others go on.
]]

question {
  id = "paramserver.shard-min",
  kind = "numeric",
  title = "How many shards? (your numbers)",
  prompt = [[
{n} workers, each on a {bw} Gbps link, train with a parameter server whose
shards each sit on a {bs} Gbps link. The parameters are split evenly over S
shards. What is the smallest S for which a shard's link needs no more time
per synchronous iteration than a worker's link?
Give a whole number.]],
  topics = { "sharding", "parameter-server" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "A shard moves N × M/S bytes each way per iteration, a worker M.",
    "Require N × M / (S × B_shard) <= M / B_worker and round S UP.",
  },
  params = function(rng)
    return { n = rng:pick({ 16, 24, 32, 50, 64, 100 }), bw = rng:pick({ 1, 10 }),
             bs = rng:pick({ 10, 25, 40, 100 }) }
  end,
  answer = function(p) return math.max(1, math.ceil(p.n * p.bw / p.bs - 1e-9)) end,
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return p.bw ~= p.bs and p.n end,   -- same speeds: S = N is right
      feedback = "S = N is right only when shards and workers have the same link speed. Here each shard link is faster." },
    { value = function(p)   -- a whole number already: no rounding to forget
        return (p.n * p.bw) % p.bs ~= 0 and p.n * p.bw / p.bs
      end,
      feedback = "Shards come in whole numbers: round UP, or the shards are still a little too slow." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 1) end, score = 0 },
    { "some", "invalid" },
    { params = { n = 64, bw = 10, bs = 100 }, answer = "7", score = 1 },
    { params = { n = 64, bw = 10, bs = 100 }, answer = "6.4", score = 0 },
    { params = { n = 64, bw = 10, bs = 100 }, answer = "64", score = 0 },
    { params = { n = 50, bw = 1, bs = 25 }, answer = "2", score = 1 },
  },
}

question {
  id = "paramserver.hot-keys",
  kind = "choice",
  title = "One shard is always busy",
  prompt = [[
A click-prediction model's embedding table is range-partitioned over 8
shards. Monitoring shows shard 1 at 100% network and CPU while the other
seven idle; its keys are the most frequent user ids. What is the most direct
fix?]],
  topics = { "sharding", "parameter-server" },
  rubric = { "practice.design", "practice.profiling" },
  hints = { "The total traffic is fine; its distribution over shards is not." },
  choices = {
    "Add 8 more shards with the same range partitioning.",
    "Partition keys by a hash, so the frequent ids are spread over all shards (and replicate the hottest rows).",
    "Switch to asynchronous SGD.",
    "Compress the gradients with 8-bit quantisation.",
  },
  answer = 2,
  why = {
    [1] = "The frequent ids are neighbours in key space, so their range still lands on one shard (or two): the hotspot stays.",
    [3] = "Async removes the barrier, but every update to those keys still goes through the same shard.",
    [4] = "Fewer bytes help a little, but the hot shard still does all the updates while seven idle.",
  },
  examples = { { "b", 1 }, { "a", 0 }, { "c", 0 }, { "q", "invalid" } },
}

------------------------------------------------------------------------------
page [[
# Compressing gradients

When the link is the bottleneck, send fewer bytes. Three common ways, for
a gradient of n FP32 values (4n bytes):

| method            | bytes sent        | error per value              |
|-------------------|-------------------|------------------------------|
| FP16              | 2n                | relative, about 0.05%        |
| 8-bit, blocks B   | n + 4n/B          | at most scale/2              |
| top-k, fraction f | 8fn (index+value) | unsent: lost, or sent later  |

**8-bit quantisation** cuts the gradient into blocks of B values (the
`paramserver` lab uses B = 256). Each block sends one FP32 *scale*,
max|x| / 127, and every value as the nearest whole multiple of it, an
integer from −127 to 127 in one byte. Rounding to the nearest multiple
is off by at most half a step: **scale/2 = max|x| / 254** within that
block. Small blocks track the local size of the values better; large
blocks spend fewer bytes on scales. With B = 256 that is 3.94× less than
FP32.

**Top-k sparsification** keeps the fraction f of entries with the largest
magnitude, each sent as a 4-byte index and a 4-byte value. Because of the
index, it saves bytes only when f < 1/2: at f = 1% it is 50× smaller. The
dropped entries are not gone for good if the worker keeps them: with
**error feedback** it adds what it did not send to its next gradient
(`residual += g − sent`), so small but persistent directions are sent
eventually. Without it, top-k can stall training.

Three caveats:

- It shrinks the **push** only, unless the weights are compressed too; in
  the lab (as in most systems) the pull still brings dense FP32 weights.
  So on a link-bound step it removes at most half of the communication.
- It is not free: finding the top k of n values takes a pass over all n,
  quantising one too, and the server must decode.
- It changes the optimisation: noisier or sparser updates may need more
  steps to reach the same loss. Measure time to a target loss, not just
  time per step.
]]

question {
  id = "paramserver.q8-ratio",
  kind = "numeric",
  title = "8-bit quantisation with block scales (your numbers)",
  prompt = [[
A gradient of FP32 values is quantised to 8 bits in blocks of {b} values:
each block sends one 4-byte FP32 scale plus one byte per value. For a long
gradient (ignore any header), by what factor is the message smaller than
FP32?
Give three significant figures.]],
  unit = "x",
  topics = { "compression", "communication" },
  rubric = { "practice.optimization", "theory.parallel" },
  hints = {
    "Bytes per value: 1 for the value, plus 4/{b} for its share of the scale.",
    "FP32 takes 4 bytes per value.",
  },
  -- Blocks up to 256 only: at 1024 the answer is within 1% of 4, so
  -- forgetting the scales would be accepted.
  params = function(rng) return { b = rng:pick({ 16, 32, 64, 128, 256 }) } end,
  answer = function(p) return 4 / (1 + 4 / p.b) end,
  wrong = {
    { value = 4, feedback = "That forgets the scales: each block of {b} values also sends 4 bytes." },
    { value = function(p) return 4 / (1 + 1 / p.b) end,
      feedback = "A scale is a 4-byte float, not one byte." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("4/(1+4/%d)", p.b) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "4 MB", "invalid" },
    { params = { b = 256 }, answer = "3.94", score = 1 },
    { params = { b = 32 }, answer = "3.556", score = 1 },
    { params = { b = 32 }, answer = "4", score = 0 },
  },
}

question {
  id = "paramserver.q8-error",
  kind = "numeric",
  title = "The largest 8-bit rounding error (your numbers)",
  prompt = [[
In one block of a gradient the largest magnitude is {m}. The block is
quantised to 8 bits with scale = max|x| / 127 and every value rounded to
the nearest multiple of the scale. What is the largest error any value of
this block can get?
Give three significant figures.]],
  topics = { "compression", "quantization" },
  rubric = { "practice.optimization" },
  hints = {
    "The scale is {m} / 127.",
    "Rounding to the nearest multiple is off by at most half a multiple.",
  },
  params = function(rng)
    return { m = rng:pick({ 0.5, 1.27, 2.54, 3, 0.01, 0.127 }) }
  end,
  answer = function(p) return p.m / 254 end,
  -- max/256 is only 0.8% off: the default 1% would accept it.
  tolerance = { rel = 0.004, sig = 3 },
  wrong = {
    { value = function(p) return p.m / 127 end,
      feedback = "That is the scale, one whole step. Rounding to the NEAREST step errs by at most half of it." },
    { value = function(p) return p.m / 256 end,
      feedback = "The signed 8-bit range used is -127 to 127: the step is max/127, half of it max/254." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("%g/254", p.m) end, score = 1 },
    { answer = function(p) return num(p.m / 127) end, score = 0 },
    { "tiny", "invalid" },
    { params = { m = 2.54 }, answer = "0.01", score = 1 },
    { params = { m = 2.54 }, answer = "0.02", score = 0 },
    { params = { m = 3 }, answer = "0.0118", score = 1 },
    { params = { m = 3 }, answer = "3/256", score = 0 },
    { params = { m = 0.5 }, answer = "0.5/256", score = 0 },
  },
}

question {
  id = "paramserver.topk-break-even",
  kind = "numeric",
  title = "When top-k stops saving",
  prompt = [[
Top-k sends each kept gradient entry as a 4-byte index plus a 4-byte FP32
value. Above what fraction f of kept entries is the top-k message LARGER
than the dense FP32 gradient?
Give three significant figures.]],
  topics = { "compression" },
  rubric = { "practice.optimization" },
  hints = { "Dense: 4n bytes. Top-k: 8fn bytes. Solve 8fn = 4n." },
  answer = 0.5,
  wrong = {
    { value = 1, feedback = "At f = 1 top-k sends 8n bytes, twice the dense 4n: the index doubles every kept entry." },
    { value = 0.25, feedback = "Check the sizes again: 8 bytes per kept entry against 4 per dense entry." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "0.5", 1 },
    { "50%", 1 },
    { "1/2", 1 },
    { "1", 0 },
    { "0.25", 0 },
    { "half", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Synchronous, asynchronous, bounded staleness

**Synchronous (BSP).** A barrier ends every iteration: the server waits for
all N gradients, averages them, updates, and only then do workers pull. The
result equals single-machine SGD with an N-times larger batch, so convergence
is predictable. The cost: each iteration lasts as long as the **slowest**
worker.

**Asynchronous.** No barrier. The server applies each gradient the moment it
arrives, and a worker pulls whatever weights are current. Nobody waits, so
updates per second go up. But a gradient was computed on weights that have
since moved: with N equally fast workers, about N − 1 other updates land
between a worker's pull and its push (*staleness* ≈ N − 1). Stale gradients
add noise; training may oscillate or diverge unless the learning rate is
lowered.

**Bounded staleness (SSP).** The middle ground: a worker may run ahead of the
slowest one by at most s iterations, then it waits. s = 0 is synchronous;
s = ∞ is fully asynchronous. Small s keeps most of the speed and a
convergence guarantee.

| aspect          | synchronous            | asynchronous               |
|-----------------|------------------------|----------------------------|
| barrier         | yes, every iteration   | none                       |
| updates/second  | set by the slowest     | higher                     |
| each update     | exact large-batch step | stale, noisier             |
| convergence     | stable, reproducible   | may oscillate; lower eta   |
| a straggler     | stalls everyone        | no stall; stale gradients  |

"Async is fast" means more updates per second. Whether the model reaches a
target accuracy sooner depends on how much the staleness costs; it often
does for sparse models (Hogwild-style) and often does not for large dense
ones, which is why large-scale training today is mostly synchronous.

## Stragglers

With 100 workers, one slow node (a noisy neighbour, a failing disk, thermal
throttling) sets the pace of synchronous training: the other 99 idle at the
barrier. Remedies: find and replace the slow node; balance the data; use
**backup workers** (launch N + b, use the first N gradients to arrive and
drop the rest); or relax synchrony (bounded staleness).
]]

question {
  id = "paramserver.straggler",
  kind = "choice",
  title = "One slow node out of 100",
  prompt = [[
You train on 100 nodes and one of them is consistently 2× slower than the
rest. Which statement is right?]],
  topics = { "stragglers", "sync-async" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = { "Where does a synchronous iteration wait? What does an asynchronous server do with a late gradient?" },
  choices = {
    "Synchronous training runs at the slow node's pace and the other 99 idle at the barrier; asynchronous training keeps going, but the slow node's gradients arrive stale.",
    "Neither mode is affected: the slow node is only 1% of the cluster.",
    "Asynchronous training runs at the slow node's pace; synchronous training is unaffected.",
    "Both modes slow down by 1%, the slow node's share of the work.",
  },
  answer = 1,
  why = {
    [2] = "In synchronous training every iteration waits for the slowest node, however few slow nodes there are.",
    [3] = "It is the other way round: the barrier is what makes synchronous training wait.",
    [4] = "A barrier waits for the slowest member; the iteration takes 2× as long, not 1% longer.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "x", "invalid" } },
}

question {
  id = "paramserver.straggler-idle",
  kind = "numeric",
  title = "Cost of one straggler (your numbers)",
  prompt = [[
Synchronous training on {n} workers: {n1} of them finish an iteration in
{t} ms, one straggler needs {ts} ms. What fraction of the cluster's
worker-time is spent idle at the barrier? (A fraction like 0.2 or a
percentage like 20%.)
Give three significant figures.]],
  topics = { "stragglers", "sync-async" },
  rubric = { "theory.parallel", "practice.profiling", "advanced.cost" },
  hints = {
    "Every iteration lasts {ts} ms, for all {n} workers.",
    "Busy time: {n1} × {t} + {ts}. Idle = 1 - busy / ({n} × {ts}).",
  },
  params = function(rng)
    -- At most 32 workers: with 100, 1 - t/ts (the last mistake below) is
    -- within the tolerance of the answer.
    local n = rng:pick({ 8, 16, 32 })
    local t = rng:pick({ 100, 200, 250 })
    return { n = n, n1 = n - 1, t = t, ts = t * rng:pick({ 1.5, 2, 3, 4 }) }
  end,
  answer = function(p) return 1 - (p.n1 * p.t + p.ts) / (p.n * p.ts) end,
  -- Half a percentage point also counts: 0.495 written as "50%" or "0.5" is
  -- a fair rounding (and at n = 100 it is what 1 - t/ts gives too).
  tolerance = { rel = 0.01, abs = 0.005 },
  wrong = {
    { value = function(p) return (p.n1 * p.t + p.ts) / (p.n * p.ts) end,
      feedback = "That is the busy fraction; the question asks for the idle one." },
    { value = function(p) return 1 / p.n end,
      feedback = "One worker out of n is slow, but ALL the others wait for it every iteration." },
    { value = function(p) return 1 - p.t / p.ts end,
      feedback = "Close: that ignores that the straggler itself is never idle. Weight it in: busy = (n - 1)·t + ts." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(100 * ctx.reference) .. "%" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "most", "invalid" },
    -- The notes' 100 nodes with one 2x-slow node: 1 - 101/200 = 0.495.
    { params = { n = 100, n1 = 99, t = 100, ts = 200 }, answer = "0.495", score = 1 },
    { params = { n = 100, n1 = 99, t = 100, ts = 200 }, answer = "50%", score = 1 },
    { params = { n = 100, n1 = 99, t = 100, ts = 200 }, answer = "0.01", score = 0 },
    { params = { n = 100, n1 = 99, t = 100, ts = 200 }, answer = "0.505", score = 0 },   -- busy share
    -- With 8 workers the straggler's own busy time matters: 1 - 900/1600.
    { params = { n = 8, n1 = 7, t = 100, ts = 200 }, answer = "0.4375", score = 1 },
    { params = { n = 8, n1 = 7, t = 100, ts = 200 }, answer = "0.5", score = 0 },
  },
}

question {
  id = "paramserver.backup-workers",
  kind = "numeric",
  title = "Backup workers (your numbers)",
  prompt = [[
Synchronous training needs {need} gradients per iteration, so you launch
{launched} workers and the server uses the first {need} to arrive. In one
iteration the workers finish after {times} ms. When can the server update?
Give a whole number.]],
  unit = "ms",
  topics = { "stragglers", "sync-async" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = { "Sort the times. The server waits for the {need}-th fastest, not the slowest." },
  params = function(rng)
    local t = {}
    for i = 1, 6 do t[i] = rng:int(90, 130) end
    t[rng:int(1, 6)] = rng:int(250, 400)   -- one straggler
    return { need = 5, launched = 6, times = table.concat(t, ", "),
             t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6] }
  end,
  answer = function(p)
    local t = { p.t1, p.t2, p.t3, p.t4, p.t5, p.t6 }
    table.sort(t)
    return t[p.need]
  end,
  tolerance = { abs = 0.5 },   -- a value read off the list
  wrong = {
    { value = function(p) return math.max(p.t1, p.t2, p.t3, p.t4, p.t5, p.t6) end,
      feedback = "That is the straggler's time; with a backup worker the server does not wait for the slowest." },
    { value = function(p) return (p.t1 + p.t2 + p.t3 + p.t4 + p.t5 + p.t6) / 6 end,
      feedback = "A synchronous step waits for the gradients it needs, so it ends at the 5th arrival, not at an average." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 3) end, score = 0 },
    { "soon", "invalid" },
    { params = { need = 5, launched = 6, times = "100, 120, 95, 300, 110, 105",
                 t1 = 100, t2 = 120, t3 = 95, t4 = 300, t5 = 110, t6 = 105 },
      answer = "120", score = 1 },
    { params = { need = 5, launched = 6, times = "100, 120, 95, 300, 110, 105",
                 t1 = 100, t2 = 120, t3 = 95, t4 = 300, t5 = 110, t6 = 105 },
      answer = "300", score = 0 },
  },
}

question {
  id = "paramserver.ssp-zero",
  kind = "text",
  title = "Bounded staleness at s = 0",
  prompt = [[
In bounded-staleness (SSP) training, a worker may be at most s iterations
ahead of the slowest worker. Which familiar training mode is SSP with
s = 0? (One word.)]],
  topics = { "sync-async", "staleness" },
  hints = { "With s = 0 nobody may run ahead at all." },
  answer = { "synchronous", "sync", "bsp", "bulk synchronous parallel", "synchronous sgd" },
  patterns = { "^synchron", "^bulk synchron", "^bsp" },
  examples = {
    { "synchronous", 1 },
    { "Synchronous SGD.", 1 },
    { "BSP", 1 },
    { "asynchronous", 0 },
    { "", "invalid" },
  },
}

question {
  id = "paramserver.sync-async",
  kind = "multi",
  title = "Synchronous or asynchronous?",
  prompt = "Which of these statements are true? Pick all that apply.",
  points = 2,
  topics = { "sync-async", "staleness" },
  hints = { "Three of the five are true." },
  choices = {
    "Synchronous SGD with N workers takes the same step as one-machine SGD with an N-times larger batch.",
    "In asynchronous SGD a gradient may be applied to weights other than the ones it was computed from.",
    "Asynchronous SGD always reaches a target accuracy sooner, because nobody waits.",
    "Without a barrier, one slow worker no longer holds back the others.",
    "Bounded staleness lets the fastest worker run arbitrarily far ahead of the slowest.",
  },
  answer = { 1, 2, 4 },
  why = {
    [3] = "More updates per second, yes; but stale gradients are worth less, and for large dense models sync often wins in time-to-accuracy.",
    [5] = "The bound s is exactly the limit on how far ahead the fastest worker may run.",
  },
  examples = {
    { "a b d", 1 },
    { "a b", 2 / 3 },
    { "a b c d e", 1 / 3 }, -- (3 right - 2 wrong) / 3
    { "q", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# All-reduce: ring and tree

All-reduce leaves the sum (or average) of every worker's gradient on every
worker, without a server. With p workers, a message of M bytes per worker,
link bandwidth B and a latency α per step:

## Ring

The p workers form a ring, and the gradient is cut into p chunks.

```
 reduce-scatter: p - 1 steps      all-gather: p - 1 steps
 each step, every GPU sends one chunk (M/p) to its right neighbour
 and adds (then later copies) the chunk it receives from its left.

   GPU0 ──> GPU1 ──> GPU2 ──> GPU3
    ^                          │
    └──────────────────────────┘

 T_ring = 2 (p - 1) × (α + M / (p B))  ≈  2 (p - 1)/p × M / B  for large M
```

Each GPU sends 2(p − 1)/p × M bytes in total: less than 2M **whatever p is**.
That is bandwidth-optimal, and it is why ring all-reduce scales where a
single server does not. Its weak point is latency: 2(p − 1) steps in a row.

## Tree

The course's model reduces up a binary tree and broadcasts back down, each of
the 2·log2(p) steps sending the whole message:

```
 T_tree = 2 log2(p) × (α + M / B)
```

Few steps (good for small messages, where α dominates), but the full M per
step (bad for large ones). Real libraries (NCCL's double binary trees) cut
the message into chunks and pipeline them through the tree, which brings the
bandwidth term close to the ring's; the unpipelined formula is the course's
and the one used below.

## Worked example: 175 B parameters, 1024 GPUs, 100 GB/s

Gradients in FP16: M = 175 × 10^9 × 2 B = 350 GB; M/B = 3.5 s.

```
ring: 2 × 1023/1024 × 3.5 s = 6.99 s
tree: 2 × log2(1024) × 3.5 s = 2 × 10 × 3.5 s = 70 s
```

The ring is 10× faster here (FP32 gradients double both: 14 s and 140 s).
Even 7 s per step is too slow to do naively: such models combine data
parallelism with tensor and pipeline parallelism so that each all-reduce
covers only a slice of the model (next lesson).

## Worked example: the guide's 100 MB on 25 GB/s

100 MB of gradients, 25 GB/s links, α = 1 µs, 16 GPUs:

```
ring: 2 × 15 × (100 MB / 16) / 25 GB/s + 2 × 15 × 1 µs
    = 7.5 ms + 0.03 ms  = 7.53 ms
tree: 2 × 4 × 100 MB / 25 GB/s + 2 × 4 × 1 µs
    = 32 ms + 0.008 ms  = 32.01 ms
```

With few GPUs and big messages the ring wins; with tiny messages on many
GPUs the α terms decide and the tree wins.

## Parameter server versus ring

One synchronous PS round through a single server link moves N × M in and
N × M out; a ring moves under 2M per GPU. For 8 workers the server's round is
2 × 8 × M/B against the ring's 2 × 7/8 × M/B: 64/7 ≈ 9.1× longer. Sharding the
PS over S servers narrows that gap by S.
]]

question {
  id = "paramserver.ring-175b-worked",
  kind = "numeric",
  title = "Ring all-reduce for 175 B parameters",
  prompt = [[
A 175-billion-parameter model trains data-parallel on 1024 GPUs linked at
100 GB/s. Its gradients are FP16 (2 bytes). Using the bandwidth term of ring
all-reduce, 2(p - 1)/p × M/B, how long does one gradient all-reduce take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "A ring all-reduce sends about 2M bytes over each GPU's link, whatever the number of GPUs.",
    "M = 175 × 10^9 × 2 bytes = 350 GB.",
    "M/B = 3.5 s; multiply by 2 × 1023/1024.",
  },
  answer = 2 * 1023 / 1024 * 3.5,
  wrong = {
    { value = 2 * 1023 / 1024 * 7, feedback = "You used 4-byte gradients. The question says FP16: 2 bytes per parameter." },
    { value = 3.5, feedback = "That is M/B, one pass of the message. A ring all-reduce does a reduce-scatter AND an all-gather: about 2 × M/B." },
    { value = 70, feedback = "70 s is the TREE all-reduce (2 log2 p × M/B). The ring's factor is 2(p - 1)/p." },
    { value = 2 * 1023 / 1024 * 3.5 * 8, feedback = "No factor 8 here: the bandwidth is in gigaBYTES per second." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "6.99", 1 },
    { "7", 1 },
    { "2*1023/1024*350/100", 1 },
    { "14", 0 },
    { "3.5", 0 },
    { "7.5", 0 },           -- 7% off
    { "7 GB", "invalid" },
  },
}

question {
  id = "paramserver.tree-175b-worked",
  kind = "numeric",
  title = "Tree all-reduce for 175 B parameters",
  prompt = [[
Same model and cluster: 175 B FP16 gradients, 1024 GPUs, 100 GB/s. Using the
course's tree all-reduce model, 2 log2(p) × M/B, how long does one gradient
all-reduce take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "A tree all-reduce sends the whole message once per level, up and then down.",
    "log2(1024) = 10.",
    "M/B = 350 GB / 100 GB/s = 3.5 s.",
  },
  answer = 70,
  wrong = {
    { value = 35, feedback = "That is one pass up the tree. The reduce goes up AND the broadcast comes back down: 2 log2 p steps." },
    { value = 140, feedback = "You used 4-byte gradients; FP16 is 2 bytes." },
    { value = 2 * 1023 / 1024 * 3.5, feedback = "That is the ring. The tree sends the whole message at each of its 2 log2 p steps." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "70", 1 },
    { "70 s", 1 },
    { "2*log2(1024)*3.5", 1 },
    { "35", 0 },
    { "75", 0 },
    { "seventy", "invalid" },
  },
}

-- The assessment question gives no precision. FP16 is the lesson's choice
-- (above); the FP32 figures the page quotes are worked examples too, each a
-- question of its own.
question {
  id = "paramserver.ring-175b-fp32-worked",
  kind = "numeric",
  title = "Ring all-reduce for 175 B FP32 gradients",
  prompt = [[
The same 175-billion-parameter model on 1024 GPUs at 100 GB/s, but with FP32
gradients (4 bytes). Using the bandwidth term of ring all-reduce,
2(p - 1)/p × M/B, how long does one gradient all-reduce take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce", "communication", "precision" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "M = 175 × 10^9 × 4 bytes = 700 GB; M/B = 7 s.",
    "Multiply by 2 × 1023/1024.",
  },
  answer = 2 * 1023 / 1024 * 7,   -- 13.99
  wrong = {
    { value = 2 * 1023 / 1024 * 3.5, feedback = "That is the FP16 figure. FP32 gradients are 4 bytes: twice the data." },
    { value = 7, feedback = "That is M/B, one pass. A ring all-reduce does a reduce-scatter AND an all-gather: about 2 × M/B." },
    { value = 140, feedback = "140 s is the tree (2 log2 p × M/B). The ring's factor is 2(p - 1)/p." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "13.99", 1 },
    { "14", 1 },
    { "2*1023/1024*700/100", 1 },
    { "7", 0 },
    { "15", 0 },            -- 7% off
    { "14 GB", "invalid" },
  },
}

question {
  id = "paramserver.tree-175b-fp32-worked",
  kind = "numeric",
  title = "Tree all-reduce for 175 B FP32 gradients",
  prompt = [[
And with the course's tree model, 2 log2(p) × M/B: how long does one
all-reduce of the 175 B FP32 gradients (4 bytes each) take on 1024 GPUs at
100 GB/s?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce", "communication", "precision" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "M/B = 700 GB / 100 GB/s = 7 s.",
    "log2(1024) = 10: 2 × 10 steps of the whole message.",
  },
  answer = 140,
  wrong = {
    { value = 70,
      feedback = "70 s is half the answer, from one of two slips: the FP16 size (FP32 gradients are 4 bytes, 700 GB), or one pass up the tree (the reduce goes up AND the broadcast comes back down: 2 log2 p steps)." },
    { value = 2 * 1023 / 1024 * 7, feedback = "That is the ring. The tree sends the whole message at each of its 2 log2 p steps." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "140", 1 },
    { "2*log2(1024)*7", 1 },
    { "2.33 min", 1 },
    { "70", 0 },
    { "14", 0 },
    { "150", 0 },
    { "140 GB", "invalid" },
  },
}

question {
  id = "paramserver.ring-guide-worked",
  kind = "numeric",
  title = "The guide's ring all-reduce on 16 GPUs",
  prompt = [[
The guide's example: 100 MB of gradients, 16 GPUs, 25 GB/s links and a
latency of 1 µs per step. Ring all-reduce takes 2(p - 1) steps, each sending
M/p bytes and paying the latency once. How long does it take?
Give three significant figures.]],
  unit = "ms",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel" },
  hints = {
    "A ring takes 2(p - 1) steps, each a latency plus a chunk over the bandwidth.",
    "Transfer: 2 × 15 × (100 MB / 16) / 25 GB/s.",
    "Latency: 2 × 15 × 1 µs.",
  },
  answer = 7.53,
  -- The latency adds only 0.4%: 7.5 ms is within the default 1% and is
  -- accepted; the hint still asks for it.
  wrong = {
    { value = 4, feedback = "4 ms is M/B, one pass. The ring does 2(p - 1) steps of M/p each: 2 × 15/16 × M/B." },
    { value = 8, feedback = "8 ms is 2M/B, the ring's limit for very many GPUs. With 16 GPUs the factor is 2 × 15/16." },
    { value = 32.008, feedback = "That is the tree (2 log2 p steps of the full message)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "7.53", 1 },
    { "0.00753 s", 1 },
    { "7.5", 1 },
    { "8", 0 },
    { "4", 0 },
    { "7.53 MB", "invalid" },
  },
}

question {
  id = "paramserver.tree-guide-worked",
  kind = "numeric",
  title = "The guide's tree all-reduce on 16 GPUs",
  prompt = [[
Same example: 100 MB of gradients, 16 GPUs, 25 GB/s, 1 µs latency per step.
The tree all-reduce takes 2 log2(p) steps, each sending the whole 100 MB and
paying the latency once. How long does it take?
Give three significant figures.]],
  unit = "ms",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel" },
  hints = { "2 × log2(16) = 8 steps of 100 MB / 25 GB/s = 4 ms each." },
  answer = 32.008,
  wrong = {
    { value = 16.004, feedback = "That is only the reduce up the tree; the result must be broadcast back down: 2 log2 p steps." },
    { value = 7.53, feedback = "That is the ring." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "32", 1 },
    { "32.008 ms", 1 },
    { "16", 0 },
    { "35", 0 },
    { "32 GB/s", "invalid" },
  },
}

question {
  id = "paramserver.ring-time",
  kind = "numeric",
  title = "Ring all-reduce time (your numbers)",
  prompt = [[
A {pb}-billion-parameter model trains data-parallel on {p} GPUs with
{bw} GB/s links. Gradients are {bytes}-byte floats. Using the bandwidth term
of ring all-reduce, 2(p - 1)/p × M/B, how long does one gradient all-reduce
take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "A ring all-reduce sends about 2M bytes over each GPU's link, whatever the number of GPUs.",
    "M = parameters × {bytes} bytes.",
    "Time = 2 × ({p} - 1)/{p} × M / ({bw} GB/s).",
  },
  params = function(rng)
    -- p = 2 is left out: there 2(p - 1)/p = 1 and the ring takes exactly M/B,
    -- the wrong value "one pass".
    return { pb = rng:pick({ 1, 7, 13, 70, 175 }), p = rng:pick({ 4, 8, 16, 64, 256, 1024 }),
             bw = rng:pick({ 25, 50, 100, 400 }), bytes = rng:pick({ 2, 4 }) }
  end,
  answer = function(p) return 2 * (p.p - 1) / p.p * p.pb * 1e9 * p.bytes / (p.bw * 1e9) end,
  wrong = {
    { value = function(p) return p.pb * 1e9 * p.bytes / (p.bw * 1e9) end,
      feedback = "That is M/B, one pass. Ring all-reduce is a reduce-scatter plus an all-gather: 2(p - 1)/p × M/B." },
    { value = function(p) return 2 * (p.p - 1) * p.pb * 1e9 * p.bytes / (p.bw * 1e9) end,
      feedback = "Each of the 2(p - 1) steps sends only a 1/p chunk, not the whole message." },
    { value = function(p) return 2 * math.log(p.p) / math.log(2) * p.pb * p.bytes / p.bw end,
      feedback = "That is the tree formula, 2 log2 p × M/B." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "7 GB", "invalid" },
    { params = { pb = 175, p = 1024, bw = 100, bytes = 2 }, answer = "6.99", score = 1 },
    { params = { pb = 175, p = 1024, bw = 100, bytes = 2 }, answer = "70", score = 0 },
  },
}

question {
  id = "paramserver.tree-time",
  kind = "numeric",
  title = "Tree all-reduce time (your numbers)",
  prompt = [[
{mb} MB of gradients are all-reduced over {p} GPUs with {bw} GB/s links,
using the course's tree model, 2 log2(p) × M/B. Ignoring latency, how long
does it take?
Give three significant figures.]],
  unit = "ms",
  topics = { "all-reduce", "communication" },
  rubric = { "theory.parallel" },
  hints = { "log2({p}) steps up, as many down; each sends {mb} MB at {bw} GB/s." },
  params = function(rng)
    return { mb = rng:pick({ 50, 100, 250, 500, 1000 }), p = rng:pick({ 2, 4, 8, 16, 32, 64, 128, 1024 }),
             bw = rng:pick({ 10, 25, 50, 100 }) }
  end,
  answer = function(p) return 1000 * 2 * log2(p.p) * p.mb * 1e6 / (p.bw * 1e9) end,
  wrong = {
    { value = function(p) return 1000 * log2(p.p) * p.mb * 1e6 / (p.bw * 1e9) end,
      feedback = "That is only the reduce up the tree; add the broadcast back down." },
    { value = function(p) return 1000 * 2 * (p.p - 1) / p.p * p.mb * 1e6 / (p.bw * 1e9) end,
      feedback = "That is the ring's bandwidth term." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 0.9) end, score = 0 },
    { "soon", "invalid" },
    { params = { mb = 100, p = 16, bw = 25 }, answer = "32", score = 1 },
    { params = { mb = 100, p = 16, bw = 25 }, answer = "7.5", score = 0 },
  },
}

question {
  id = "paramserver.tree-vs-ring",
  kind = "numeric",
  title = "When does the tree win? (your numbers)",
  prompt = [[
All-reduce of a {size} message over {p} GPUs, with {bw} GB/s links and
α = {alpha} µs latency per step. Ring: 2(p - 1) × (α + M/(pB)). Tree:
2 log2(p) × (α + M/B). Compute the ratio T_tree / T_ring (below 1 means the
tree is faster).
Give three significant figures.]],
  topics = { "all-reduce", "latency" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "Work in seconds: α = {alpha} × 10^-6 s, B = {bw} × 10^9 B/s.",
    "For small messages the α terms dominate: the ring pays 2(p - 1) of them, the tree only 2 log2 p.",
  },
  params = function(rng)
    local sizes = { { "4 KB", 4e3 }, { "64 KB", 64e3 }, { "1 MB", 1e6 }, { "100 MB", 1e8 }, { "1 GB", 1e9 } }
    -- Drawn until the latency changes the ratio by more than 5%: otherwise
    -- the α-free ratio (a wrong value below) would be right too.
    local p
    repeat
      local s = rng:pick(sizes)
      p = { size = s[1], m = s[2], p = rng:pick({ 16, 64, 256, 1024 }), bw = rng:pick({ 25, 100 }),
            alpha = rng:pick({ 1, 2, 5, 10 }) }
      local a, b = p.alpha * 1e-6, p.bw * 1e9
      local ratio = 2 * log2(p.p) * (a + p.m / b) / (2 * (p.p - 1) * (a + p.m / (p.p * b)))
    until math.abs(ratio - log2(p.p) * p.p / (p.p - 1)) > 0.05 * ratio
    return p
  end,
  answer = function(p)
    local a, b = p.alpha * 1e-6, p.bw * 1e9
    local ring = 2 * (p.p - 1) * (a + p.m / (p.p * b))
    local tree = 2 * log2(p.p) * (a + p.m / b)
    return tree / ring
  end,
  -- Students compute two sums of tiny numbers; 2% keeps careful rounding right.
  tolerance = { rel = 0.02 },
  wrong = {
    { value = function(p)
        local a, b = p.alpha * 1e-6, p.bw * 1e9
        return (2 * (p.p - 1) * (a + p.m / (p.p * b))) / (2 * log2(p.p) * (a + p.m / b))
      end,
      feedback = "That is T_ring / T_tree, the inverse of what was asked." },
    { value = function(p)
        -- false for messages so large that ignoring α is within the 2% tolerance
        local a, b = p.alpha * 1e-6, p.bw * 1e9
        local right = (2 * log2(p.p) * (a + p.m / b)) / (2 * (p.p - 1) * (a + p.m / (p.p * b)))
        local v = log2(p.p) * p.p / (p.p - 1)
        return math.abs(v - right) > 0.02 * right and v
      end,
      feedback = "That ratio ignores the latency α; it is only right for very large messages." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "tree", "invalid" },
    { params = { size = "64 KB", m = 64e3, p = 64, bw = 25, alpha = 10 }, answer = "0.1191", score = 1 },
    { params = { size = "1 GB", m = 1e9, p = 64, bw = 25, alpha = 10 }, answer = "6.0", score = 1 },
  },
}

question {
  id = "paramserver.ps-vs-ring",
  kind = "numeric",
  title = "One server versus a ring (your numbers)",
  prompt = [[
{n} workers synchronise M bytes of gradients per iteration. Option A: one
parameter server; its full-duplex link must take in all n gradients, then
send the model to all n workers (two phases, each n × M over its link).
Option B: ring all-reduce, 2(n - 1)/n × M per GPU at the same link speed.
How many times longer does option A take? (Ignore latency.)
Give three significant figures.]],
  unit = "x",
  topics = { "all-reduce", "parameter-server" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "A: 2 × n × M / B.",
    "B: 2 × (n - 1)/n × M / B. M/B cancels.",
  },
  params = function(rng) return { n = rng:pick({ 4, 5, 8, 16, 32, 64 }) } end,
  answer = function(p) return p.n * p.n / (p.n - 1) end,
  wrong = {
    { value = function(p) return p.n end,
      feedback = "Close, but the ring sends 2(n - 1)/n × M, a little under 2M: the ratio is n²/(n - 1)." },
    { value = function(p) return (p.n - 1) / (p.n * p.n) end,
      feedback = "That is the inverse: how much SHORTER the server option is." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("%d^2/%d", p.n, p.n - 1) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.06) end, score = 0 },
    { "n", "invalid" },
    { params = { n = 8 }, answer = "9.14", score = 1 },
    { params = { n = 8 }, answer = "8", score = 0 },
  },
}

question {
  id = "paramserver.design",
  kind = "design",
  title = "Design: the server cannot keep up",
  prompt = [[
A recommendation model (a 400 M-parameter dense part plus large embedding
tables) trains on 32 workers with a single parameter server over 10 Gbps
Ethernet. GPU utilisation is 25%, the server's link is saturated and
occasionally one worker is much slower. In a short paragraph: quantify the
problem and propose changes, with their trade-offs.]],
  points = 4,
  topics = { "parameter-server", "communication", "sync-async" },
  rubric = { "practice.design", "practice.optimization", "theory.parallel" },
  hints = {
    "How many bytes per iteration go through the server's link, and how long does that take?",
    "Think of splitting the server, sending fewer bytes, sending less often, hiding the time, and the slow worker.",
  },
  concepts = {
    { name = "quantify the traffic", points = 2,
      -- A number with its unit, not the prompt's "10 Gbps" restated.
      claims = {
        { subject = { "gradient*", "dense part", "traffic", "it", "each worker", "worker*", "link",
                      "server", "1.6 gb", "1 6 gb", "transfer*", "push*", "iteration", "this", "model",
                      "400 m", "parameters" },
          relation = { "is", "are", "take*", "need*", "send*", "push*", "mov*", "carr*", "cost*",
                       "come*", "amount*", "mean*", "must", "has", "have", "total*", "pull*", "spend*" },
          object = { "1.6 gb", "1 6 gb", "51 gb", "41 s", "41 seconds", "1.25 gb/s", "1 25 gb/s",
                     "125 mb/s", "gb", "seconds", "40 s", "over 40" } },
      },
      contradicts = {
        { match = { "traffic is tiny", "a few mb", "a few megabytes" },
          feedback = "You called the traffic small: 400 M FP32 gradients are 1.6 GB per worker, 51 GB per iteration through one 1.25 GB/s link." },
      },
      feedback = "Put numbers on it: 400 M FP32 parameters are 1.6 GB; 32 workers push and pull that through one 10 Gbps (1.25 GB/s) link, about 41 s per direction." },
    { name = "shard the server",
      claims = {
        { relation = { "shard*", "partition*", "split*", "spread*", "distribut*", "add*", "use*" },
          object = { "parameters", "server*", "embedding*", "more servers", "several servers",
                     "multiple servers", "8 servers", "shards", "tables" } },
        { subject = { "parameters", "embedding*", "server", "tables", "model" },
          relation = { "sharded", "partitioned", "split", "spread", "distributed" } },
        { subject = { "shard*", "partition*", "more servers", "several servers" },
          relation = { "split*", "spread*", "divid*", "cut*", "reduc*", "shar*" },
          object = { "traffic", "load", "link*", "bytes", "bandwidth" } },
      },
      contradicts = {
        { match = { "single server is always best", "one server is best", "a single server is best" },
          feedback = "You kept one server: its link carries every worker's traffic; sharding spreads it over several links." },
      },
      feedback = "Shard the parameters (and the embedding tables) over several servers so no single link carries all the traffic." },
    { name = "compress",
      claims = {
        { relation = { "compress*", "quantiz*", "quantis*", "sparsif*", "send*", "cast*", "convert*",
                       "use*", "cut*", "reduc*", "shrink*" },
          object = { "gradient*", "fp16", "8-bit", "top-k", "fewer bytes", "half", "sparse update*",
                     "compression", "updates" } },
        { subject = { "compression", "fp16", "top-k", "sparsification", "quantization" },
          relation = { "cut*", "reduc*", "shrink*", "halv*", "sav*", "send*" },
          object = { "bytes", "traffic", "gradient*", "size", "volume", "it", "that" } },
      },
      contradicts = {
        { patterns = { "compress%a* %a* ?hurts? %a* ?too much", "compress%a* %a* ?too much to" },
          feedback = "You ruled compression out: FP16 or top-k with error feedback usually costs little accuracy and cuts the bytes on the link." },
      },
      feedback = "Send fewer bytes: FP16 or 8-bit gradients, top-k sparsification with error feedback, sparse embedding updates." },
    { name = "overlap or sync less often",
      claims = {
        { relation = { "overlap*", "hid*", "take*", "sync*", "use*", "run*", "do*", "amortis*", "amortiz*" },
          object = { "backward*", "communication", "local step*", "local sgd", "local update*",
                     "less often", "larger batch*", "bigger batch*", "compute", "between syncs" } },
        { subject = { "communication", "push*", "transfer*", "it" },
          relation = { "overlap*", "overlapped", "hidden", "run*" },
          object = { "backward*", "compute", "computation" } },
      },
      feedback = "Hide or amortise the communication: overlap it with backward, take several local steps between syncs, or use larger batches." },
    { name = "all-reduce for the dense part",
      claims = {
        { relation = { "use*", "mov*", "switch*", "replac*", "try*", "consider*", "go*" },
          object = { "all-reduce", "allreduce", "all reduce", "ring" } },
        { subject = { "all-reduce", "allreduce", "ring", "ring all-reduce", "each gpu", "dense part" },
          relation = { "send*", "avoid*", "scal*", "need*", "remov*", "mov*", "could", "is", "use*" },
          object = { "2 x", "2m", "under", "regardless", "independent*", "central", "bottleneck",
                     "all-reduce", "ring", "allreduce" } },
      },
      contradicts = {
        { patterns = { "all%-?%s?reduce is slower", "ring %a* ?is slower" },
          feedback = "You said all-reduce is slower: a ring all-reduce sends under 2M per GPU whatever the number of workers, with no central link." },
      },
      feedback = "Consider all-reduce (ring) for the dense part: each GPU sends under 2M, independent of the number of workers." },
    { name = "stragglers",
      claims = {
        { relation = { "use*", "add*", "run*", "allow*", "replac*", "handl*", "tolerat*", "deal*", "go*",
                       "switch*", "mitigat*", "watch*", "drop*", "skip*" },
          object = { "backup worker*", "backup", "bounded staleness", "staleness", "async*", "ssp",
                     "straggler*", "slow worker", "slow node", "node" } },
        { subject = { "straggler*", "slow worker", "slow node", "backup worker*", "staleness",
                      "bounded staleness" },
          relation = { "handl*", "replac*", "slow*", "hold*", "delay*", "cover*", "keep*", "let*" } },
      },
      feedback = "Deal with the slow worker: backup workers, bounded staleness or async updates, or replace the slow node." },
    { name = "trade-offs",
      claims = {
        { subject = { "compression", "staleness", "it", "this", "they", "async*", "more servers",
                      "servers", "trade-off*", "tradeoff*", "cost" },
          relation = { "hurt*", "slow*", "cost*", "affect*", "harm*", "reduc*", "delay*", "is", "are",
                       "can", "may", "lose*", "risk*" },
          object = { "convergence", "accuracy", "money", "loss", "quality" } },
        { relation = { "watch*", "check*", "monitor*", "track*", "measur*" },
          object = { "convergence", "accuracy", "loss curve", "loss", "trade-off*" } },
      },
      feedback = "Name the costs: compression and staleness can hurt convergence and accuracy; more servers cost money." },
  },
  model = [[
The dense part alone is 400 M × 4 B = 1.6 GB of FP32 gradients. With 32
workers the single server's 10 Gbps link (1.25 GB/s) must take in 51 GB and
send out 51 GB per iteration, about 41 s each way, so the GPUs sit idle. I
would shard the parameters and the embedding tables over 8 or more servers,
compress the gradients (FP16, or top-k sparsification with error feedback,
and sparse updates for the embeddings), overlap communication with the
backward pass and take a few local steps between syncs. The dense part could
move to ring all-reduce, where each GPU sends under 2 × 1.6 GB regardless of
the number of workers. For the slow worker: backup workers or bounded
staleness, and replace the node if it stays slow. The trade-offs:
compression and staleness can slow convergence or cost accuracy, so I would
check the loss curve, and more servers cost money.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
The dense part alone is 400 M x 4 bytes = 1.6 GB of FP32 gradients. With 32
workers the single server must receive 51 GB and send 51 GB per iteration
through a 1.25 GB/s link, about 41 s each way, which is why the GPUs sit idle
most of the time. I would shard the parameters and the embedding tables over
eight or more servers, compress the gradients to FP16 or send only the top-k
values with error feedback, overlap the communication with the backward
pass, and move the dense part to a ring all-reduce, where each worker sends
under 3.2 GB whatever the number of workers. For the slow worker, backup
workers or bounded staleness keep the others going. The trade-offs are that
compression and staleness can slow convergence or cost accuracy, so I would
watch the loss curve, and more servers cost money.]] },
    { role = "good", score = 1, tol = 0, answer = [[
Per iteration every worker pushes and pulls 1.6 GB, so the server's
1.25 GB/s link needs about 41 s per direction. Sharding the model over
several servers splits that traffic, FP16 compression halves it, and local
SGD with a few local steps between syncs sends it less often. A ring
all-reduce for the dense layers removes the central link altogether. The
straggler can be handled with asynchronous updates or backup workers. Each
change has a trade-off: compression and asynchrony may hurt convergence.]] },
    { role = "partial", score = 2 / 8, tol = 0.2, answer = [[
Shard the parameter server and compress the gradients.]] },
    { role = "partial", score = 3 / 8, tol = 0.2, answer = [[
The link carries 1.6 GB per worker per iteration, about 41 s each way.
Backup workers would deal with the straggler.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
1.6 GB, 1.25 GB/s, sharding, more servers, FP16, top-k, compression, overlap,
local SGD, ring all-reduce, stragglers, backup workers, staleness,
convergence]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
The traffic is tiny, a few MB per iteration, so the 10 Gbps link is not the
bottleneck. A single server is always best, since sharding would not help,
and gradient compression hurts accuracy too much to consider. Overlapping
communication never helps, all-reduce is slower than a parameter server for
any model, and the slow worker does not matter in synchronous training. None
of these changes has a trade-off.]] },
  },
  examples = {
    { answer = [[
1.6 GB per worker through a 1.25 GB/s link is 41 s. Shard the server, compress
gradients to fp16, overlap with backward, use ring all-reduce for the dense
part, backup workers for stragglers; watch convergence as the trade-off.]],
      score = 1 },
    { "Shard the parameter server and compress the gradients.", 2 / 8 },
    { "Buy faster GPUs.", 0 },
    { "", "invalid" },
  },
}
