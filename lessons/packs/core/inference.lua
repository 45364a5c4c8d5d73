-- Lesson 8: Inference and compression.
--
-- Facts and worked examples come from the course material
-- (ml-system-optimization-notes.txt: latency and throughput, model
-- compression, PTQ vs QAT, structured vs unstructured pruning;
-- day5-summary-and-assessment.md: SNR = 6.02·b + 1.76 dB, latency and
-- throughput targets, "4-8x size reduction", the GPU table;
-- gpu-ml-training-inference-guide.md: quantization, pruning, distillation,
-- speculative decoding, LoRA, batching strategies, serving-time Amdahl); the
-- text is ours. Worked examples of the material are fixed-number questions
-- (*-worked).
--
-- Corrections taught here:
--   * "Bits saved = log2(original / quantized precision)": FP32 to INT8
--     saves 24 bits per value and makes the model 4x smaller; log2(32/8) = 2
--     only counts the halvings.
--   * SNR = 6.02·b + 1.76 dB holds for a full-scale sine wave; real weights
--     and activations (bell-shaped, with outliers) get less.
--   * The day-5 GPU table lists H100 FP16 at 1979 TFLOPS next to A100 at 312:
--     the H100 figure assumes 2:4 structured sparsity, the A100 one does not.
--     Dense H100 FP16 is about 989 TFLOPS (the guide's own table).
--   * Distillation: the soft loss compares softened probabilities
--     softmax(z/T), not the logits, and is scaled by T² (the guide omits it).
--   * LoRA: the guide's "ΔW ≈ A × Bᵀ with A ∈ R^(d×r), B ∈ R^(r×d)" does not
--     multiply; ΔW = B·A with B ∈ R^(d×r) and A ∈ R^(r×k).
--   * Unstructured sparsity s shrinks the parameter count by 1/(1 - s), but
--     stored with indices (CSR) the saving is smaller.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not. Prompts contain no braces except params placeholders.

lesson {
  id = "inference",
  title = "Inference and compression",
  topics = { "inference", "compression" },
  rubric = { "practice.deployment" },
}

local function num(x) return string.format("%.6g", x) end

-- Grades a number of decibels: "49.9" or "49.9 dB" (dB is not one of the
-- grader's units), by the course's rounding rule (amdahl.lua's first page:
-- within 1%, or the same three significant figures). `wrongs` is a list of
-- { value, feedback }. A value within 3% but outside the rule (the guide's
-- "49 dB" for 49.92) is told to give three figures.
local DB_TOL = { rel = 0.01, sig = 3 }
local function db_grade(answer, ref, wrongs)
  local text = answer:gsub("[dD][bB]%s*$", "")
  local v, why = wb.number(text, "")
  if not v then
    return { valid = false, feedback = "Give the SNR in dB, e.g. 37.9 or 37.9 dB (" .. (why or "not a number") .. ")." }
  end
  if wb.within(v, ref, DB_TOL) then
    return 1, "Right: " .. wb.sig(ref, 4) .. " dB."
  end
  for _, w in ipairs(wrongs) do
    if wb.within(v, w[1], DB_TOL) then return 0, w[2] end
  end
  if wb.within(v, ref, { rel = 0.03 }) then
    return 0, "Close, but more than 1% off: give three significant figures, and keep the 1.76 dB term."
  end
  return 0, "SNR ≈ 6.02 × bits + 1.76 dB."
end

------------------------------------------------------------------------------
page [[
# Latency and throughput

- **Latency**: the time from a request's arrival to its answer. Users feel
  it, and a service promises it as a **percentile**: "P99 < 50 ms" means 99
  requests in 100 are answered within 50 ms. Averages hide the slow tail.
- **Throughput**: requests (or tokens, or images) completed per second. The
  bill feels it: throughput per GPU sets how many GPUs you pay for.

The two pull apart. Batching and pipelining raise throughput and usually
raise each request's latency; cutting latency often leaves hardware idle.
Typical targets from the course: latency under 1 ms at the edge, under 10 ms
for cloud online serving, under 100 ms for batch jobs; above 1000 queries per
second per GPU for an optimised model.

## Little's law

In a stable system (as many requests leave as arrive, over the long run),
the *average* number of requests inside it equals the arrival rate times the
*average* time each one spends there:

```
mean requests in flight  L = λ (requests per second) × W (mean seconds each)
```

A service taking 10,000 queries per second that spend 50 ms each on average
has 10,000 × 0.05 = **500** requests in flight on average. At any moment the
count varies around that (random arrivals bunch up), so the servers, batches
and memory must hold 500 and the bursts above it.

## Amdahl at serving time

A request is more than the model: tokenising and preprocessing, the model,
post-processing and formatting. Only the model part gets faster with a
better GPU, quantization or batching. With 2 ms of tokenisation, 20 ms of
model and 3 ms of post-processing (25 ms), a 4× faster model gives
2 + 5 + 3 = 10 ms: 2.5× overall, and never more than 25/5 = 5×, however fast
the model gets. Measure the whole request before optimising one part.
]]

question {
  id = "inference.latency-throughput",
  kind = "choice",
  title = "Latency or throughput?",
  prompt = [[
A serving team doubles the batch size. Each batch now takes 1.6× as long
on the GPU. What happens?]],
  topics = { "latency", "throughput", "batching" },
  rubric = { "practice.deployment", "advanced.cost" },
  hints = { "Twice the requests per batch, 1.6 times the time per batch." },
  choices = {
    "Throughput rises by 1.25×; each request's latency rises too.",
    "Both throughput and latency improve.",
    "Throughput falls, because each batch takes longer.",
    "Latency falls, because more requests are served at once.",
  },
  answer = 1,
  why = {
    [2] = "Each request waits for a batch that takes 1.6× as long (and for the batch to fill): its latency gets worse.",
    [3] = "Throughput is requests per second: 2 / 1.6 = 1.25× more.",
    [4] = "Serving more at once raises throughput; each request still waits for the whole, longer batch.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "c", 0 }, { "z", "invalid" } },
}

question {
  id = "inference.littles-law",
  kind = "numeric",
  title = "Requests in flight (your numbers)",
  prompt = [[
A service receives {qps} queries per second and each query spends {ms} ms in
the system. On average, how many queries are in flight at any moment?
Give three significant figures.]],
  topics = { "latency", "throughput", "littles-law" },
  rubric = { "practice.deployment", "practice.design" },
  hints = { "Little's law: in flight = arrival rate × time in the system (in seconds)." },
  params = function(rng)
    return { qps = rng:pick({ 200, 1000, 2500, 10000, 40000 }), ms = rng:pick({ 5, 20, 50, 120, 300 }) }
  end,
  answer = function(p) return p.qps * p.ms / 1000 end,
  wrong = {
    { value = function(p) return p.qps * p.ms end, feedback = "Convert the time to seconds first: divide the milliseconds by 1000." },
    { value = function(p) return p.qps / (p.ms / 1000) end, feedback = "Multiply, do not divide: L = λ × W." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "500 ms", "invalid" },
    -- The course's design target: 10,000 QPS at 50 ms -> 500 in flight.
    { params = { qps = 10000, ms = 50 }, answer = "500", score = 1 },
    { params = { qps = 10000, ms = 50 }, answer = "500000", score = 0 },
  },
}

question {
  id = "inference.serving-amdahl",
  kind = "numeric",
  title = "Speeding up only the model (your numbers)",
  prompt = [[
A request spends {tok} ms tokenising, {model} ms in the model and {post} ms
post-processing, one after the other. Quantization and batching make the
model part {s}× faster. What is the speedup of the whole request?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl", "latency" },
  rubric = { "practice.deployment", "practice.profiling", "theory.parallel" },
  hints = {
    "Only the model part gets faster; tokenizing and post-processing keep their time (Amdahl again).",
    "New time: {tok} + {model}/{s} + {post} ms.",
    "Speedup = old total / new total.",
  },
  params = function(rng)
    return { tok = rng:int(1, 5), model = rng:pick({ 10, 20, 30, 50, 80 }), post = rng:int(1, 6),
             s = rng:pick({ 2, 3, 4, 8 }) }
  end,
  answer = function(p) return (p.tok + p.model + p.post) / (p.tok + p.model / p.s + p.post) end,
  wrong = {
    { value = function(p) return p.s end,
      feedback = "Only the model part got faster; tokenising and post-processing take as long as before (Amdahl)." },
    { value = function(p) return (p.tok + p.model + p.post) / (p.tok + p.post) end,
      feedback = "That is the ceiling with an infinitely fast model. A model s times faster still takes (model time)/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "fast", "invalid" },
    { params = { tok = 2, model = 20, post = 3, s = 4 }, answer = "2.5", score = 1 },
    { params = { tok = 2, model = 20, post = 3, s = 4 }, answer = "4", score = 0 },
    { params = { tok = 2, model = 20, post = 3, s = 4 }, answer = "5", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# Batching

A GPU running one request at a time is mostly waiting on memory: it reads
every weight to do a little arithmetic with it. Running B requests together
reads the weights once for all of them. A simple model of a batch's time:

```
t(B) = t0 + c × B        t0: fixed cost (weights, launches), c: per request
throughput = B / t(B)    approaches 1/c as B grows
```

With t0 = 8 ms and c = 0.5 ms: one request takes 8.5 ms (118 per second); a
batch of 32 takes 24 ms (1333 per second), 11× the throughput, and each
request's latency is now 24 ms plus the time it waited for the batch.

| batching   | a batch runs when ...            | good for             |
|------------|----------------------------------|----------------------|
| static     | it is full (fixed size)          | offline jobs         |
| dynamic    | it is full OR a max wait passed  | online, with an SLO  |
| continuous | every decode step; sequences     | LLM generation       |
|            | join and leave between steps     |                      |

A latency budget caps the batch: the maximum wait plus t(B) must stay within
the SLO. For LLMs, continuous (in-flight) batching matters because sequences
finish at different lengths; with static batches the short ones would sit
idle until the longest finishes.

## LLM decoding is memory-bound

Generating one token at batch 1 reads every weight once and does about 2
FLOPs per weight: about 1 FLOP per byte in FP16, while an H100 needs about
300 FLOPs per byte of HBM traffic to be compute-bound. So the time per token
is set by memory bandwidth:

```
time per token ≥ bytes of weights / memory bandwidth
7 B parameters × 2 B = 14 GB;  14 GB / 3.35 TB/s = 4.2 ms   (≤ 240 tokens/s)
```

Batching B sequences reuses each weight read B times: up to B times the
tokens per second, until compute or KV-cache memory runs out. Quantization
helps for the same reason: INT8 weights are half the bytes of FP16, so
decoding can be up to 2× faster.
]]

calculator {
  id = "inference.decode",
  title = "LLM decoding: memory- or compute-bound?",
  inputs = {
    { name = "params_b", label = "parameters", unit = "billion", default = 7, min = 0.001, max = 100000 },
    { name = "bits", label = "bits per weight", default = 16, min = 1, max = 32, integer = true },
    { name = "bw", label = "memory bandwidth", unit = "TB/s", default = 3.35, min = 0.001, max = 1000 },
    { name = "tflops", label = "peak matmul throughput", unit = "TFLOP/s", default = 989, min = 0.001, max = 1e6 },
    { name = "batch", label = "sequences decoded together", default = 1, min = 1, max = 1e6, integer = true },
  },
  compute = function(v)
    local P = v.params_b * 1e9
    local bytes = P * v.bits / 8
    local t_mem = bytes / (v.bw * 1e12)                 -- read every weight once per step
    local t_cmp = 2 * P * v.batch / (v.tflops * 1e12)   -- 2 FLOPs per weight per sequence
    local step = math.max(t_mem, t_cmp)
    local ai = 2 * P * v.batch / bytes
    local ridge = v.tflops / v.bw
    return {
      { label = "weights read per step", value = bytes, unit = "B" },
      { label = "memory time per step", value = t_mem, unit = "s" },
      { label = "compute time per step", value = t_cmp, unit = "s" },
      { label = "tokens per second (all sequences)", value = v.batch / step },
      { label = "arithmetic intensity", value = ai, unit = "FLOP/B" },
      { label = "ridge point of the GPU", value = ridge, unit = "FLOP/B" },
      { label = "bound", text = ai < ridge and "memory-bound" or "compute-bound" },
    }
  end,
  examples = {
    -- 7 B in FP16 on an H100 (3.35 TB/s, 989 TFLOP/s) at batch 1: 4.18 ms per token.
    { inputs = {}, outputs = { 14e9, 14e9 / 3.35e12, 14e9 / 989e12, 3.35e12 / 14e9, 1, 989 / 3.35, "memory-bound" } },
    { inputs = { bits = 8, batch = 1000 }, outputs = { 7e9, 7e9 / 3.35e12, 14e12 / 989e12, 1000 * 989e12 / 14e12, 2000, 989 / 3.35, "compute-bound" } },
  },
}

question {
  id = "inference.batch-throughput",
  kind = "numeric",
  title = "Throughput of a batch (your numbers)",
  prompt = [[
A model's batch time is t(B) = {t0} ms + {c} ms × B. What throughput, in
requests per second, does it reach at batch size {b}?
Give three significant figures.]],
  topics = { "batching", "throughput" },
  rubric = { "practice.deployment", "practice.optimization" },
  hints = {
    "A batch costs a fixed time plus a time per request; throughput is requests per batch time.",
    "t({b}) = {t0} + {c} × {b} ms; throughput = {b} / t({b}).",
  },
  params = function(rng)
    return { t0 = rng:pick({ 4, 8, 12, 20 }), c = rng:pick({ 0.25, 0.5, 1, 2 }), b = rng:pick({ 4, 8, 16, 32, 64 }) }
  end,
  answer = function(p) return p.b / ((p.t0 + p.c * p.b) / 1000) end,
  wrong = {
    { value = function(p) return 1 / ((p.t0 + p.c * p.b) / 1000) end,
      feedback = "That counts batches per second; each batch carries B requests." },
    { value = function(p) return p.b / (p.t0 + p.c * p.b) end,
      feedback = "Convert ms to seconds: that is requests per millisecond." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 0.9) end, score = 0 },
    { "24 ms", "invalid" },
    { params = { t0 = 8, c = 0.5, b = 32 }, answer = "1333", score = 1 },
    { params = { t0 = 8, c = 0.5, b = 32 }, answer = "41.7", score = 0 },
  },
}

question {
  id = "inference.batch-slo",
  kind = "numeric",
  title = "Largest batch within the SLO (your numbers)",
  prompt = [[
A dynamic batcher waits at most {wait} ms to fill a batch, and a batch of B
takes {t0} ms + {c} ms × B on the GPU. The latency objective is {slo} ms,
counting the wait. What is the largest batch size that always meets it?
Give a whole number.]],
  topics = { "batching", "latency" },
  rubric = { "practice.deployment", "practice.design" },
  hints = {
    "Latency grows with the batch: the largest batch that still meets the SLO wins.",
    "{wait} + {t0} + {c} × B ≤ {slo}.",
    "Solve for B and round DOWN to a whole batch.",
  },
  params = function(rng)
    return { wait = rng:pick({ 2, 5, 10 }), t0 = rng:pick({ 5, 8, 12 }), c = rng:pick({ 0.5, 1, 1.5 }),
             slo = rng:pick({ 30, 50, 80, 100 }) }
  end,
  answer = function(p) return math.floor((p.slo - p.wait - p.t0) / p.c + 1e-9) end,
  tolerance = { abs = 0 },   -- a whole batch size
  wrong = {
    { value = function(p) return math.floor((p.slo - p.t0) / p.c + 1e-9) end,
      feedback = "The batching wait counts against the latency objective too." },
    { value = function(p) return math.floor((p.slo - p.wait - p.t0) / p.c + 1e-9) + 1 end,
      feedback = "Round down: one more request would break the objective." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 1) end, score = 0 },
    { "big", "invalid" },
    { params = { wait = 5, t0 = 8, c = 1, slo = 50 }, answer = "37", score = 1 },
    { params = { wait = 5, t0 = 8, c = 1, slo = 50 }, answer = "42", score = 0 },
  },
}

question {
  id = "inference.decode-time",
  kind = "numeric",
  title = "Memory-bound decoding (your numbers)",
  prompt = [[
A {pb}-billion-parameter model generates text at batch size 1 with {bits}-bit
weights on a GPU with {bw} TB/s of memory bandwidth. Each token must read all
the weights once. What is the lower bound on the time per token?
Give three significant figures.]],
  unit = "ms",
  topics = { "decoding", "memory-bound", "quantization" },
  rubric = { "practice.deployment", "theory.memory", "theory.gpu" },
  hints = {
    "Generating one token reads all the weights once: memory bandwidth sets the time.",
    "Bytes of weights: parameters × {bits}/8.",
    "Time = bytes / bandwidth; {bw} TB/s = {bw} × 10^12 bytes/s.",
  },
  params = function(rng)
    return { pb = rng:pick({ 7, 13, 34, 70 }), bits = rng:pick({ 4, 8, 16 }), bw = rng:pick({ 1, 2, 3.35, 4.8 }) }
  end,
  answer = function(p) return 1000 * p.pb * 1e9 * p.bits / 8 / (p.bw * 1e12) end,
  wrong = {
    { value = function(p) return 1000 * p.pb * 1e9 * p.bits / (p.bw * 1e12) end,
      feedback = "You used bits as bytes: a b-bit weight is b/8 bytes." },
    { value = function(p) return p.bits ~= 16 and 1000 * p.pb * 1e9 * 2 / (p.bw * 1e12) end,   -- FP16: no mistake
      feedback = "That assumes FP16 (2 bytes); use the bit width the question gives." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference / 1000) .. " s" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "4 GB", "invalid" },
    -- 7 B in FP16 on an H100 (3.35 TB/s): 4.18 ms per token.
    { params = { pb = 7, bits = 16, bw = 3.35 }, answer = "4.18", score = 1 },
    { params = { pb = 7, bits = 8, bw = 3.35 }, answer = "2.09", score = 1 },
    { params = { pb = 7, bits = 16, bw = 3.35 }, answer = "33.4", score = 0 },
  },
}

question {
  id = "inference.kv-batch",
  kind = "numeric",
  title = "How many sequences fit? (your numbers)",
  prompt = [[
A GPU with {gpu} GB of memory serves a model whose FP16 weights take {w} GB.
Sequences are {s} tokens long, and the KV cache takes {kvtok} MB per token
(1 GB = 1000 MB). Ignoring activations and fragmentation, how many
full-length sequences can be in the batch at once?
Give a whole number.]],
  topics = { "kv-cache", "batching", "memory" },
  rubric = { "practice.deployment", "theory.memory", "advanced.cost" },
  hints = {
    "Memory left for the cache: {gpu} - {w} GB.",
    "One sequence: {s} × {kvtok} MB. Divide and round down.",
  },
  params = function(rng)
    return { gpu = rng:pick({ 40, 80, 141 }), w = rng:pick({ 14, 26 }), s = rng:pick({ 2048, 4096, 8192 }),
             kvtok = rng:pick({ 0.125, 0.25, 0.5, 0.8 }) }
  end,
  answer = function(p) return math.floor((p.gpu - p.w) * 1000 / (p.s * p.kvtok) + 1e-9) end,
  tolerance = { abs = 0 },   -- whole sequences
  wrong = {
    { value = function(p) return math.floor(p.gpu * 1000 / (p.s * p.kvtok) + 1e-9) end,
      feedback = "The weights occupy their share of the memory first; only the rest holds the cache." },
    { value = function(p) return math.floor((p.gpu - p.w) * 1000 / (p.s * p.kvtok) + 1e-9) + 1 end,
      feedback = "Round down: a sequence that does not fit completely cannot run to full length." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 1) end, score = 0 },
    { "many", "invalid" },
    -- 7 B model (14 GB) on 80 GB, 4096 tokens at 0.524 MB (512 KiB) per token: 30.
    { params = { gpu = 80, w = 14, s = 4096, kvtok = 0.524288 }, answer = "30", score = 1 },
    { params = { gpu = 80, w = 14, s = 4096, kvtok = 0.524288 }, answer = "37", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# Quantization

Quantization stores numbers in fewer bits. Uniform (linear) quantization
with b bits maps a real range onto 2^b integer levels:

```
scale s = (max - min) / (2^b - 1)        zero point z: the integer for 0.0
q = round(x / s) + z                         x ≈ s × (q - z)
symmetric INT8: s = max|x| / 127,  q = round(x / s),  z = 0
```

(The guide writes Q(x) = round((x − zero_point) / scale) with a real-valued
offset; integer zero points, as above, are what PyTorch and TensorRT store.)

Rounding moves each value by at most s/2; spread evenly, that error has power
s²/12. Every extra bit halves s, which cuts the error power 4× (6.02 dB),
hence the rule for the signal-to-quantization-noise ratio:

```
SNR ≈ 6.02 × b + 1.76 dB
      INT8: 49.9 dB      INT4: 25.8 dB      16-bit: 98.1 dB
```

The 1.76 dB is exact for a sine wave that fills the range, and the rule
is about that signal. Weights and activations are bell-shaped with rare
outliers: a range stretched to cover the outliers wastes levels on values
that almost never occur, so real SNR is lower. The general form is
6.02 b + 4.77 − 20 log10(peak / RMS); Gaussian weights scaled to their
largest value (4 to 5 standard deviations in a big tensor) land about
10 dB below the sine's figure, as the quantize lab measures. That is why
practical schemes use per-channel scales, calibrate or clip the range,
and treat outliers separately.

| name | when            | accuracy | cost                     |
|------|-----------------|----------|--------------------------|
| PTQ  | after training  | medium   | minutes, calibration set |
| QAT  | during training | high     | a (re)training run       |

*Post-training quantization* (PTQ) converts a trained model as it is.
*Quantization-aware training* (QAT) simulates the rounding in the forward
pass ("fake quantization") while training, so the weights learn to live
with it.

PTQ is *static* when a calibration set fixes the activation ranges ahead of
time, and *dynamic* when activation ranges are measured at run time.

**Sizes.** FP32 → INT8 makes a model 4× smaller (32/8) and saves 24 bits per
value; FP32 → INT4 8×; FP16 → INT8 2×. (A formula "bits saved = log2(32/8)"
gives 2, which is neither: it counts how many times the width was halved.)
The course's target, 4–8× smaller with under 1 % accuracy loss, is INT8 to
INT4 territory.
]]

calculator {
  id = "inference.quantization",
  title = "Uniform quantization",
  inputs = {
    { name = "bits", label = "bits b", default = 8, min = 1, max = 32, integer = true },
    { name = "max_abs", label = "largest |x| (symmetric range)", default = 1, min = 1e-9, max = 1e12 },
    { name = "params_b", label = "parameters", unit = "billion", default = 7, min = 0.001, max = 100000 },
  },
  compute = function(v)
    local scale = v.bits > 1 and v.max_abs / (2 ^ (v.bits - 1) - 1) or v.max_abs
    return {
      { label = "SNR for a full-scale sine: 6.02 b + 1.76", value = 6.02 * v.bits + 1.76, unit = "dB" },
      { label = "levels 2^b", value = 2 ^ v.bits },
      { label = "symmetric scale max / (2^(b-1) - 1)", value = scale },
      { label = "RMS rounding error scale / sqrt(12)", value = scale / math.sqrt(12) },
      { label = "size of the weights", value = v.params_b * 1e9 * v.bits / 8, unit = "B" },
      { label = "smaller than FP32", value = 32 / v.bits, unit = "x" },
      { label = "smaller than FP16", value = 16 / v.bits, unit = "x" },
    }
  end,
  examples = {
    { inputs = {}, outputs = { 49.92, 256, 1 / 127, 1 / 127 / math.sqrt(12), 7e9, 4, 2 } },
    { inputs = { bits = 4, max_abs = 2 }, outputs = { 25.84, 16, 2 / 7, 2 / 7 / math.sqrt(12), 3.5e9, 8, 4 } },
  },
}

question {
  id = "inference.snr-int8-worked",
  kind = "numeric",
  title = "SNR of 8-bit quantization",
  prompt = [[
The rule SNR ≈ 6.02 × b + 1.76 dB gives the signal-to-quantization-noise
ratio of a full-scale sine wave. What SNR does it give for uniform 8-bit
quantization? Answer in dB ("12.3" and "12.3 dB" both work).
Give three significant figures.]],
  topics = { "quantization", "snr" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = {
    "Each bit of a uniform quantizer adds about 6 dB of signal-to-noise ratio.",
    "b = 8.",
  },
  answer = 6.02 * 8 + 1.76,
  grade = function(answer, ctx)
    return db_grade(answer, ctx.reference, {
      { 6.02 * 8, "You left out the 1.76 dB term." },
      { 6.02 * 32 + 1.76, "That is for 32 bits; INT8 has b = 8." },
      { 6.02 + 1.76 * 8, "The bits multiply 6.02, not 1.76." },
    })
  end,
  examples = {
    { "49.92", 1 },
    { "49.9", 1 },
    { "49.9 dB", 1 },
    { "49.9dB", 1 },
    { "6.02*8+1.76", 1 },
    { "49", 0 },            -- the guide's round figure: 1.8% off
    { "49 dB", 0 },
    { "48.16", 0 },
    { "52", 0 },
    { "loud", "invalid" },
  },
}

question {
  id = "inference.snr",
  kind = "numeric",
  title = "SNR for other widths (your numbers)",
  prompt = [[
A test tone, a sine wave whose peaks exactly fill the range, is quantized
uniformly to {b} bits. Using SNR ≈ 6.02 × b + 1.76 dB (exact for this
signal), what is the SNR in dB?
Give three significant figures.]],
  topics = { "quantization", "snr" },
  rubric = { "practice.optimization" },
  hints = { "Each bit adds 6.02 dB." },
  params = function(rng) return { b = rng:pick({ 2, 3, 4, 6, 8, 10, 12, 16 }) } end,
  answer = function(p) return 6.02 * p.b + 1.76 end,
  grade = function(answer, ctx)
    local b = ctx.params.b
    return db_grade(answer, ctx.reference, {
      { 6.02 * b, "You left out the 1.76 dB term." },
      { 6.02 * 8 + 1.76, "That is for 8 bits." },
    })
  end,
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return num(6.02 * p.b + 1.76) end, score = 1 },
    { answer = function(p) return num(6.02 * p.b + 1.76) .. " dB" end, score = 1 },
    { answer = function(p) return num((6.02 * p.b + 1.76) * 1.05) end, score = 0 },
    { "dB", "invalid" },
    { params = { b = 4 }, answer = "25.84", score = 1 },
    { params = { b = 4 }, answer = "24.08", score = 0 },
    { params = { b = 8 }, answer = "49.9", score = 1 },   -- INT8, the worked example
  },
}

question {
  id = "inference.quant-size-worked",
  kind = "numeric",
  title = "FP32 to INT8: how much smaller?",
  prompt = [[
A model's FP32 weights are quantized to INT8. By what factor does the size of
the weights shrink? (Ignore the few scale and zero-point values.)
Give three significant figures.]],
  unit = "x",
  topics = { "quantization", "compression" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = { "32 bits per weight before, 8 after." },
  answer = 4,
  wrong = {
    { value = 2, feedback = "log2(32/8) = 2 counts halvings (32 → 16 → 8); the size shrinks 32/8 = 4×, saving 24 bits per weight." },
    { value = 24, feedback = "24 is the bits saved per weight; the size ratio is 32/8." },
    { value = 0.25, feedback = "The new size is 0.25 of the old; the question asks for the shrink factor, 4×." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "4", 1 },
    { "32/8", 1 },
    { "2", 0 },
    { "4.5", 0 },
    { "4 MB", "invalid" },
  },
}

question {
  id = "inference.model-size",
  kind = "numeric",
  title = "Size of a quantized model (your numbers)",
  prompt = [[
A {pb}-billion-parameter model is quantized to {bits}-bit weights. How many
gigabytes do the weights take?
Give three significant figures.]],
  unit = "GB",
  topics = { "quantization", "memory" },
  rubric = { "practice.deployment", "theory.memory" },
  hints = { "parameters × {bits}/8 bytes." },
  params = function(rng) return { pb = rng:pick({ 1, 3, 7, 13, 70, 175 }), bits = rng:pick({ 4, 8 }) } end,
  answer = function(p) return p.pb * p.bits / 8 end,
  wrong = {
    { value = function(p) return p.pb * p.bits end, feedback = "Bits, not bytes: divide by 8." },
    { value = function(p) return p.pb * 2 end, feedback = "That is the FP16 size." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1000) .. " MB" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "3.5 ms", "invalid" },
    { params = { pb = 7, bits = 4 }, answer = "3.5", score = 1 },
    { params = { pb = 7, bits = 4 }, answer = "28", score = 0 },
  },
}

question {
  id = "inference.quant-q",
  kind = "numeric",
  title = "Quantize a value by hand (your numbers)",
  prompt = [[
A tensor's values lie in [-{mx}, {mx}] and are quantized to symmetric INT8:
scale = {mx} / 127, q = round(x / scale). What integer q stores x = {x}?
Give a whole number.]],
  topics = { "quantization" },
  rubric = { "practice.optimization" },
  hints = {
    "Symmetric INT8 maps the largest magnitude to 127 and everything else in proportion.",
    "scale = {mx}/127; then divide {x} by it and round to the nearest integer.",
  },
  params = function(rng)
    local mx = rng:pick({ 1, 2, 4, 6, 8 })
    -- x = k/100 of the range; k = +-50 would land exactly on a .5 tie
    -- (x / scale = 1.27 k), so it is skipped, as are values near 0.
    -- It also redraws k until a scale of max/128 (the common mistake) gives
    -- another code than max/127.
    local k
    repeat
      k = rng:int(-95, 95)
    until math.abs(k) > 5 and math.abs(k) ~= 50 and
      math.floor(k / 100 * 127 + 0.5) ~= math.floor(k / 100 * 128 + 0.5)
    return { mx = mx, x = k / 100 * mx }
  end,
  answer = function(p) return math.floor(p.x / (p.mx / 127) + 0.5) end,
  -- An integer code, exact. Graded here rather than by the numeric kind,
  -- whose note for a fraction ("round it up: ceil ...") describes a count;
  -- this quantizer rounds to the NEAREST integer, and the feedback says so.
  -- (An asymmetric scale, range / 255 = max / 127.5, gives the code of
  -- max/127 or of max/128 in every case, so it is not a separate mistake.)
  grade = function(answer, ctx)
    local p, ref = ctx.params, ctx.reference
    local v, why = wb.number(answer, "")
    if not v then
      return { valid = false, feedback = "Could not read that: " .. (why or "not a number") .. "." }
    end
    local ratio = p.x / (p.mx / 127)
    if v == ref then
      return 1, string.format("Right: x / scale = %s, and the nearest integer is %d.", wb.sig(ratio, 4), ref)
    end
    if v ~= math.floor(v) then
      return 0, string.format("%s is not an integer: INT8 stores whole codes. The quantizer rounds x / scale to the NEAREST integer (not up, not down): round(%s) is the code.",
        wb.sig(v, 6), math.abs(v - ratio) < 0.5 and wb.sig(v, 6) or "x / scale")
    end
    if v == math.floor(p.x / (p.mx / 128) + 0.5) then
      return 0, "Symmetric INT8 uses ±127 (so that -x and x get mirrored codes): scale = max/127, not max/128 or range/255."
    end
    if math.abs(v - ratio) < 1 then
      return 0, "Off by one: the code is x / scale rounded to the NEAREST integer, not truncated or rounded up."
    end
    return 0, "Not the stored code: scale = max / 127, then q = round(x / scale)."
  end,
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 2) end, score = 0 },
    -- the unrounded ratio: named as needing the nearest integer
    { answer = function(p) return string.format("%.2f", p.x / (p.mx / 127)) end, score = 0 },
    { "q", "invalid" },
    { params = { mx = 2, x = 0.5 }, answer = "32", score = 1 },
    { params = { mx = 2, x = 0.5 }, answer = "0.5/(2/127)", score = 0 },   -- 31.75: not rounded
    { params = { mx = 2, x = 0.5 }, answer = "round(0.5/(2/127))", score = 1 },
    { params = { mx = 2, x = 0.5 }, answer = "31", score = 0 },            -- floor: off by one
  },
}

