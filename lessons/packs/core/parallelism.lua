-- Lesson 2: Parallelism types and memory models.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md hour 2, ml-system-optimization-notes.txt parts
-- 2-3 and its class material, gpu-ml-training-inference-guide.md on data
-- loading, gpu-acceleration-cheatsheet.md on interconnects); the text is ours.
--
-- Worked examples of the material that are questions here, with the
-- document's numbers:
--   * the crash course's "which parallelism type" practice: a CNN on images,
--     an image -> preprocess -> train pipeline, an inference API
--     (parallelism.kind-cnn, parallelism.kind-pipeline, parallelism.kind-api);
--   * the notes' statement that pipelining raises throughput but does not
--     shorten one task (parallelism.pipeline-statements).
--
-- Corrections to the material, taught on the pages:
--   * The notes file task parallelism and model parallelism together ("the
--     model itself is partitioned"). Model parallelism is one form of
--     splitting the work by operation, not a synonym: task parallelism is
--     any split of *different* operations over workers.
--   * The crash course rates distributed memory as "slow (ms)". A message
--     inside one data centre takes microseconds (a few us with RDMA); ms is
--     the wide-area or congested case.
--
-- Conventions: times in prompts are in ms unless said; tolerance is the
-- default 1% relative unless a comment says why not; prompts contain no
-- braces except params placeholders.

lesson {
  id = "parallelism",
  title = "Parallelism types and memory models",
  topics = { "parallelism" },
  rubric = { "theory.parallel" },
}

-- Sum and maximum of a list of stage times.
local function sum_max(t)
  local s, m = 0, 0
  for _, v in ipairs(t) do
    s = s + v
    if v > m then m = v end
  end
  return s, m
end

-- Four stage times in ms, all different from their maximum's position so
-- that sum and max are well apart.
local function four_stages(rng)
  return { a = rng:int(2, 9), b = rng:int(3, 12), c = rng:int(6, 15), d = rng:int(2, 9) }
end

local function stages_of(p) return { p.a, p.b, p.c, p.d } end

------------------------------------------------------------------------------
page [==[
# Three ways to split the work

A parallel program needs work that several workers can do at the same time.
There are three common ways to find it.

| kind    | what is split         | workers talk?   | ML example          |
|---------|-----------------------|-----------------|---------------------|
| data    | the data: same code,  | yes, to combine | training a CNN on a |
|         | each worker a share   | partial results | sharded dataset     |
| task    | the work: different   | yes, to pass    | load -> preprocess  |
|         | operations per worker | results along   | -> train stages     |
| request | independent requests  | no              | an inference API    |

## Data parallelism (SPMD)

*Same program, multiple data.* Each worker holds the whole program (in
training: a full copy of the model) and processes its own slice of the
input, producing a partial result: a partial sum, a partial gradient, a
partial count. The partial results are then combined. Vector addition
`C[i] = A[i] + B[i]` is the textbook case; in ML, training a CNN, k-means and
logistic regression all split this way. It is the most common kind in ML
because the datasets are huge and the same computation applies to every
sample.

How the partial results are combined is the main design choice:

- **centralised**: one or more *parameter servers* hold the model; workers
  pull weights and push gradients (lesson on parameter servers);
- **decentralised**: no server; workers exchange gradients peer to peer and
  average them with an *all-reduce* (ring or tree).

## Task parallelism

Different workers run *different* operations at the same time: one reads and
decodes images, one augments them, one trains. Chained like this, it is a
**pipeline** (page 3). Its troubles are dependencies (a stage waits for its
input), load imbalance (the slowest stage sets the pace) and limited scaling
(you cannot have more busy workers than there are distinct tasks).

**Model parallelism** splits one model over devices when it does not fit on
one: whole layers per device (*pipeline parallelism*) or slices of each
weight matrix (*tensor parallelism*). It is one form of splitting the work
rather than the data, so it is often filed under task parallelism; it is
not another word for it. Lesson 7 treats both in depth.

## Request parallelism

A server answering independent requests (a web server, a model-serving
endpoint) can give each request to any free worker. No worker needs another
worker's result, so throughput grows with the number of workers until a
shared resource (the network card, the GPU, a database) saturates. It is the
easiest parallelism there is, sometimes called *embarrassingly parallel*.
]==]

question {
  id = "parallelism.kind-cnn",
  kind = "choice",
  title = "Training a CNN on images",
  prompt = [[
A CNN is trained on 1.2 million images using 8 GPUs. Every GPU holds the
whole network and processes its own share of each batch; the gradients are
then averaged. Which kind of parallelism is this?]],
  topics = { "parallelism", "data-parallel" },
  hints = { "What is divided among the GPUs: the operations, the data, or independent requests?" },
  choices = { "data parallelism", "task parallelism", "request parallelism" },
  answer = 1,
  why = {
    [2] = "Every GPU runs the same operations (the whole network); only the images differ. That is data parallelism.",
    [3] = "The GPUs are not independent: their gradients are combined every step. Request parallelism needs no communication at all.",
  },
  examples = {
    { "a", 1 },
    { "data parallelism", 1 },
    { "b", 0 },
    { "c", 0 },
    { "d", "invalid" },     -- no such choice
    { "", "invalid" },
  },
}

question {
  id = "parallelism.kind-pipeline",
  kind = "choice",
  title = "Image -> preprocess -> train",
  prompt = [[
One process reads images from disk, a second one preprocesses them (decode,
resize, augment) and a third trains on them; all three run at the same time
on different batches. Which kind of parallelism is this?]],
  topics = { "parallelism", "task-parallel", "pipelining" },
  hints = { "Do the three processes run the same code or different code?" },
  choices = { "data parallelism", "task parallelism", "request parallelism" },
  answer = 2,
  why = {
    [1] = "The processes run different operations (read, preprocess, train). Data parallelism would run the same operation on different shares.",
    [3] = "The stages depend on each other: each consumes what the previous one produced. Requests are independent.",
  },
  examples = {
    { "b", 1 },
    { "Task parallelism", 1 },
    { "a", 0 },
    { "c", 0 },
    { "b c", "invalid" },   -- two picks for a single-choice question
  },
}

question {
  id = "parallelism.kind-api",
  kind = "choice",
  title = "An inference API",
  prompt = [[
A trained model sits behind an HTTP endpoint. Thousands of users send
unrelated prediction requests, and any of 16 model replicas may answer any
request. Which kind of parallelism does adding replicas exploit?]],
  topics = { "parallelism", "request-parallel", "serving" },
  rubric = { "theory.parallel", "practice.deployment" },
  hints = { "Does one replica ever need another replica's result?" },
  choices = { "data parallelism", "task parallelism", "request parallelism" },
  answer = 3,
  why = {
    [1] = "Nothing is split and combined: each request is answered whole by one replica. These are independent requests.",
    [2] = "All replicas run the same operation; what differs is which independent request they serve.",
  },
  examples = {
    { "c", 1 },
    { "request parallelism", 1 },
    { "a", 0 },
    { "b", 0 },
    { "request", "invalid" },   -- not the full text of a choice, not a letter
  },
}

question {
  id = "parallelism.layers-split",
  kind = "text",
  title = "Layers on different GPUs",
  prompt = [[
A 48-layer model does not fit on one GPU, so layers 1-12 go to GPU 0, 13-24
to GPU 1, and so on; micro-batches flow from GPU to GPU. What is this form of
model parallelism called? (Two words.)]],
  topics = { "parallelism", "model-parallel", "pipelining" },
  hints = { "Each GPU is one stage that hands its output to the next." },
  answer = { "pipeline parallelism", "pipeline parallel", "pipeline" },
  patterns = { "^pipelin%w*%s*%-?%s*parallel" },
  examples = {
    { "pipeline parallelism", 1 },
    { "Pipeline-parallelism.", 1 },
    { "tensor parallelism", 0 },
    { "data parallelism", 0 },
    { "", "invalid" },
  },
}

question {
  id = "parallelism.request-throughput",
  kind = "numeric",
  title = "Throughput from independent workers (your numbers)",
  prompt = [[
An inference service runs {w} independent workers. Each worker handles one
request at a time and takes {lat} ms per request. With enough incoming
requests, what is the service's maximum throughput in requests per second?
Give three significant figures.]],
  topics = { "request-parallel", "throughput" },
  rubric = { "theory.parallel", "practice.deployment" },
  hints = {
    "One worker finishes 1000 / {lat} requests per second.",
    "Independent workers add up.",
  },
  params = function(rng)
    return { w = rng:pick({ 4, 6, 8, 12, 16, 24 }), lat = rng:pick({ 20, 25, 40, 50, 80, 125 }) }
  end,
  answer = function(p) return p.w * 1000 / p.lat end,
  wrong = {
    { value = function(p) return 1000 / p.lat end,
      feedback = "That is one worker's throughput. The workers serve different requests at the same time: multiply by their number." },
    { value = function(p) return p.w / p.lat end,
      feedback = "That is requests per millisecond. The question asks per second: multiply by 1000." },
    { value = function(p) return 1000 / (p.w * p.lat) end,
      feedback = "More workers raise throughput; they do not make it smaller." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring(p.w * 1000 / p.lat) end, score = 1 },
    { answer = function(p) return string.format("%.3f", p.w * 1000 / p.lat * 1.05) end, score = 0 },
    { answer = function(p) return tostring(1000 / p.lat) end, score = 0 },
    { params = { w = 8, lat = 40 }, answer = "200", score = 1 },
    { params = { w = 8, lat = 40 }, answer = "25", score = 0 },     -- one worker
    { params = { w = 8, lat = 40 }, answer = "0.2", score = 0 },    -- per ms
    { "two hundred", "invalid" },
  },
}

question {
  id = "parallelism.dp-step",
  kind = "numeric",
  title = "Data-parallel training throughput (your numbers)",
  prompt = [[
A global batch of {B} samples is split evenly over {p} GPUs. A GPU needs
{t} ms of compute per sample, and after the compute the gradient exchange
takes {c} ms, during which no GPU computes. How many samples per second does
the whole job process?
Give three significant figures.]],
  topics = { "data-parallel", "throughput" },
  hints = {
    "Step time = (samples per GPU) x (time per sample) + exchange time.",
    "Throughput = samples per step / step time, in seconds.",
  },
  params = function(rng)
    local p = rng:pick({ 4, 8, 16 })
    return { B = p * rng:pick({ 32, 64, 128 }), p = p, t = rng:pick({ 0.5, 1, 2 }), c = rng:int(10, 60) }
  end,
  answer = function(p)
    local step = p.B / p.p * p.t + p.c
    return p.B / step * 1000
  end,
  wrong = {
    { value = function(p) return p.B / (p.B / p.p * p.t) * 1000 end,
      feedback = "That leaves out the gradient exchange, which stalls every GPU once per step." },
    { value = function(p) return p.B / (p.B * p.t + p.c) * 1000 end,
      feedback = "Each GPU only processes its own B/p samples per step; the GPUs compute at the same time." },
    { value = function(p) return p.B / p.p / (p.B / p.p * p.t + p.c) * 1000 end,
      feedback = "That is one GPU's share. All p GPUs finish a step together: the whole batch B is done per step." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", p.B / (p.B / p.p * p.t + p.c) * 1000) end, score = 1 },
    { answer = function(p) return string.format("%.4f", p.B / (p.B / p.p * p.t) * 1000) end, score = 0 },
    { answer = function(p) return string.format("%.4f", 0.95 * p.B / (p.B / p.p * p.t + p.c) * 1000) end, score = 0 },
    -- 256 samples on 8 GPUs, 1 ms each, 32 ms exchange: 256 / 64 ms = 4000/s
    { params = { B = 256, p = 8, t = 1, c = 32 }, answer = "4000", score = 1 },
    { params = { B = 256, p = 8, t = 1, c = 32 }, answer = "8000", score = 0 },   -- no exchange
    { "4000 ms", "invalid" },   -- a rate is not a time
  },
}

------------------------------------------------------------------------------
page [==[
# Shared and distributed memory

Where the data lives decides how workers exchange it.

```
  SHARED MEMORY                         DISTRIBUTED MEMORY

  P1    P2    P3    P4                  P1      P2      P3      P4
   |     |     |     |                   |       |       |       |
  +-----------------------+             Mem     Mem     Mem     Mem
  |  one address space:   |              |       |       |       |
  |  every P loads and    |             +-------------------------+
  |  stores every byte    |             |   network: messages     |
  +-----------------------+             +-------------------------+
```

|              | shared memory              | distributed memory         |
|--------------|----------------------------|----------------------------|
| exchange by  | ordinary loads and stores  | sending messages           |
| one exchange | nanoseconds (cache, DRAM)  | microseconds in one data   |
|              |                            | centre; ms over a WAN      |
| scale        | one machine: tens to a few | thousands of machines      |
|              | hundred cores              |                            |
| programming  | threads: pthreads, OpenMP; | message passing: MPI, NCCL |
|              | CUDA inside one GPU        | collectives, RPC           |
| goes wrong   | races, cache contention,   | bandwidth, latency,        |
|              | false sharing              | stragglers, failures       |

Shared memory is fast and convenient but stops at the size of one machine.
Distributed memory scales, but every exchange costs a message, and a message
costs a fixed **latency** plus its **size divided by the bandwidth**:

```
t(message) = alpha + n / beta

alpha: latency (per message)      n: bytes      beta: bandwidth (bytes/s)
```

Mind the bits: network links are quoted in **bits** per second. 1 Gbps is
125 MB/s, so a 40 MB message needs 40 / 125 = 0.32 s on it, not 0.04 s.

Real ML clusters are both at once: inside a node, GPUs share a fast
interconnect (NVLink, about 900 GB/s per H100 counting both directions,
450 GB/s each way; or PCIe 5.0 at about 64 GB/s each way between CPU and
GPU); between nodes, messages cross InfiniBand or Ethernet.
The course's "distributed memory is slow (ms)" is the pessimistic end of the
range: inside one data centre a small message takes microseconds: still
tens to hundreds of times a DRAM access, and thousands of times an L1 hit.

## False sharing

Caches move memory in **lines** (64 bytes on most CPUs). If two threads
write two *different* variables that happen to sit in the *same* line, each
write invalidates the other core's copy, and the line bounces between the
cores although no data is shared. The fix is layout: pad or align per-thread
data to separate lines, or accumulate in a local variable and write once.
]==]

calculator {
  id = "parallelism.message",
  title = "Time to send a message",
  inputs = {
    { name = "mb", label = "message size", default = 40, min = 0, max = 1e9, unit = "MB" },
    { name = "gbps", label = "link bandwidth", default = 1, min = 0.001, max = 1e6, unit = "Gbps" },
    { name = "alpha", label = "latency per message", default = 50, min = 0, max = 1e9, unit = "us" },
  },
  compute = function(v)
    local bytes_per_s = v.gbps * 125e6
    local transfer = v.mb * 1e6 / bytes_per_s
    return {
      { label = "bandwidth in bytes", value = bytes_per_s, unit = "B/s" },
      { label = "transfer (size / bandwidth)", value = transfer, unit = "s" },
      { label = "total (latency + transfer)", value = v.alpha * 1e-6 + transfer, unit = "s" },
    }
  end,
  examples = {
    { inputs = { mb = 40, gbps = 1, alpha = 50 }, outputs = { 125e6, 0.32, 0.32005 } },
  },
}

question {
  id = "parallelism.memory-models",
  kind = "multi",
  title = "Shared versus distributed memory",
  prompt = "Which of these statements are true? Pick all that apply.",
  points = 2,
  topics = { "memory-models" },
  hints = { "Three of the five are true." },
  choices = {
    "In a shared-memory machine, one thread can read another thread's result with an ordinary load.",
    "Distributed-memory programs exchange data by sending messages over a network.",
    "Shared memory scales to thousands of machines more easily than distributed memory.",
    "A message of n bytes costs roughly a fixed latency plus n divided by the bandwidth.",
    "Inside one data centre, a network message is about as fast as a DRAM access.",
  },
  answer = { 1, 2, 4 },
  why = {
    [3] = "It is the other way round: shared memory ends at the size of one machine; distributed memory is what scales out.",
    [5] = "A DRAM access takes about 100 ns; even a fast data-centre message takes microseconds, tens to thousands of times longer.",
  },
  examples = {
    { "a b d", 1 },
    { "a b", 2 / 3 },
    { "a b c d e", 1 / 3 },   -- (3 - 2) / 3
    { "c e", 0 },
    { "a q", "invalid" },
  },
}

question {
  id = "parallelism.false-sharing",
  kind = "choice",
  title = "Two counters, one cache line",
  prompt = [[
Two threads on different cores each increment their own counter a hundred
million times. The counters are adjacent 8-byte integers in one array. The
program runs much slower with two threads than with one. What is the most
likely cause?]],
  topics = { "memory-models", "false-sharing" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = { "How big is a cache line, and where do the two counters sit?" },
  choices = {
    "A data race: the threads overwrite each other's counter.",
    "False sharing: both counters sit in one cache line, which bounces between the cores on every write.",
    "Amdahl's law: incrementing a counter is serial work.",
    "The network between the cores is too slow.",
  },
  answer = 2,
  why = {
    [1] = "Each thread writes only its own counter, so there is no race on the values; the cost is in the hardware's cache-line ownership.",
    [3] = "The two increments are independent and could run in parallel; the slowdown comes from where the counters are stored.",
    [4] = "Cores of one machine share memory; there is no network between them.",
  },
  examples = {
    { "b", 1 },
    { "B", 1 },
    { "a", 0 },
    { "c", 0 },
    { "false sharing", "invalid" },   -- not the whole text of a choice
  },
}

question {
  id = "parallelism.message-time",
  kind = "numeric",
  title = "Time to send one message (your numbers)",
  prompt = [[
A worker sends {mb} MB of gradients to another machine over a {gbps} Gbps
link with a latency of {alpha_us} µs (microseconds). Using
time = latency + size / bandwidth, how long does the message take, in ms?
Give three significant figures.]],
  unit = "ms",
  topics = { "memory-models", "communication" },
  hints = {
    "Message time is a latency plus the size over the bandwidth: put both in the same units.",
    "A link of {gbps} Gbps moves {gbps} x 125 MB per second.",
    "Convert the latency to ms too: {alpha_us} us = {alpha_us} / 1000 ms.",
  },
  params = function(rng)
    -- The course's sizes, links (200 Gbps is the guide's 25 GB/s) and
    -- latencies (1 µs in the guide's all-reduce example), drawn until the
    -- slip of adding µs as ms moves the answer by more than the tolerance.
    local p
    repeat
      p = { mb = rng:pick({ 4, 16, 40, 100, 400 }), gbps = rng:pick({ 1, 10, 25, 100, 200 }),
            alpha_us = rng:pick({ 1, 5, 20, 50 }) }
    until p.alpha_us >= 0.03 * (p.mb / (p.gbps * 125) * 1000)
    return p
  end,
  answer = function(p) return p.alpha_us / 1000 + p.mb / (p.gbps * 125) * 1000 end,
  wrong = {
    { value = function(p) return p.alpha_us / 1000 + p.mb / (p.gbps * 1000) * 1000 end,
      feedback = "You read Gbps as gigabytes per second. Links are quoted in bits: 1 Gbps = 125 MB/s, 8 times less." },
    { value = function(p) return p.alpha_us + p.mb / (p.gbps * 125) * 1000 end,
      feedback = "The latency is in microseconds: divide it by 1000 before adding it to a time in ms." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", p.alpha_us / 1000 + p.mb / (p.gbps * 125) * 1000) end, score = 1 },
    { answer = function(p) return string.format("%.5g ms", p.alpha_us / 1000 + p.mb / (p.gbps * 125) * 1000) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.1 * (p.alpha_us / 1000 + p.mb / (p.gbps * 125) * 1000)) end, score = 0 },
    -- 40 MB over 1 Gbps: 320 ms of transfer (the course's number) plus 0.05 ms.
    { params = { mb = 40, gbps = 1, alpha_us = 50 }, answer = "320.05", score = 1 },
    { params = { mb = 40, gbps = 1, alpha_us = 50 }, answer = "0.32 s", score = 1 },
    { params = { mb = 40, gbps = 1, alpha_us = 50 }, answer = "40", score = 0 },   -- bytes for bits
    { "320 MB", "invalid" },
    -- The guide's all-reduce numbers: 100 MB at 25 GB/s (200 Gbps), 1 µs.
    { params = { mb = 100, gbps = 200, alpha_us = 1 }, answer = "4.001", score = 1 },
    { params = { mb = 100, gbps = 200, alpha_us = 1 }, answer = "5", score = 0 },
    -- The crash course's 40 MB model over 1 Gbps: 320 ms.
    { params = { mb = 40, gbps = 1, alpha_us = 20 }, answer = "320.02", score = 1 },
  },
}

------------------------------------------------------------------------------
page [==[
# Pipelining: throughput versus latency

Two words that are easy to mix up:

- **Latency**: the time one request (one item, one batch) takes, from the
  moment its input arrives to the moment its output is ready. Unit: seconds.
- **Throughput**: how many requests finish per unit of time. Unit:
  requests (items, samples, tokens) per second.

A **pipeline** splits a task into stages and lets different stages work on
different items at the same time: while stage 2 handles item 1, stage 1
already starts item 2. Four stages of 4, 6, 10 and 5 ms:

```
ms        0    5    10   15   20   25   30   35   40   45
          |    |    |    |    |    |    |    |    |    |
stage 1   111122223333
stage 2       111111222222333333
stage 3             111111111122222222223333333333
stage 4                       11111     22222     33333
                                   ^ item 1  ^ 2       ^ 3 done
```

(each character is 1 ms; the digit is the item a stage is working on)

- **Latency** of one item is still the sum of its stages: 4 + 6 + 10 + 5 =
  **25 ms**. Pipelining does not make one item faster (in practice handing
  items between stages adds a little).
- **Throughput** is set by the slowest stage: once the pipeline is full, one
  item leaves every 10 ms, **100 items per second**; without a pipeline, one
  item per 25 ms, 40 per second.
- **N items** take the first item's latency plus one slowest-stage time per
  further item: 25 + (N − 1) × 10 ms. For 100 items: 1015 ms instead of
  100 × 25 = 2500 ms.

To speed a pipeline up, shorten (or duplicate) its **slowest stage**; making
a fast stage faster changes nothing.

## In hardware and in ML

A processor pipelines instructions: fetch, decode, load operands, execute,
store. With one cycle per stage, a new instruction can finish every cycle
(ideal CPI = 1) even though each one still takes five cycles from fetch to
store. N instructions need 5 + (N − 1) cycles.

An ML input pipeline is the same idea in software: *load -> preprocess ->
compute -> postprocess*. With prefetching, the loader prepares batch k + 1
while the GPU trains on batch k, and a step takes about

```
t_step = max(t_data, t_gpu) + synchronisation overhead
```

instead of t_data + t_gpu. If t_data > t_gpu the GPU waits for data (it is
*input-bound*): more loader workers, faster storage or cheaper preprocessing
help; a faster GPU does not.

## Latency, throughput and requests in flight

For any system in a steady state, **mean requests in flight = throughput ×
mean latency** (Little's law). A server finishing 500 requests/s with 20 ms
mean latency has 500 × 0.020 = 10 requests in progress on average (more in a
burst, fewer in a lull). Batching
raises throughput by keeping more requests in flight, which is why it
usually raises latency too.
]==]

calculator {
  id = "parallelism.pipeline",
  title = "Pipeline: latency and throughput",
  inputs = {
    { name = "a", label = "stage 1 time", default = 4, min = 0.001, max = 1e6, unit = "ms" },
    { name = "b", label = "stage 2 time", default = 6, min = 0.001, max = 1e6, unit = "ms" },
    { name = "c", label = "stage 3 time", default = 10, min = 0.001, max = 1e6, unit = "ms" },
    { name = "d", label = "stage 4 time", default = 5, min = 0.001, max = 1e6, unit = "ms",
      help = "set a stage to 0.001 to leave it out" },
    { name = "n", label = "items", default = 100, min = 1, max = 1e9, integer = true },
  },
  compute = function(v)
    local s, m = sum_max({ v.a, v.b, v.c, v.d })
    local piped = s + (v.n - 1) * m
    -- A timeline of the first three items, about 50 characters wide.
    local t = { v.a, v.b, v.c, v.d }
    local unit = (s + 2 * m) / 50
    local rows, free = {}, { 0, 0, 0, 0 }
    local done = {}
    for item = 1, math.min(v.n, 3) do
      local ready = 0
      for st = 1, 4 do
        local start = math.max(ready, free[st])
        free[st] = start + t[st]
        ready = free[st]
        rows[st] = rows[st] or {}
        rows[st][#rows[st] + 1] = { start, ready, item }
      end
      done[item] = ready
    end
    local lines = {}
    for st = 1, 4 do
      local line = {}
      for _, seg in ipairs(rows[st]) do
        local from, to = math.floor(seg[1] / unit + 0.5), math.floor(seg[2] / unit + 0.5)
        while #line < from do line[#line + 1] = " " end
        for _ = from + 1, math.max(to, from + 1) do line[#line + 1] = tostring(seg[3]) end
      end
      lines[#lines + 1] = string.format("stage %d |%s", st, table.concat(line))
    end
    lines[#lines + 1] = string.format("(one character = %.3g ms; digits are items)", unit)
    return {
      { label = "latency of one item", value = s / 1000, unit = "s" },
      { label = "throughput, pipeline full", value = 1000 / m, unit = "items/s" },
      { label = "time for all items, pipelined", value = piped / 1000, unit = "s" },
      { label = "time for all items, one at a time", value = v.n * s / 1000, unit = "s" },
      { label = "gain from pipelining", value = v.n * s / piped, unit = "x" },
      { label = "first items", text = table.concat(lines, "\n") },
    }
  end,
  examples = {
    { inputs = { a = 4, b = 6, c = 10, d = 5, n = 100 }, outputs = { 0.025, 100, 1.015, 2.5, 2500 / 1015 } },
    { inputs = { a = 1, b = 1, c = 1, d = 1, n = 1 }, outputs = { 0.004, 1000, 0.004, 0.004, 1 } },
  },
}

question {
  id = "parallelism.pipeline-statements",
  kind = "multi",
  title = "What pipelining does",
  prompt = "Which of these statements about pipelining are true? Pick all that apply.",
  points = 2,
  topics = { "pipelining", "latency", "throughput" },
  hints = { "Think of one item going through all stages, then of many items." },
  choices = {
    "Pipelining raises throughput by overlapping the stages of different items.",
    "Pipelining shortens the latency of a single item.",
    "Once the pipeline is full, its throughput is set by its slowest stage.",
    "Speeding up the fastest stage raises the throughput of a full pipeline.",
    "Throughput is measured in items per unit time; latency in units of time.",
  },
  answer = { 1, 3, 5 },
  why = {
    [2] = "One item still passes through every stage in turn: its latency is the sum of the stage times (or a little more).",
    [4] = "The slowest stage sets the pace; shortening any other stage only makes it wait longer.",
  },
  examples = {
    { "a c e", 1 },
    { "a, c and e", 1 },
    { "a c", 2 / 3 },
    { "a b c d e", 1 / 3 },
    { "b d", 0 },
    { "", "invalid" },
  },
}

question {
  id = "parallelism.pipeline-latency",
  kind = "numeric",
  title = "Latency of one item (your numbers)",
  prompt = [[
An inference pipeline has four stages that take {a}, {b}, {c} and {d} ms
per request (load, preprocess, infer, postprocess). The stages run
concurrently on different requests. What is the latency of one request, in ms?
Give three significant figures.]],
  unit = "ms",
  topics = { "pipelining", "latency" },
  hints = { "A single request still passes through every stage, one after the other." },
  params = four_stages,
  answer = function(p) return (sum_max(stages_of(p))) end,
  wrong = {
    { value = function(p) local _, m = sum_max(stages_of(p)); return m end,
      feedback = "The slowest stage sets the throughput (one request leaves every max ms). One request's latency is the sum of all stages." },
    { value = function(p) return (sum_max(stages_of(p))) / 4 end,
      feedback = "Pipelining does not divide one request's time by the number of stages: it still passes through every stage." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring(p.a + p.b + p.c + p.d) end, score = 1 },
    { answer = function(p) return tostring(p.a + p.b + p.c + p.d + 1) end, score = 0 },
    { answer = function(p) return tostring(math.max(p.a, p.b, p.c, p.d)) end, score = 0 },
    { params = { a = 4, b = 6, c = 10, d = 5 }, answer = "25", score = 1 },
    { params = { a = 4, b = 6, c = 10, d = 5 }, answer = "10", score = 0 },
    { "25 GB", "invalid" },
  },
}

question {
  id = "parallelism.pipeline-throughput",
  kind = "numeric",
  title = "Throughput of a full pipeline (your numbers)",
  prompt = [[
The same kind of pipeline, with stages of {a}, {b}, {c} and {d} ms running
concurrently. Once it is full, how many requests per second does it finish?
Give three significant figures.]],
  topics = { "pipelining", "throughput" },
  hints = {
    "Every stage can only pass on one request per its own stage time.",
    "The slowest stage, {c} ms or another, decides.",
  },
  params = four_stages,
  answer = function(p) local _, m = sum_max(stages_of(p)); return 1000 / m end,
  wrong = {
    { value = function(p) return 1000 / (sum_max(stages_of(p))) end,
      feedback = "That is the throughput without pipelining (one request per total latency). With the stages overlapped, the slowest stage sets the pace." },
    { value = function(p) local _, m = sum_max(stages_of(p)); return 1 / m end,
      feedback = "That is per millisecond; the question asks per second." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 1000 / math.max(p.a, p.b, p.c, p.d)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1000 / (p.a + p.b + p.c + p.d)) end, score = 0 },
    { answer = function(p) return string.format("%.4f", 1.03 * 1000 / math.max(p.a, p.b, p.c, p.d)) end, score = 0 },
    { params = { a = 4, b = 6, c = 10, d = 5 }, answer = "100", score = 1 },
    { params = { a = 4, b = 6, c = 10, d = 5 }, answer = "40", score = 0 },   -- not pipelined
    { "lots", "invalid" },
  },
}

question {
  id = "parallelism.pipeline-batch",
  kind = "numeric",
  title = "Time for many items (your numbers)",
  prompt = [[
A four-stage pipeline with stages of {a}, {b}, {c} and {d} ms starts empty
and processes {n} items. How long until the last item leaves, in ms?
Give three significant figures.]],
  unit = "ms",
  topics = { "pipelining", "throughput", "latency" },
  hints = {
    "The first item needs the full latency (sum of the stages).",
    "After it, one more item leaves every slowest-stage time.",
  },
  params = function(rng)
    -- Not when the pipeline's fill time is under 2% of the total: n times
    -- the slowest stage (a common mistake) would be graded right.
    local p, s, m
    repeat
      p = four_stages(rng)
      p.n = rng:pick({ 20, 50, 100, 500 })
      s, m = sum_max(stages_of(p))
    until s - m > 0.02 * (s + (p.n - 1) * m)
    return p
  end,
  answer = function(p)
    local s, m = sum_max(stages_of(p))
    return s + (p.n - 1) * m
  end,
  wrong = {
    { value = function(p) return p.n * (sum_max(stages_of(p))) end,
      feedback = "That is the time without pipelining. With it, after the first item one item leaves every slowest-stage time." },
    { value = function(p) local _, m = sum_max(stages_of(p)); return p.n * m end,
      feedback = "Almost: n items times the slowest stage forgets that the first item must fill the pipeline. Use latency + (n - 1) x slowest stage." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) local s, m = sum_max(stages_of(p)); return tostring(s + (p.n - 1) * m) end, score = 1 },
    { answer = function(p) return tostring(p.n * (p.a + p.b + p.c + p.d)) end, score = 0 },
    { params = { a = 4, b = 6, c = 10, d = 5, n = 100 }, answer = "1015", score = 1 },
    { params = { a = 4, b = 6, c = 10, d = 5, n = 100 }, answer = "1.015 s", score = 1 },
    { params = { a = 4, b = 6, c = 10, d = 5, n = 100 }, answer = "2500", score = 0 },
    { params = { a = 4, b = 6, c = 10, d = 5, n = 100 }, answer = "1000", score = 0 },
    { params = { a = 4, b = 6, c = 10, d = 5, n = 100 }, answer = "1040", score = 0 },   -- 2.5% off
    { "1015 items", "invalid" },
  },
}

question {
  id = "parallelism.cpu-pipeline",
  kind = "numeric",
  title = "An instruction pipeline (your numbers)",
  prompt = [[
A processor has a {k}-stage instruction pipeline, one cycle per stage, and
no stalls. How many cycles does it take to complete {n} instructions,
counting from the first fetch?
Give a whole number.]],
  topics = { "pipelining", "latency", "throughput" },
  hints = {
    "The first instruction takes {k} cycles to pass all stages.",
    "After that, one instruction completes per cycle (CPI = 1).",
  },
  params = function(rng)
    return { k = rng:pick({ 4, 5, 6, 8, 12 }), n = rng:pick({ 20, 50, 100, 1000 }) }
  end,
  answer = function(p) return p.k + p.n - 1 end,
  -- A whole number of cycles: off by one is a real mistake (forgetting the
  -- fill), so only exact answers count.
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return p.k * p.n end,
      feedback = "That is the unpipelined time. Pipelined, a new instruction completes every cycle once the pipeline is full." },
    { value = function(p) return p.n end,
      feedback = "n cycles forgets the pipeline fill: the first instruction needs k cycles." },
    { value = function(p) return p.k + p.n end,
      feedback = "Off by one: the first instruction completes at cycle k, then one per cycle for the remaining n - 1." },
  },
  examples = {
    { answer = function(p) return tostring(p.k + p.n - 1) end, score = 1 },
    { answer = function(p) return tostring(p.k + p.n) end, score = 0 },
    { answer = function(p) return tostring(p.k * p.n) end, score = 0 },
    { params = { k = 5, n = 100 }, answer = "104", score = 1 },
    { params = { k = 5, n = 100 }, answer = "500", score = 0 },
    { params = { k = 5, n = 100 }, answer = "106", score = 0 },   -- within 2%, still wrong
    { "104 s", "invalid" },   -- cycles are a plain count
  },
}

question {
  id = "parallelism.prefetch",
  kind = "numeric",
  title = "What prefetching buys (your numbers)",
  prompt = [[
Loading and preprocessing a batch takes {tdata} ms on the CPU; the training
step on the GPU takes {tgpu} ms. Today the two run one after the other. With
prefetching they overlap (ignore synchronisation overhead). By what factor
does the time per step drop?
Give three significant figures.]],
  unit = "x",
  topics = { "pipelining", "data-loading" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "Without overlap: t_data + t_gpu. With overlap: max(t_data, t_gpu).",
  },
  params = function(rng)
    -- One part 10-40 ms, the other 50-90 ms, in either order: the factor
    -- stays between 1.1 and 1.8, well away from the wrong value 2.
    local short, long = rng:int(10, 40), rng:int(50, 90)
    if rng:int(0, 1) == 0 then return { tdata = short, tgpu = long } end
    return { tdata = long, tgpu = short }
  end,
  answer = function(p) return (p.tdata + p.tgpu) / math.max(p.tdata, p.tgpu) end,
  wrong = {
    { value = 2, feedback = "Overlap gives 2x only when both parts take equally long. Divide t_data + t_gpu by the LONGER of the two." },
    { value = function(p) return (p.tdata + p.tgpu) / math.min(p.tdata, p.tgpu) end,
      feedback = "The overlapped step lasts as long as the SLOWER part, not the faster one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", (p.tdata + p.tgpu) / math.max(p.tdata, p.tgpu)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.05 * (p.tdata + p.tgpu) / math.max(p.tdata, p.tgpu)) end, score = 0 },
    { params = { tdata = 30, tgpu = 50 }, answer = "1.6", score = 1 },
    { params = { tdata = 30, tgpu = 50 }, answer = "80/50", score = 1 },
    { params = { tdata = 30, tgpu = 50 }, answer = "2.67", score = 0 },   -- divided by the faster part
    { params = { tdata = 30, tgpu = 50 }, answer = "2", score = 0 },
    { "1.6 ms", "invalid" },
  },
}

question {
  id = "parallelism.in-flight",
  kind = "numeric",
  title = "Requests in flight (your numbers)",
  prompt = [[
A serving system finishes {x} requests per second at an average latency of
{lat} ms. On average, how many requests are in progress at any moment?
Give three significant figures.]],
  topics = { "latency", "throughput", "serving" },
  rubric = { "theory.parallel", "practice.deployment" },
  hints = { "Requests in flight = throughput x latency (Little's law), in matching units." },
  params = function(rng)
    return { x = rng:pick({ 200, 500, 800, 1000, 2500 }), lat = rng:pick({ 8, 20, 40, 60, 150 }) }
  end,
  answer = function(p) return p.x * p.lat / 1000 end,
  wrong = {
    { value = function(p) return p.x * p.lat end,
      feedback = "Mixed units: the throughput is per second, the latency in ms. Convert the latency to seconds first." },
    { value = function(p) return p.x / p.lat end,
      feedback = "Multiply throughput by latency; dividing them has no meaning here." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", p.x * p.lat / 1000) end, score = 1 },
    { answer = function(p) return string.format("%.4g", 1.2 * p.x * p.lat / 1000) end, score = 0 },
    { params = { x = 500, lat = 20 }, answer = "10", score = 1 },
    { params = { x = 500, lat = 20 }, answer = "10000", score = 0 },
    { params = { x = 500, lat = 20 }, answer = "25", score = 0 },
    { params = { x = 500, lat = 20 }, answer = "11", score = 0 },   -- 10% off
    { "ten", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Putting it together: a training and serving system

ML systems combine all three kinds, and both memory models, in one design.

```
 TRAINING: data parallel                    SERVING: request parallel
 +--------------------------------+         +-------------------------+
 | node 1: GPU GPU GPU GPU        |         |      load balancer      |
 |   NVLink inside: shared memory |         |     /      |      \     |
 +---------------+----------------+         |  rep 1   rep 2   rep 3  |
                 | all-reduce:              |  (independent requests) |
                 | messages over            +-------------------------+
                 | InfiniBand/Ethernet
 +---------------+----------------+
 | node 2: GPU GPU GPU GPU        |   each GPU is fed by an input
 +--------------------------------+   pipeline (task parallel):
                                      read -> decode -> augment -> train
```

The cost of ML work has two faces, and the parallelism serves different goals
in each:

- **Training** costs compute, memory and communication. Data parallelism
  divides the compute; what limits it is the communication to combine the
  gradients (Amdahl's serial part, lesson 1) and the input pipeline that has
  to keep every GPU fed.
- **Inference** is judged by latency, throughput and energy. Request
  parallelism (more replicas) raises throughput without touching latency;
  batching raises throughput further at some cost in latency; pipelining the
  pre- and post-processing keeps the accelerator busy.

A good design names, for each part of the system, which kind of parallelism
it uses, where its data lives, and what limits it.
]==]

question {
  id = "parallelism.system-design",
  kind = "design",
  title = "Parallelise a training and serving system",
  prompt = [[
A team trains an image classifier on 50 million images with 4 machines of 8
GPUs each, then serves it to up to 20,000 requests per second. In a short
paragraph: which kinds of parallelism would you use where, how do the GPUs
and machines exchange data, and what would limit each part?]],
  points = 4,
  topics = { "parallelism", "memory-models", "pipelining", "serving" },
  rubric = { "theory.parallel", "practice.design" },
  hints = {
    "Name a kind of parallelism for training, for the input pipeline and for serving.",
    "Inside a machine and between machines, data moves differently.",
  },
  concepts = {
    { name = "data parallel training", points = 2,
      claims = {
        { relation = { "use*", "train*", "run*", "is", "are", "split*", "shard*", "parallel*", "go*" },
          object = { "data parallel*", "data-parallel", "spmd", "the data", "the batch*", "each batch",
                     "every batch" } },
        { subject = { "training", "each gpu", "every gpu", "each of the", "gpu*", "it" },
          relation = { "is", "hold*", "keep*", "process*", "get*", "hav*", "run*", "train*" },
          object = { "data parallel*", "data-parallel", "copy of the model", "copy", "replica of the model",
                     "own shard", "shard", "its own", "share of each batch", "part of each batch",
                     "slice" } },
      },
      feedback = "Train data-parallel: every GPU holds the model and processes its own share of each batch." },
    { name = "gradient exchange", points = 2,
      claims = {
        { subject = { "gradient*", "it", "they", "weights", "updates" },
          relation = { "averag*", "combin*", "sum*", "reduc*", "exchang*", "sync*", "shar*", "sent",
                       "aggregat*", "all-reduc*", "allreduc*" },
          object = { "all-reduce", "allreduce", "all reduce", "nccl", "parameter server", "ring",
                     "each step", "every step", "after" } },
        { relation = { "averag*", "combin*", "sum*", "exchang*", "sync*", "all-reduc*", "allreduc*",
                       "use*", "run*", "do*" },
          object = { "gradient*", "all-reduce", "allreduce", "all reduce", "nccl", "parameter server" } },
        { subject = { "gradient*" },
          relation = { "averaged", "combined", "summed", "all-reduced", "allreduced", "exchanged",
                       "synchronised", "synchronized" } },
      },
      feedback = "Say how the gradients are combined: an all-reduce (NCCL) or a parameter server." },
    { name = "shared vs distributed memory", points = 1,
      claims = {
        { subject = { "gpu*", "nvlink", "eight gpus", "8 gpus", "machine*", "node*", "network", "it",
                      "all-reduce", "infiniband", "this", "which" },
          relation = { "talk*", "link*", "connect*", "communicat*", "use*", "is", "are", "becom*",
                       "go*", "run*", "share*", "send*", "cross*", "travel*", "behav*", "act*" },
          object = { "nvlink", "infiniband", "shared memory", "distributed memory", "message passing",
                     "messages", "network", "between machines", "between nodes", "inside a machine",
                     "inside a node", "nodes", "ethernet" } },
        { relation = { "use*", "connect*", "link*" },
          object = { "nvlink", "infiniband", "shared memory", "distributed memory", "message passing" } },
      },
      contradicts = {
        { match = { "behave the same", "are the same speed", "no difference between" },
          patterns = { "nvlink and infiniband %a* ?%a* ?same" },
          feedback = "You treated the links alike: NVLink inside a machine is an order of magnitude faster than the network between machines." },
      },
      feedback = "Distinguish the fast links inside a machine (NVLink, shared memory) from the network between machines (messages)." },
    { name = "input pipeline", points = 1,
      claims = {
        { relation = { "prefetch*", "pipelin*", "overlap*", "load*", "decod*", "feed*", "fed", "read*",
                       "prepar*", "stream*" },
          object = { "pipeline", "prefetch*", "batches", "next batch*", "next image*", "input",
                     "data loader*", "dataloader*", "while the gpus", "compute", "augment*", "images",
                     "data" } },
        { relation = { "use*", "add*", "build*", "run*" },
          object = { "input pipeline", "pipeline", "prefetch*", "data loader*", "dataloader*" } },
        { subject = { "data loader", "dataloader", "input pipeline", "pipeline", "loader", "it" },
          relation = { "prefetch*", "decod*", "overlap*", "load*", "feed*", "keep*", "prepar*", "read*" },
          object = { "batches", "images", "gpus", "input", "next", "data" } },
        { subject = { "gpu*", "each gpu" }, relation = { "fed", "is", "are", "never wait*" },
          object = { "input pipeline", "pipeline", "prefetch*", "data loader*" } },
        -- "An input pipeline with prefetching decodes and augments ...": the
        -- grammar finds no full linkage there; the subject alone names it
        { subject = { "input pipeline", "data loader" },
          relation = { "decod*", "prefetch*", "overlap*", "load*", "feed*", "prepar*" } },
      },
      feedback = "Pipeline the input (read, decode, augment) with the GPU work so data loading overlaps with compute." },
    { name = "request parallel serving", points = 2,
      claims = {
        { relation = { "use*", "serv*", "spread*", "distribut*", "rout*", "balanc*", "send*", "run*", "is",
                       "scal*", "add*" },
          object = { "request parallel*", "replica*", "load balancer", "independent requests",
                     "many copies", "copies of the model" } },
        { subject = { "serving", "inference", "requests", "independent requests", "load balancer",
                      "each request", "throughput" },
          relation = { "is", "uses", "use", "spread*", "distribut*", "rout*", "go*", "sent", "grow*",
                       "scal*", "balanc*" },
          object = { "request parallel*", "replica*", "load balancer", "copies" } },
      },
      contradicts = {
        { match = { "one big replica", "a single replica", "one replica" },
          feedback = "You served from one replica: 20,000 requests per second need many independent replicas behind a load balancer." },
      },
      feedback = "Serve with request parallelism: many independent replicas behind a load balancer." },
    { name = "what limits it", points = 2,
      claims = {
        { subject = { "communication", "bandwidth", "all-reduce", "stragglers", "training", "serving",
                      "it", "that", "this", "what", "network", "scaling", "latency", "batching" },
          relation = { "limit*", "bound*", "is", "are", "cap*", "dominat*", "slow*", "trad*", "hurt*",
                       "cost*" },
          object = { "communication", "bandwidth", "latency", "throughput", "bottleneck", "amdahl",
                     "straggler*", "serial part", "limit*", "scaling", "trade-off" } },
        { relation = { "limit*", "bound*", "cap*", "dominat*" },
          object = { "scaling", "training", "serving", "speedup", "throughput", "latency" } },
      },
      contradicts = {
        { match = { "scales perfectly", "nothing limits", "no limit", "scales linearly" },
          feedback = "You said nothing limits it: gradient communication (and stragglers) limit training, latency against throughput limits serving." },
      },
      feedback = "Name the limits: gradient communication (bandwidth, stragglers) in training, the latency/throughput trade-off of batching in serving." },
  },
  model = [[
Training is data parallel: each of the 32 GPUs holds a copy of the model and
processes its shard of every batch. Gradients are averaged with an all-reduce
(NCCL): inside a machine over NVLink, which behaves like shared memory, and
between the 4 machines as messages over InfiniBand, which is where the
bandwidth limit and stragglers bite; this communication is the serial part
that limits scaling (Amdahl). Each GPU is fed by an input pipeline (read,
decode, augment) with prefetching, so data loading overlaps with compute.
Serving is request parallel: independent requests are spread by a load
balancer over many model replicas; throughput grows with replicas, and
batching trades latency for throughput.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    -- tol 0.1: the grammar finds no full linkage for "An input pipeline with
    -- prefetching decodes and augments the next images while the GPUs
    -- compute", so the reader misses the input pipeline (issue 24)
    { role = "good", score = 1, tol = 0.1, answer = [[
Training is data parallel: each of the 32 GPUs holds a copy of the
classifier and processes its own shard of every batch. After the backward
pass the gradients are averaged with an all-reduce (NCCL). Inside a machine
the eight GPUs talk over NVLink, almost like shared memory, while between
the four machines the all-reduce becomes messages over InfiniBand, and that
communication is what limits scaling. An input pipeline with prefetching
decodes and augments the next images while the GPUs compute. For serving,
the independent requests are spread by a load balancer over many replicas of
the model; throughput grows with the replicas, and batching trades latency
for throughput.]] },
    -- tol 0.2: nor for "Inference uses request parallelism with replicas
    -- behind a load balancer" (request parallel serving missed)
    { role = "good", score = 1, tol = 0.2, answer = [[
I would use data parallelism for training, with the gradients combined by an
all-reduce; NVLink links the GPUs inside a node and the network links the
nodes, which is distributed memory with message passing. The data loader
prefetches batches so the GPUs never wait for input. Inference uses request
parallelism with replicas behind a load balancer. Training is limited by
communication bandwidth and stragglers, serving by the trade-off between
latency and throughput.]] },
    { role = "partial", score = 0.4, tol = 0.2, answer = [[
Use data parallelism and replicas.]] },
    { role = "partial", score = 0.5, tol = 0.2, answer = [[
The gradients are combined with an all-reduce, and the communication between
the machines limits the speedup.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
data parallelism, all-reduce, NCCL, NVLink, InfiniBand, prefetch, data
loader, replicas, load balancer, communication, bandwidth, latency]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Train the model on a single GPU, because data parallelism adds nothing; the
gradients never need to be exchanged between GPUs. NVLink and InfiniBand
behave the same, and the input pipeline is irrelevant. Serving 20,000
requests per second needs one big replica, not a load balancer, and nothing
limits either part: the system scales perfectly.]] },
  },
  examples = {
    { answer = [[
Data parallel training on all GPUs with an all-reduce of the gradients; NVLink
inside a node, InfiniBand between nodes. Prefetch data in a pipeline. Serve
with replicas behind a load balancer; communication bandwidth limits training
and latency limits serving.]],
      -- "Data parallel training on all GPUs with an all-reduce of the
      -- gradients; NVLink inside a node, InfiniBand between nodes" has no
      -- verb: the design reader credits no claim there (5 of 10)
      score = 0.5 },
    { "Use data parallelism and replicas.", 0.4 },   -- 2 + 2 of 10 points
    { "Buy more GPUs.", 0 },
    { "", "invalid" },
  },
}