question {
  id = "inference.ptq-qat",
  kind = "multi",
  title = "PTQ and QAT",
  prompt = "Which of these statements about quantization are true? Pick all that apply.",
  points = 2,
  topics = { "quantization" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = { "Three are true." },
  choices = {
    "Post-training quantization needs no retraining, only a small calibration set (for static quantization).",
    "Quantization-aware training simulates quantization in the forward pass, so the weights adapt to it.",
    "QAT usually loses less accuracy than PTQ at the same bit width.",
    "Going from 8 to 4 bits lowers the SNR by about 6 dB.",
    "Dynamic quantization fixes the activation ranges before deployment.",
  },
  answer = { 1, 2, 3 },
  why = {
    [4] = "Each bit is worth about 6.02 dB, so 4 bits fewer cost about 24 dB (49.9 dB at 8 bits, 25.8 dB at 4), not 6.",
    [5] = "Dynamic quantization measures activation ranges at run time; static quantization fixes them from calibration.",
  },
  examples = {
    { "a b c", 1 },
    { "a b", 2 / 3 },
    { "a b c e", 2 / 3 },
    { "d e", 0 },
    { "x", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Pruning, distillation and friends

## Pruning

*Magnitude pruning* zeroes the weights with the smallest |w|, usually over
several rounds, fine-tuning in between. The lottery-ticket hypothesis says a
dense network contains a sparse subnetwork that trains as well on its own.

| kind         | removes                  | on hardware                 |
|--------------|--------------------------|-----------------------------|
| unstructured | individual weights       | sparse formats, little gain |
| structured   | channels, filters, heads | a smaller dense model: fast |
| N:M (2:4)    | 2 of every 4 weights     | sparse tensor cores: ≤ 2×   |

Unstructured sparsity is irregular: GPUs gain little from it unless it is
extreme. Structured pruning just leaves a smaller model, fast everywhere.
2:4 sparsity (2 zeros in every 4 consecutive weights) is what the sparse
tensor cores of A100 and H100 run at up to twice the matmul throughput.

Sparsity s leaves a fraction 1 − s of the weights: **1/(1 − s)** fewer
parameters (90 % sparsity: 10×). Stored sparse, each kept weight also needs
an index: a 4-byte value plus a 4-byte index is 8 bytes per kept weight, so
90 % sparse FP32 weights take 0.1 × 8 = 0.8 bytes per original weight, 5×
smaller, not 10×.

GPU spec sheets quote the 2:4 figure as the headline: the H100's "1979
TFLOPS FP16" assumes 2:4 sparsity; dense it is about 989. Compare dense with
dense (the A100's 312 is dense).

## Distillation

A small *student* learns to match a large *teacher*. The teacher's softened
output probabilities carry more information than the hard label (which wrong
answers are nearly right):

```
L = α × L_hard(student, label)
    + (1 - α) × T² × KL( softmax(z_teacher / T) || softmax(z_student / T) )
```

The temperature T > 1 softens both distributions; the T² factor keeps the
soft term's gradients the same size whatever T is. (The KL compares
probabilities, not raw logits.)

## Speculative decoding

A small draft model proposes k tokens; the large model checks all k in one
forward pass and keeps the longest prefix it agrees with, plus one token of
its own. Rejection sampling makes the output distribution exactly the large
model's. If each draft token is accepted with probability a, one large-model
pass yields on average (1 − a^(k+1)) / (1 − a) tokens: with a = 0.8 and
k = 4, 3.36 tokens. Typical end-to-end gains are 2–3×.

## LoRA

Fine-tuning updates a weight matrix W (d × k) by a low-rank product
ΔW = B × A, with B of size d × r and A of size r × k, r ≪ d: only
r × (d + k) numbers are trained. For a 4096 × 4096 matrix and r = 8 that is
65,536 instead of 16.8 million (0.39 %). One base model can serve many
adapters. (Writing ΔW = A × Bᵀ with A of size d × r and B of size r × d,
as one guide does, does not even multiply.)
]]

question {
  id = "inference.sparse-tflops-worked",
  kind = "numeric",
  title = "Dense H100 FP16 throughput",
  prompt = [[
The course's GPU table lists the H100 at 1979 TFLOPS for FP16, next to the
A100's 312. The H100 figure assumes 2:4 structured sparsity, which at best
doubles tensor-core throughput. What is the H100's DENSE FP16 figure, the
one to compare with the A100's?
Give three significant figures.]],
  unit = "TFLOP/s",
  topics = { "pruning", "sparsity" },
  rubric = { "theory.gpu", "advanced.cost" },
  hints = { "2:4 sparsity skips half the multiplications: at most 2×." },
  answer = 1979 / 2,
  wrong = {
    { value = 1979, feedback = "That is the sparse figure itself." },
    { value = 1979 * 2, feedback = "Sparsity made the headline larger, so the dense figure is smaller: divide by 2." },
    { value = 67, feedback = "67 TFLOPS is the H100's FP32 figure without tensor cores." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "989", 1 },
    { "989.5 TFLOPS", 1 },
    { "1979/2", 1 },
    { "1979", 0 },
    { "900", 0 },
    { "989 GB/s", "invalid" },
  },
}

question {
  id = "inference.pruning-ratio",
  kind = "numeric",
  title = "Pruning and storage (your numbers)",
  prompt = [[
An FP32 layer is pruned to {pct}% sparsity (that share of weights is zero)
and stored in a sparse format: each remaining weight as a 4-byte value plus a
4-byte index. By what factor is it smaller than the dense FP32 layer?
Give three significant figures.]],
  unit = "x",
  topics = { "pruning", "compression" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = {
    "Dense: 4 bytes per weight.",
    "Sparse: the remaining {pct}%-complement of weights, 8 bytes each.",
  },
  params = function(rng) return { pct = rng:pick({ 60, 75, 80, 90, 95, 98 }) } end,
  answer = function(p) return 4 / ((1 - p.pct / 100) * 8) end,
  wrong = {
    { value = function(p) return 1 / (1 - p.pct / 100) end,
      feedback = "That is the reduction in parameters, 1/(1 - s). Stored sparse, every kept weight needs an index as well: half of that." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { answer = function(p) return num(1 / (1 - p.pct / 100)) end, score = 0 },
    { "10 GB", "invalid" },
    { params = { pct = 90 }, answer = "5", score = 1 },
    { params = { pct = 90 }, answer = "10", score = 0 },
  },
}

question {
  id = "inference.distill-loss",
  kind = "choice",
  title = "The distillation loss",
  prompt = [[
In Hinton-style distillation with temperature T, what is the soft part of
the student's loss?]],
  topics = { "distillation" },
  rubric = { "practice.optimization" },
  hints = { "The KL divergence compares probability distributions. What happens to gradient sizes as T grows?" },
  choices = {
    "T² × KL( softmax(teacher logits / T) || softmax(student logits / T) )",
    "KL( teacher logits / T || student logits / T )",
    "the squared difference between the teacher's and the student's hard labels",
    "KL( softmax(teacher logits) || softmax(student logits) ), without any temperature",
  },
  answer = 1,
  why = {
    [2] = "KL divergence is defined between probability distributions: apply the softmax to the scaled logits; and scale by T² so the gradients keep their size.",
    [3] = "Hard labels throw away what distillation transfers: how the teacher ranks the wrong answers.",
    [4] = "Without T > 1 the teacher's distribution is nearly one-hot and carries little more than the label.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "z", "invalid" } },
}

question {
  id = "inference.spec-decode",
  kind = "numeric",
  title = "Speculative decoding (your numbers)",
  prompt = [[
A draft model proposes k = {k} tokens per round and the large model accepts
each draft token with probability a = {a} (independently). How many tokens
does one large-model forward pass yield on average, using
(1 - a^(k+1)) / (1 - a)?
Give three significant figures.]],
  topics = { "speculative-decoding", "latency" },
  rubric = { "practice.optimization", "advanced.novel" },
  hints = {
    "Draft tokens are accepted one after another, each with probability a, until the first rejection.",
    "Compute a^(k+1) first: {a}^({k}+1).",
  },
  params = function(rng)
    -- Not when a^k, what the exponent k + 1 adds, is within the 1%
    -- tolerance: the exponent k (a common mistake) would be graded right.
    local k, a
    repeat
      k, a = rng:pick({ 2, 3, 4, 5, 8 }), rng:pick({ 0.5, 0.6, 0.7, 0.8, 0.9 })
    until a ^ k > 0.02 * (1 - a ^ (k + 1)) / (1 - a)
    return { k = k, a = a }
  end,
  answer = function(p) return (1 - p.a ^ (p.k + 1)) / (1 - p.a) end,
  wrong = {
    { value = function(p) return p.k end,
      feedback = "k is the best case, when every draft token is accepted; rejections cut the average." },
    { value = function(p) return (1 - p.a ^ p.k) / (1 - p.a) end,
      feedback = "The exponent is k + 1: the large model always adds one token of its own." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("(1-%g^%d)/(1-%g)", p.a, p.k + 1, p.a) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "3 ms", "invalid" },
    { params = { k = 4, a = 0.8 }, answer = "3.36", score = 1 },
    { params = { k = 4, a = 0.8 }, answer = "2.95", score = 0 },
  },
}

question {
  id = "inference.lora-params",
  kind = "numeric",
  title = "LoRA's trainable share (your numbers)",
  prompt = [[
A {d} × {d} weight matrix is fine-tuned with LoRA of rank r = {r}
(ΔW = B × A, B of size {d} × {r}, A of size {r} × {d}). What fraction of
the matrix's parameter count is trained? (A fraction like 0.01, or a
percentage like 1%.)
Give three significant figures.]],
  topics = { "lora", "fine-tuning" },
  rubric = { "practice.optimization", "advanced.novel" },
  hints = {
    "LoRA trains two thin matrices beside the frozen one, not the full matrix.",
    "Trained: d × r + r × d. Full matrix: d × d.",
  },
  params = function(rng) return { d = rng:pick({ 1024, 2048, 4096, 8192 }), r = rng:pick({ 4, 8, 16, 64 }) } end,
  answer = function(p) return 2 * p.d * p.r / (p.d * p.d) end,
  wrong = {
    { value = function(p) return p.r / p.d end, feedback = "There are two factors, B and A: 2 × d × r numbers." },
    { value = function(p) return p.r * p.r / (p.d * p.d) end, feedback = "The factors are d × r and r × d, not r × r." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(100 * ctx.reference) .. "%" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "r", "invalid" },
    { params = { d = 4096, r = 8 }, answer = "0.39%", score = 1 },
    { params = { d = 4096, r = 8 }, answer = "0.195%", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# After deployment: monitoring, drift and retraining

The course's picture of real-world ML is a loop, not a line:

```
Data -> Train -> Validate -> Deploy -> Monitor -> Retrain -> Scale
     -> Optimize -> (repeat)
```

A deployed model starts ageing the day it ships, because the world it
was trained on moves on. Monitoring tells you when; retraining answers.

**What to watch.**

- the *service*: latency percentiles against the SLO, throughput, error
  rate, GPU utilisation and memory, queue length;
- the *inputs*: each feature's distribution against the training data;
- the *outputs*: the distribution of predictions (the share of each
  class, the mean score), which moves before accuracy can be measured;
- the *quality*: accuracy, calibration and the business metric, once
  the true labels arrive, often days or weeks later.

**Drift.** *Data drift* (covariate shift): the inputs' distribution P(x)
changes: new users, a new camera, a season. *Concept drift*: the meaning
P(y | x) changes: the same transaction is now fraud, because fraudsters
adapted. Data drift shows in the inputs at once; concept drift shows
only when the labels come in, or as an unexplained move of the outputs.

One common measure of a feature's shift is the **population stability
index** over bins of the feature:

```
PSI = Σ over bins of (a_i − e_i) × ln(a_i / e_i)
```

with e_i the share of the training data in bin i and a_i the share of
live data. Rule of thumb: under 0.1 stable, 0.1 to 0.25 worth a look,
above 0.25 a real shift. (KL divergence and the Kolmogorov–Smirnov test
are alternatives.)

**Retraining.** On a schedule (nightly, weekly), on a trigger (drift
past a threshold, accuracy under its target), or continuously (online
learning). How often is a cost trade-off: if accuracy decays steadily by
d points a week after each retraining, each lost point costs L a week
and a retraining costs C, the cost per week of retraining every τ weeks
is C/τ + L·d·τ/2, smallest at **τ = √(2C / (L·d))** (the same square-root
balance as the checkpoint interval in the scheduling lesson).

A retrained model is validated again and rolled out with care: in
*shadow* (it scores live traffic, its answers unused), as a *canary* (a
small share of the traffic), or in an A/B test, with the previous
version kept to roll back. Versioning the data, code and model makes a
retraining reproducible.
]]

question {
  id = "inference.psi",
  kind = "numeric",
  title = "Population stability index (your numbers)",
  prompt = [[
A feature's training data fall into three bins in the shares {e1}, {e2}
and {e3}; last week's live traffic in the shares {a1}, {a2} and {a3}.
What is the population stability index, Σ (a − e) ln(a / e)?
Give three significant figures.]],
  topics = { "monitoring", "drift" },
  rubric = { "practice.deployment", "practice.profiling" },
  hints = {
    "One term per bin: (live share − training share) × ln(live / training).",
    "Natural logarithms; every term is positive or zero.",
  },
  params = function(rng)
    local e = rng:pick({ { 0.5, 0.3, 0.2 }, { 0.4, 0.4, 0.2 }, { 0.25, 0.5, 0.25 } })
    local a
    repeat
      local a1 = rng:int(10, 60) / 100
      local a2 = rng:int(10, 60) / 100
      a = { a1, a2, wb.round(1 - a1 - a2, 2) }
    until a[3] >= 0.1 and (a[1] ~= e[1] or a[2] ~= e[2])
    return { e1 = e[1], e2 = e[2], e3 = e[3], a1 = a[1], a2 = a[2], a3 = a[3] }
  end,
  answer = function(p)
    local s = 0
    for _, k in ipairs({ { p.a1, p.e1 }, { p.a2, p.e2 }, { p.a3, p.e3 } }) do
      s = s + (k[1] - k[2]) * math.log(k[1] / k[2])
    end
    return s
  end,
  -- A sum of small terms (and exactly 0 never drawn): 1% or 0.001.
  tolerance = { rel = 0.01, abs = 0.001 },
  wrong = {
    { value = function(p)
        local s = 0
        for _, k in ipairs({ { p.a1, p.e1 }, { p.a2, p.e2 }, { p.a3, p.e3 } }) do
          s = s + (k[1] - k[2]) * math.log(k[1] / k[2], 10)
        end
        return s
      end,
      feedback = "That uses log10; the index uses the natural logarithm, ln." },
    { value = function(p)
        local s = 0
        for _, k in ipairs({ { p.a1, p.e1 }, { p.a2, p.e2 }, { p.a3, p.e3 } }) do
          s = s + k[1] * math.log(k[1] / k[2])
        end
        return s
      end,
      feedback = "That is the KL divergence Σ a ln(a/e); the PSI weights each term by (a − e), which makes it symmetric." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- (0.3 − 0.5) ln(0.6) + (0.4 − 0.3) ln(4/3) + (0.3 − 0.2) ln(1.5) = 0.1713
    { params = { e1 = 0.5, e2 = 0.3, e3 = 0.2, a1 = 0.3, a2 = 0.4, a3 = 0.3 }, answer = "0.171", score = 1 },
    { params = { e1 = 0.5, e2 = 0.3, e3 = 0.2, a1 = 0.3, a2 = 0.4, a3 = 0.3 }, answer = "0.0744", score = 0 },
    { "drifting", "invalid" },
  },
}

question {
  id = "inference.retrain-interval",
  kind = "numeric",
  title = "How often to retrain (your numbers)",
  prompt = [[
After each retraining a model's accuracy falls steadily by {d} points a
week. Each point of accuracy lost costs ${l} a week, and a retraining
(compute, validation, rollout) costs ${c}. Retraining every τ weeks costs
C/τ + L·d·τ/2 a week. What interval τ minimises it, in weeks?
Give three significant figures.]],
  topics = { "retraining", "drift" },
  rubric = { "practice.deployment", "advanced.cost" },
  hints = {
    "Frequent retraining pays C often; rare retraining lets the loss grow.",
    "τ = √(2C / (L·d)).",
  },
  params = function(rng)
    -- not where 2C/(L d) is near 1, where forgetting the root would not show
    local p
    repeat
      p = { d = rng:pick({ 0.2, 0.5, 1, 2 }), l = rng:pick({ 500, 1000, 2000, 5000 }),
            c = rng:pick({ 2000, 5000, 10000, 40000 }) }
    until math.abs(2 * p.c / (p.l * p.d) - 1) > 0.1
    return p
  end,
  answer = function(p) return math.sqrt(2 * p.c / (p.l * p.d)) end,
  wrong = {
    { value = function(p) return math.sqrt(p.c / (p.l * p.d)) end,
      feedback = "The average loss over an interval is half the final one (d·τ/2): that puts a 2 under the root." },
    { value = function(p) return 2 * p.c / (p.l * p.d) end, feedback = "Take the square root." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { d = 0.5, l = 2000, c = 10000 }, answer = "4.47", score = 1 },
    { params = { d = 0.5, l = 2000, c = 10000 }, answer = "20", score = 0 },
    { params = { d = 0.5, l = 2000, c = 10000 }, answer = "3.16", score = 0 },
    { "monthly", "invalid" },
  },
}

question {
  id = "inference.drift-kind",
  kind = "choice",
  title = "Which drift?",
  prompt = [[
A fraud model's input features look just like its training data, but as
the weeks pass more and more of the transactions it scores as safe turn
out to be fraud. What is happening?]],
  topics = { "drift", "monitoring" },
  rubric = { "practice.deployment", "advanced.integration" },
  hints = { "Which distribution moved: the inputs', or the labels' given the inputs?" },
  choices = {
    "Concept drift: P(fraud | features) changed, as fraudsters adapted; only labels show it.",
    "Data drift: the inputs' distribution changed.",
    "Overfitting at training time, which shows only after deployment.",
    "A serving bug: the model's latency rose.",
  },
  answer = 1,
  why = {
    [2] = "The inputs look like the training data: P(x) did not move. What moved is what the inputs mean.",
    [3] = "An overfit model would be wrong from the first day, not more wrong week by week.",
    [4] = "Latency does not change which transactions are fraud.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "c", 0 }, { "z", "invalid" } },
}

question {
  id = "inference.lifecycle",
  kind = "ordering",
  title = "The ML lifecycle",
  prompt = "Put these stages of a production model's life in the order of the course's loop.",
  topics = { "lifecycle" },
  rubric = { "practice.deployment", "advanced.integration" },
  hints = { "Training is not the end; what comes after deployment starts the loop again." },
  items = {
    "Collect and prepare the data",
    "Train the model",
    "Validate it on held-out data",
    "Deploy it",
    "Monitor the service and its inputs",
    "Retrain on newer data",
  },
  examples = { { order = { 1, 2, 3, 4, 5, 6 }, score = 1 }, { order = { 1, 2, 4, 3, 5, 6 }, score = 1 - 2 / 15 } },
}

question {
  id = "inference.design",
  kind = "design",
  title = "Design: a model for a phone",
  prompt = [[
A 100 MB FP32 image classifier must run on a phone: under 10 ms per image,
at most 25 MB, and no more than 1% accuracy loss. In a short paragraph:
which compression techniques would you apply, in what order, and how would
you check that the result meets the targets?]],
  points = 4,
  topics = { "quantization", "pruning", "distillation", "latency" },
  rubric = { "practice.deployment", "practice.optimization", "practice.design" },
  hints = {
    "25 MB out of 100 MB is 4×: which technique gives exactly that?",
    "What do you do if post-training quantization loses too much accuracy? How do you measure latency honestly?",
  },
  concepts = {
    { name = "INT8 quantization", points = 2,
      claims = {
        { relation = { "quantiz*", "quantis*", "convert*", "cast*", "store*", "use*", "go*", "turn*",
                       "shrink*", "compress*", "reduc*", "mov*" },
          object = { "int8", "8-bit", "8 bit", "8 bits", "integer*", "4x", "4 x", "25 mb", "quantiz*",
                     "quantis*" } },
        { subject = { "quantiz*", "quantis*", "int8", "8-bit*", "8 bit*", "integer weights" },
          relation = { "give*", "turn*", "shrink*", "cut*", "reduc*", "meet*", "hit*", "fit*", "mak*",
                       "is", "are", "brings", "comes", "get*" },
          object = { "25 mb", "4x", "4 x", "four times", "size target", "target", "quarter", "first",
                     "exactly" } },
        { subject = { "ptq to int8", "int8 ptq", "int8 quantization", "8-bit quantization", "4x", "4 x",
                      "size target", "25 mb" },
          relation = { "is", "comes", "come*", "mean*", "need*", "requir*", "match*", "give*", "call*" },
          object = { "first", "int8", "8-bit*", "8 bit*", "quantiz*", "what" } },
      },
      contradicts = {
        { match = { "keep fp32", "stay in fp32", "fp32 must stay", "must stay in fp32" },
          patterns = { "quanti%a* %a* ?%a* ?loses? far", "int8 would lose" },
          feedback = "You ruled quantization out: INT8 is exactly the 4x the size target needs, and post-training quantization with calibration usually stays within 1% (QAT if not)." },
      },
      feedback = "Quantize to INT8: 32 → 8 bits is exactly the 4× (100 MB → 25 MB)." },
    { name = "PTQ first, QAT if needed",
      claims = {
        { relation = { "start*", "begin*", "try*", "use*", "apply*", "do*", "run*", "fall*", "switch*",
                       "move*", "calibrat*", "retrain*", "train*", "go*", "quantiz*", "quantis*" },
          object = { "ptq", "post-training", "post training", "calibration", "qat", "quantization-aware",
                     "quantisation-aware", "aware training" } },
        { subject = { "ptq", "post-training quantization", "qat", "quantization-aware training",
                      "quantisation-aware training" },
          relation = { "comes", "is", "recover*", "serve*", "fix*", "follow*", "come*", "need*" },
          object = { "first", "fallback", "back", "accuracy", "calibration" } },
      },
      feedback = "Start with post-training quantization (calibration set); switch to quantization-aware training if accuracy drops more than 1%." },
    { name = "structured pruning",
      claims = {
        { relation = { "prun*", "remov*", "drop*", "cut*", "apply*", "use*" },
          object = { "channel*", "filter*", "structured pruning", "structured", "heads", "layers" } },
        { subject = { "structured pruning", "pruning", "pruning of filters", "pruning of channels" },
          relation = { "help*", "speed*", "cut*", "reduc*", "remov*", "shrink*", "lower*" },
          object = { "latency", "speed", "mobile", "phone", "chips", "filters", "channels", "time" } },
      },
      feedback = "Prune structurally (channels, filters) if latency is still too high: unstructured sparsity rarely speeds up phone hardware." },
    { name = "distillation",
      claims = {
        { relation = { "distil*", "train*", "use*", "apply*", "compress*", "shrink*", "then" },
          object = { "student", "smaller model", "distillation", "teacher*" } },
        { subject = { "distillation", "knowledge distillation", "student", "student model" },
          relation = { "recover*", "shrink*", "learn*", "match*", "help*", "restor*", "keep*" },
          object = { "accuracy", "teacher*", "soft*" } },
      },
      feedback = "Distil into a smaller student (with the teacher's soft targets) if the model must shrink beyond what quantization gives, or to recover accuracy." },
    { name = "measure accuracy",
      claims = {
        { relation = { "check*", "measur*", "evaluat*", "validat*", "test*", "compar*", "verify*",
                       "track*", "monitor*" },
          object = { "accuracy", "validation set", "validation", "held-out", "test set", "1% budget",
                     "budget", "1%" } },
        { subject = { "candidate*", "model", "accuracy", "each step", "result" },
          relation = { "evaluated", "validated", "checked", "measured", "tested", "compared" },
          object = { "validation set", "validation", "held-out", "test set", "budget", "1%" } },
      },
      feedback = "Check accuracy on a held-out validation set after every step against the 1% budget." },
    { name = "measure latency on the device",
      claims = {
        { relation = { "benchmark*", "measur*", "tim*", "profil*", "run*", "check*", "test*", "report*" },
          object = { "phone", "device", "latency", "p99", "percentile*", "median", "warm-up", "warm up",
                     "on the phone", "on device", "on-device" } },
        { subject = { "latency", "candidate*", "model", "it" },
          relation = { "timed", "measured", "benchmarked", "profiled", "tested" },
          object = { "device", "phone", "percentile*", "p99", "runs", "median" } },
      },
      feedback = "Measure latency on the real phone (warm-up, many runs, percentiles), not on a workstation." },
  },
  model = [[
INT8 quantization alone turns 100 MB of FP32 weights into 25 MB, exactly the
4× needed, and integer kernels are fast on phones. I would start with
post-training quantization with a calibration set, and fall back to
quantization-aware training (QAT) if accuracy drops more than 1%. If the
latency is still above 10 ms, I would apply structured pruning of channels
and filters and fine-tune, or distil the model into a smaller student using
the teacher's soft targets. After each step I would check accuracy on a
held-out validation set and benchmark latency on the phone itself, after a
warm-up, reporting the median and P99.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
INT8 quantization turns 100 MB of FP32 weights into 25 MB, exactly the 4x
needed, and integer kernels run fast on phone hardware. I would start with
post-training quantization using a small calibration set, and move to
quantization-aware training if the accuracy drops by more than 1%. If an
image still takes over 10 ms, I would prune whole channels (structured
pruning) and fine-tune, or distil the model into a smaller student trained
on the teacher's soft labels. After every step I would check accuracy on a
held-out validation set and benchmark latency on the phone itself, reporting
the median and P99 after a warm-up.]] },
    { role = "good", score = 1, tol = 0, answer = [[
The 4x size target is what 8-bit weights give, so PTQ to INT8 comes first,
with QAT as the fallback if accuracy falls too far. For speed, structured
pruning of filters helps on mobile chips, and knowledge distillation into a
smaller student can recover accuracy. Every candidate is evaluated on a
validation set against the 1% budget and timed on the device with many runs
and percentiles.]] },
    { role = "partial", score = 2 / 7, tol = 0.2, answer = [[
Quantize the model to int8.]] },
    { role = "partial", score = 2 / 7, tol = 0.2, answer = [[
I would distil it into a smaller student model and measure the accuracy on a
validation set.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
INT8, quantization, PTQ, QAT, calibration, structured pruning, distillation,
student, teacher, validation set, accuracy, benchmark on device, P99]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Quantizing to INT8 would lose far more than 1% accuracy, so the weights must
stay in FP32. Pruning never speeds up a phone, distillation is useless for
image models, and there is no need to validate accuracy or benchmark on the
phone, because the desktop numbers are enough.]] },
  },
  examples = {
    { answer = [[
Quantize to INT8 (PTQ with calibration, QAT if accuracy drops), then structured
pruning of channels or distillation to a student; validate accuracy and
benchmark latency on the device.]],
      -- "then structured pruning of channels or distillation to a student"
      -- has no verb: the design reader credits no claim there (5 of 7)
      score = 5 / 7 },
    { "Quantize the model to int8.", 2 / 7 },
    { "Use a faster phone.", 0 },
    { "", "invalid" },
  },
}
