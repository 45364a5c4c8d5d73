-- Lesson: new techniques, new hardware, whole systems.
--
-- The advanced items of the course rubric (novel optimization strategies,
-- future technology adaptation, cross-system integration) get a lesson of
-- their own. Facts come from the course material:
-- gpu-ml-training-inference-guide.md (FlashAttention "O(n²) to O(n)" and
-- "5-20x" memory; PagedAttention, continuous batching; CUDA graphs; 2:4
-- structured sparsity; LoRA and QLoRA; mixture of experts among the future
-- directions; the tensor-core generations V100 -> A100 -> H100 with FP8 and
-- the Transformer Engine; the GPU table with GH200's 144 GB; the model
-- timeline from AlexNet to GPT-4; data loading, pinned memory and the
-- storage hierarchy; NCCL, Gloo and MPI),
-- day5-summary-and-assessment.md (the GPU table with power; the 10,000 QPS,
-- 50 ms P99 serving target; "<10ms (cloud)" latency targets) and
-- gpu-acceleration-cheatsheet.md (kernel launch under 10 µs; NVLink for
-- tensor parallelism, InfiniBand between DGX nodes; PCIe 5.0 at 64 GB/s).
-- The text and the worked examples are ours.
--
-- Precisions taught here:
--   * FlashAttention computes exactly the same result as standard attention
--     (up to floating-point rounding); it removes the S × S score matrix
--     from memory. The guide's "5-20x" is the saving on attention memory for
--     long sequences, not on the whole model.
--   * The day-5 table's H100 "1979 TFLOPS (FP16)" assumes 2:4 sparsity;
--     ratios here use the dense 989 TFLOP/s, as the guide's own table does.
--   * The A100 is the A100 80GB SXM: 312 TFLOP/s FP16, 2039 GB/s, 400 W
--     (the day-5 table's figures; see the memory lesson for the SKUs).
--   * NVLink's 900 GB/s (H100) counts both directions; one direction is
--     450 GB/s, the figure to compare with a network link's 25 GB/s.
--   * GPT-4's parameter count is an outside estimate (the guide says so).
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not; counts are exact (abs = 0.01). GB is 10^9 bytes. Prompts contain
-- no braces except params placeholders.

lesson {
  id = "frontiers",
  title = "New techniques, new hardware, whole systems",
  topics = { "frontiers" },
  rubric = { "advanced.novel" },
}

local COUNT = { abs = 0.01 }

local function num(x) return string.format("%.6g", x) end

-- The day-5 GPU table, dense FP16 tensor-core peaks (TFLOP/s), memory
-- bandwidth (GB/s), power (W), memory (GB), year; GH200 from the guide's
-- table.
local GPUS = {
  V100 = { name = "V100 32GB", fp16 = 125, bw = 900, watts = 300, mem = 32, year = 2018 },   -- the 32 GB model: 2018
  A100 = { name = "A100 80GB SXM", fp16 = 312, bw = 2039, watts = 400, mem = 80, year = 2020 },
  H100 = { name = "H100 80GB SXM", fp16 = 989, bw = 3350, watts = 700, mem = 80, year = 2022 },
  GH200 = { name = "GH200", fp16 = 989, mem = 144, year = 2023 },   -- only its memory is used
}

------------------------------------------------------------------------------
page [[
# Attention without the n² matrix

Standard attention computes, for every head, the S × S matrix of scores
QKᵀ, applies softmax to it, and multiplies by V. The whole score matrix is
written to GPU memory and read back, and for training it is kept for the
backward pass. Its size grows with the **square** of the sequence length:

```
scores per layer = batch × heads × S × S values
one layer, batch 1, 16 heads, S = 8192, FP16:
  1 × 16 × 8192 × 8192 × 2 bytes = 2.15 GB
```

**FlashAttention** never materialises that matrix. It cuts Q, K and V into
tiles that fit in the SM's shared memory, and computes softmax *online*:
it keeps a running maximum and a running sum per row, rescaling the partial
result as each new tile of K and V arrives. What stays in GPU memory is the
S × d output (d = head dimension) and two numbers per row. For the backward
pass it **recomputes** the scores tile by tile instead of storing them:
more FLOPs, far fewer bytes.

- Memory for attention falls from O(S²) to O(S) per head; the guide quotes
  5-20× less attention memory for long sequences.
- It is usually *faster* too: attention is memory bound, and the saved
  reads and writes of the score matrix are most of its time.
- The result is the **same** attention, not an approximation (up to the
  order of floating-point additions).

A technique of this kind, a new *schedule* for the same mathematics that
moves fewer bytes, is what "novel optimization" most often means in
practice: the roofline of the memory lesson says where to look.
]]

question {
  id = "frontiers.attn-scores",
  kind = "numeric",
  title = "The score matrix that FlashAttention avoids (your numbers)",
  prompt = [[
A transformer layer runs standard attention on a batch of {b} sequence(s) of
{s} tokens with {h} heads, and stores the attention scores in FP16
(2 bytes). How many GB does one layer's score matrix take?
Give three significant figures.]],
  unit = "GB",
  topics = { "flashattention", "attention", "memory" },
  rubric = { "advanced.novel", "theory.memory" },
  hints = {
    "One head holds an S × S matrix of scores.",
    "Bytes = batch × heads × S × S × 2.",
  },
  params = function(rng)
    return { b = rng:pick({ 1, 2, 4, 8 }), h = rng:pick({ 8, 16, 32, 64 }),
             s = rng:pick({ 512, 2048, 4096, 8192, 16384 }) }
  end,
  answer = function(p) return p.b * p.h * p.s * p.s * 2 / 1e9 end,
  wrong = {
    { value = function(p) return p.b * p.s * p.s * 2 / 1e9 end,
      feedback = "Every head has its own S × S scores: multiply by the {h} heads." },
    { value = function(p) return p.b * p.h * p.s * p.s / 1e9 end,
      feedback = "FP16 takes 2 bytes per value." },
    { value = function(p) return p.b * p.h * p.s * 2 / 1e9 end,
      feedback = "The scores are S × S per head, not S: each token attends to every token." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: batch 1, 16 heads, S = 8192: 2.15 GB.
    { params = { b = 1, h = 16, s = 8192 }, answer = "2.147", score = 1 },
    { params = { b = 1, h = 16, s = 8192 }, answer = "2048 MiB", score = 1 },
    { params = { b = 1, h = 16, s = 8192 }, answer = "0.134", score = 0 },
    { params = { b = 1, h = 16, s = 8192 }, answer = "1.07", score = 0 },
    { "2 GB/s", "invalid" },
  },
}

question {
  id = "frontiers.flash-ratio",
  kind = "numeric",
  title = "Scores against output (your numbers)",
  prompt = [[
One attention head works on S = {s} tokens with head dimension d = {d}.
Standard attention stores the S × S score matrix; FlashAttention stores only
the S × d output (and two numbers per row, which you may ignore). How many
times larger is the score matrix than the output?
Give three significant figures.]],
  unit = "x",
  topics = { "flashattention", "attention", "memory" },
  hints = { "Divide S × S by S × d." },
  params = function(rng)
    return { s = rng:pick({ 1024, 2048, 4096, 8192, 16384 }), d = rng:pick({ 64, 128 }) }
  end,
  answer = function(p) return p.s / p.d end,
  wrong = {
    { value = function(p) return p.s end,
      feedback = "The output is S × d, not S × 1: divide by the head dimension too." },
    { value = function(p) return p.d / p.s end,
      feedback = "Upside down: the score matrix is the larger one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring(p.s / p.d) end, score = 1 },
    { params = { s = 4096, d = 128 }, answer = "32", score = 1 },
    { params = { s = 4096, d = 128 }, answer = "4096", score = 0 },
    { "many", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Serving memory: paged KV cache and continuous batching

A generating model keeps every sequence's keys and values (the **KV cache**)
in GPU memory, and the cache, not the weights, decides how many sequences
can be served at once. Two ideas from serving systems changed how it is
managed.

**Paged KV cache (vLLM's PagedAttention).** A simple server reserves, for
every sequence, room for the *maximum* length it might reach. Most
sequences stop far earlier, so most of that memory is reserved and never
used. PagedAttention manages the cache like an operating system manages
virtual memory: the cache is cut into fixed **blocks** (say 16 tokens), a
sequence gets a new block only when it fills its last one, and a table maps
each sequence to its blocks, which need not be contiguous. The waste shrinks
to the unused tail of each sequence's last block, and sequences that share a
prefix (the same system prompt) can share its blocks.

## Worked example

Sequences may grow to 4096 tokens but average 1024. Reserving the maximum
wastes 1 − 1024/4096 = **75 %** of the cache, so only a quarter as many
sequences fit as could. A sequence of 1000 tokens in blocks of 16 takes
⌈1000/16⌉ = 63 blocks = 1008 token slots: **8 slots** wasted.

**Continuous batching.** With static batching a batch of requests runs
until its *longest* request is done; a request that finished early leaves
its slot idle. Four requests generating 100, 400, 50 and 250 tokens keep
their four slots busy for 100 + 400 + 50 + 250 = 800 of the 4 × 400 = 1600
slot-steps: **50 %**. Continuous batching (iteration-level scheduling)
admits a waiting request into a slot as soon as one frees up, at the next
decoding step, so slots stay busy while the queue is not empty.
]]

question {
  id = "frontiers.prealloc-waste",
  kind = "numeric",
  title = "Reserved for the maximum length (your numbers)",
  prompt = [[
A server reserves KV-cache room for {maxlen} tokens for every sequence, but
its sequences end after {avg} tokens on average. What share of the reserved
cache is never used, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "kv-cache", "pagedattention", "serving" },
  rubric = { "advanced.novel", "practice.deployment" },
  hints = { "Used share = average length / reserved length; the rest is waste." },
  params = function(rng)
    local maxlen, avg
    repeat
      maxlen = rng:pick({ 2048, 4096, 8192, 32768 })
      avg = rng:pick({ 300, 512, 800, 1024, 1500, 2000 })
    until avg < maxlen and 2 * avg ~= maxlen
    return { maxlen = maxlen, avg = avg }
  end,
  answer = function(p) return 100 * (1 - p.avg / p.maxlen) end,
  wrong = {
    { value = function(p) return 100 * p.avg / p.maxlen end,
      feedback = "That is the share that IS used. The question asks for the waste." },
    { value = function(p) return 1 - p.avg / p.maxlen end,
      feedback = "That is a fraction; give per cent." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 1024 of 4096 tokens used.
    { params = { maxlen = 4096, avg = 1024 }, answer = "75", score = 1 },
    { params = { maxlen = 4096, avg = 1024 }, answer = "25", score = 0 },
    { "most", "invalid" },
  },
}

question {
  id = "frontiers.paged-waste",
  kind = "numeric",
  title = "The last block's tail (your numbers)",
  prompt = [[
A paged KV cache hands out blocks of {blk} tokens. A sequence has {n} tokens
so far. How many token slots of its blocks are allocated but unused?
Give a whole number.]],
  topics = { "kv-cache", "pagedattention", "serving" },
  rubric = { "advanced.novel", "theory.memory" },
  hints = {
    "The sequence holds ⌈{n}/{blk}⌉ blocks.",
    "Unused = blocks × {blk} − {n}.",
  },
  params = function(rng)
    local blk, n
    repeat
      blk = rng:pick({ 8, 16, 32 })
      n = rng:int(100, 5000)
    until n % blk ~= 0 and 2 * (n % blk) ~= blk and blk - n % blk ~= (n + blk - 1) // blk
    return { blk = blk, n = n }
  end,
  answer = function(p) return (p.n + p.blk - 1) // p.blk * p.blk - p.n end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return p.n % p.blk end,
      feedback = "{n} mod {blk} is how many slots of the last block ARE used. The unused rest is {blk} minus that." },
    { value = function(p) return (p.n + p.blk - 1) // p.blk end,
      feedback = "That is the number of blocks. The question asks for unused token slots." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    -- The page's example: 1000 tokens in blocks of 16: 63 blocks, 8 unused.
    { params = { blk = 16, n = 1000 }, answer = "8", score = 1 },
    { params = { blk = 16, n = 1000 }, answer = "63", score = 0 },
    { params = { blk = 16, n = 1000 }, answer = "9", score = 0 },
    { "eight", "invalid" },
  },
}

question {
  id = "frontiers.static-batch",
  kind = "numeric",
  title = "Slots kept busy by static batching (your numbers)",
  prompt = [[
A static batch of four requests generates {l1}, {l2}, {l3} and {l4} tokens;
the batch runs until its longest request is done, one token per request per
step. What share of the batch's slot-steps does useful work, in per cent?
Give three significant figures.]],
  points = 2,
  unit = "%",
  topics = { "continuous-batching", "serving" },
  rubric = { "advanced.novel", "practice.deployment" },
  hints = {
    "The batch takes as many steps as its longest request.",
    "Useful slot-steps = the sum of the four lengths; available = 4 × the longest.",
  },
  params = function(rng)
    local l = {}
    for i = 1, 4 do l[i] = rng:pick({ 20, 50, 80, 100, 150, 250, 300, 400, 500 }) end
    local mx, mn, sum = math.max(l[1], l[2], l[3], l[4]), math.min(l[1], l[2], l[3], l[4]), l[1] + l[2] + l[3] + l[4]
    if mx == mn or math.abs(sum / (4 * mx) - mn / mx) < 0.02 then
      l = { 100, 400, 50, 250 }
    end
    return { l1 = l[1], l2 = l[2], l3 = l[3], l4 = l[4] }
  end,
  answer = function(p)
    local mx = math.max(p.l1, p.l2, p.l3, p.l4)
    return 100 * (p.l1 + p.l2 + p.l3 + p.l4) / (4 * mx)
  end,
  wrong = {
    { value = function(p)
        local mx = math.max(p.l1, p.l2, p.l3, p.l4)
        return (p.l1 + p.l2 + p.l3 + p.l4) / (4 * mx)
      end,
      feedback = "That is a fraction; give per cent." },
    { value = function(p)
        return 100 * math.min(p.l1, p.l2, p.l3, p.l4) / math.max(p.l1, p.l2, p.l3, p.l4)
      end,
      feedback = "That compares only the shortest and the longest request. Count every request's tokens." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 100, 400, 50, 250 tokens: 800 of 1600 slot-steps.
    { params = { l1 = 100, l2 = 400, l3 = 50, l4 = 250 }, answer = "50", score = 1 },
    { params = { l1 = 100, l2 = 400, l3 = 50, l4 = 250 }, answer = "12.5", score = 0 },
    { "half", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Fewer launches, fewer bytes, fewer active weights

**CUDA graphs.** A training or decoding step may launch hundreds of small
kernels. Each launch costs the CPU a few microseconds (the cheatsheet's
target is under 10 µs), and when the kernels themselves are short the GPU
waits for the next launch. A CUDA graph *records* the sequence of kernels
once and *replays* it with one launch: the per-kernel launch gaps go away.
It needs the same shapes every time (a static graph), which is why it suits
decoding with fixed batch slots.

**2:4 structured sparsity.** From the A100 on, tensor cores can skip zeros
when exactly two of every four consecutive weights are zero. The matrix is
stored as the two kept values of each group plus a 2-bit index per kept
value saying where it sat. Half the multiplies, and a little over half the
bytes: for FP16, 4 × 16 = 64 bits become 2 × (16 + 2) = 36 bits, 1.78× less.

**QLoRA.** LoRA (the inference lesson) trains small low-rank adapters and
freezes the base model. QLoRA also stores the frozen base in **4 bits**.
Only the adapters need gradients and Adam states, so a 65-billion-parameter
model that would need 16 × 65 = 1040 GB for full fine-tuning (mixed-precision
Adam) needs 0.5 × 65 = 32.5 GB of 4-bit weights plus a few GB for adapters
of 0.5 % of the size (16 × 0.325 = 5.2 GB): about 38 GB, one large GPU.

**Mixture of experts.** The guide lists MoE among the directions the field
is taking. A layer holds E expert feed-forward networks and a router sends
each token to the top k of them (k = 1 or 2). The model *stores* every
expert but each token *computes* with only k: memory grows with E, compute
per token with k. A model with 8 experts of 5 B parameters each and 3 B of
shared (attention) parameters stores 43 B, but a token routed to 2 experts
uses 3 + 2 × 5 = 13 B, about 30 %.
]]

question {
  id = "frontiers.cuda-graph",
  kind = "numeric",
  title = "Launch time a graph saves (your numbers)",
  prompt = [[
A decoding step launches {k} kernels one after another; each launch costs
{l} µs during which the GPU idles. Replayed as a CUDA graph, the whole step
costs one launch. How many microseconds does the graph save per step?
Give three significant figures.]],
  unit = "us",
  topics = { "cuda-graphs", "launch-overhead" },
  rubric = { "advanced.novel", "practice.optimization" },
  hints = { "Before: {k} launches. After: one." },
  params = function(rng)
    return { k = rng:pick({ 10, 20, 40, 50 }), l = rng:pick({ 4, 5, 8, 10 }) }
  end,
  answer = function(p) return (p.k - 1) * p.l end,
  wrong = {
    { value = function(p) return p.k * p.l end,
      feedback = "The graph still costs one launch: {k} − 1 launches are saved." },
    { value = function(p) return p.l end,
      feedback = "That is one launch. The graph saves all of them but one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring((p.k - 1) * p.l) end, score = 1 },
    { params = { k = 40, l = 5 }, answer = "195", score = 1 },
    { params = { k = 40, l = 5 }, answer = "0.195 ms", score = 1 },
    { params = { k = 40, l = 5 }, answer = "200", score = 0 },
    { "195 MB", "invalid" },
  },
}

question {
  id = "frontiers.sparse24",
  kind = "numeric",
  title = "Bytes of a 2:4 sparse matrix (your numbers)",
  prompt = [[
A weight matrix in {prec} ({bits} bits per value) is pruned to 2:4
structured sparsity and stored as the two kept values of every group of
four plus a 2-bit index per kept value. By what factor is it smaller than
the dense matrix?
Give three significant figures.]],
  unit = "x",
  topics = { "sparsity", "compression" },
  rubric = { "advanced.novel", "practice.optimization" },
  hints = {
    "Dense: 4 × {bits} bits per group of four.",
    "Sparse: 2 × ({bits} + 2) bits per group.",
  },
  params = function(rng)
    local t = rng:pick({ { "FP16", 16 }, { "BF16", 16 }, { "INT8", 8 }, { "FP8", 8 } })
    return { prec = t[1], bits = t[2] }
  end,
  answer = function(p) return 4 * p.bits / (2 * (p.bits + 2)) end,
  wrong = {
    { value = 2, feedback = "2× holds for the values alone. Each kept value also carries a 2-bit index." },
    { value = function(p) return 4 * p.bits / (2 * p.bits + 2) end,
      feedback = "Every kept value has its own 2-bit index: 2 × ({bits} + 2) bits per group, not 2 × {bits} + 2." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: FP16, 64 bits -> 36 bits.
    { params = { prec = "FP16", bits = 16 }, answer = "64/36", score = 1 },
    { params = { prec = "FP16", bits = 16 }, answer = "2", score = 0 },
    { params = { prec = "INT8", bits = 8 }, answer = "1.6", score = 1 },
    { "half", "invalid" },
  },
}

question {
  id = "frontiers.qlora-memory",
  kind = "numeric",
  title = "Fine-tuning with QLoRA (your numbers)",
  prompt = [[
A {pb}-billion-parameter model is fine-tuned with QLoRA: its frozen base
weights are stored in 4 bits, and LoRA adapters with {r}% as many
parameters as the base are trained with mixed-precision Adam (16 bytes per
trained parameter). Ignoring activations, how many GB do weights, adapters
and their training state take?
Give three significant figures.]],
  points = 2,
  unit = "GB",
  topics = { "qlora", "lora", "quantization", "memory" },
  rubric = { "advanced.novel", "theory.memory" },
  hints = {
    "Base: {pb} × 10^9 parameters × 0.5 byte.",
    "Adapters: {r}% of {pb} × 10^9 parameters, 16 bytes each. Add the two.",
  },
  params = function(rng)
    return { pb = rng:pick({ 7, 13, 33, 65, 70 }), r = rng:pick({ 0.1, 0.25, 0.5, 1, 2 }) }
  end,
  answer = function(p) return 0.5 * p.pb + 16 * p.pb * p.r / 100 end,
  wrong = {
    { value = function(p) return 16 * p.pb end,
      feedback = "That is full fine-tuning, where every parameter has gradients and Adam states." },
    { value = function(p) return 0.5 * p.pb end,
      feedback = "That is only the 4-bit base. Add the adapters with their gradients and Adam states." },
    { value = function(p) return 2 * p.pb + 16 * p.pb * p.r / 100 end,
      feedback = "That keeps the base in FP16. QLoRA stores it in 4 bits: half a byte per parameter." },
    { value = function(p) return 4 * p.pb + 16 * p.pb * p.r / 100 end,
      feedback = "4 bits is half a BYTE per parameter, not 4 bytes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 65 B with 0.5% adapters: 32.5 + 5.2 GB.
    { params = { pb = 65, r = 0.5 }, answer = "37.7", score = 1 },
    { params = { pb = 65, r = 0.5 }, answer = "1040", score = 0 },
    { params = { pb = 65, r = 0.5 }, answer = "32.5", score = 0 },
    { params = { pb = 65, r = 0.5 }, answer = "135.2", score = 0 },
    { "38 params", "invalid" },
  },
}

question {
  id = "frontiers.moe-active",
  kind = "numeric",
  title = "Parameters a token uses in a mixture of experts (your numbers)",
  prompt = [[
A mixture-of-experts model has {s} B shared parameters (attention,
embeddings) and {e} experts of {x} B parameters each. The router sends every
token to {k} expert(s). What share of the stored parameters does one token
use, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "mixture-of-experts", "future" },
  rubric = { "advanced.novel", "advanced.future" },
  hints = {
    "Stored: {s} + {e} × {x} B.",
    "Used per token: {s} + {k} × {x} B.",
  },
  params = function(rng)
    local p
    repeat
      p = { s = rng:pick({ 2, 3, 5, 10 }), e = rng:pick({ 8, 16, 64 }), x = rng:pick({ 1, 2, 5, 7 }),
            k = rng:pick({ 1, 2 }) }
      local ref = (p.s + p.k * p.x) / (p.s + p.e * p.x)
    until math.abs(ref - p.k / p.e) > 0.02 * ref
    return p
  end,
  answer = function(p) return 100 * (p.s + p.k * p.x) / (p.s + p.e * p.x) end,
  wrong = {
    { value = function(p) return 100 * p.k / p.e end,
      feedback = "k/E counts only the experts. Every token also uses the {s} B shared parameters." },
    { value = function(p) return (p.s + p.k * p.x) / (p.s + p.e * p.x) end,
      feedback = "That is a fraction; give per cent." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 3 B shared, 8 experts of 5 B, top-2: 13 of 43 B.
    { params = { s = 3, e = 8, x = 5, k = 2 }, answer = "30.23", score = 1 },
    { params = { s = 3, e = 8, x = 5, k = 2 }, answer = "25", score = 0 },
    { "a third", "invalid" },
  },
}

question {
  id = "frontiers.exact",
  kind = "multi",
  title = "Faster, and still the same model",
  prompt = [[
Which of these make training or inference cheaper WITHOUT changing what the
model computes (the same outputs, up to the order of floating-point
additions)? Pick all that apply.]],
  points = 2,
  topics = { "flashattention", "pagedattention", "cuda-graphs", "compression" },
  hints = { "Ask of each: does it change a weight, a value's precision or the model itself?" },
  choices = {
    "FlashAttention",
    "Storing the weights in 4 bits",
    "A paged KV cache",
    "Replaying the step as a CUDA graph",
    "Pruning half of the weights",
    "Distilling the model into a smaller one",
  },
  answer = { 1, 3, 4 },
  why = {
    [2] = "Quantization changes every weight to the nearest 4-bit level: the outputs change (a little, if done well).",
    [5] = "Pruning sets weights to zero: a different model, usually fine-tuned afterwards to recover accuracy.",
    [6] = "Distillation trains a different, smaller model that imitates the original.",
  },
  examples = { { "a c d", 1 }, { "acd", 1 }, { "a c", 2 / 3 }, { "b e f", 0 } },
}

------------------------------------------------------------------------------
page [[
# Hardware that keeps changing

Three GPU generations from the course's tables (dense FP16 tensor-core
peaks; the day-5 table's H100 "1979" assumes 2:4 sparsity):

| GPU           | year | FP16 TFLOP/s | memory GB/s | power | memory |
|---------------|------|--------------|-------------|-------|--------|
| V100 32GB     | 2018 | 125          | 900         | 300 W | 32 GB  |
| A100 80GB SXM | 2020 | 312          | 2039        | 400 W | 80 GB  |
| H100 80GB SXM | 2022 | 989          | 3350        | 700 W | 80 GB  |

Each generation also added number formats: the V100's tensor cores
multiply FP16 and accumulate in FP32; the A100 added TF32, BF16, INT8 and
2:4 sparsity; the H100 added **FP8** and the **Transformer Engine**, which
picks FP8 or FP16 per layer from the statistics of its values. GH200 pairs
an H100-class GPU, carrying 144 GB of HBM3e, with a CPU on one module.

**Compute grows faster than bandwidth.** From V100 to H100 peak FP16 grew
989/125 = 7.9×, memory bandwidth 3350/900 = 3.7×. The ridge point
(peak / bandwidth) moved from 139 to 295 FLOP per byte. A kernel with an
arithmetic intensity of 200 FLOP/B was compute bound on a V100 and is memory
bound on an H100: on the new GPU it speeds up by the bandwidth ratio, not the
compute ratio. What gains value with every generation is whatever **moves
fewer bytes**: fusion, lower precision, FlashAttention, larger batches.

**Lower precision is the cheapest upgrade.** Decoding at batch size 1
reads every weight once per token, so its speed is bounded by bandwidth /
bytes per weight. Moving from FP16 on an A100 to FP8 on an H100 halves the
bytes per weight and brings 1.64× the bandwidth: up to
(3350/1) / (2039/2) = **3.3×** more tokens per second.

**Models grow faster still.** AlexNet (2012) had 60 million parameters,
BERT (2018) 340 million, GPT-3 (2020) 175 billion, and GPT-4 (2023) is
estimated at 1.76 trillion. From AlexNet to GPT-3 that is 2917× in eight
years, a factor of 2917^(1/8) ≈ 2.7 per year, while GPU memory grew from
32 GB (the V100 32GB, 2018) to 144 GB (GH200, 2023) in five, about 1.35×
a year. Adapting to new hardware is a habit, not an event: re-measure,
recompute the ridge point, and revisit which optimization matters.
]]

question {
  id = "frontiers.ridge-shift",
  kind = "numeric",
  title = "How far the ridge point moved (your numbers)",
  prompt = [[
Using dense FP16 tensor-core peaks and memory bandwidth ({old}: {pold}
TFLOP/s, {bwold} GB/s; {new}: {pnew} TFLOP/s, {bwnew} GB/s), by what factor
did the ridge point grow from the {old} to the {new}?
Give three significant figures.]],
  unit = "x",
  topics = { "roofline", "hardware-trends" },
  rubric = { "advanced.future", "theory.gpu" },
  hints = {
    "Ridge point = peak FLOP/s / bytes per second, for each GPU.",
    "Divide the new ridge point by the old one.",
  },
  params = function(rng)
    local pair = rng:pick({ { "V100", "A100" }, { "A100", "H100" }, { "V100", "H100" } })
    local a, b = GPUS[pair[1]], GPUS[pair[2]]
    return { old = a.name, new = b.name, pold = a.fp16, bwold = a.bw, pnew = b.fp16, bwnew = b.bw }
  end,
  answer = function(p) return (p.pnew / p.bwnew) / (p.pold / p.bwold) end,
  wrong = {
    { value = function(p) return p.pnew / p.pold end,
      feedback = "That is how much the peak compute grew. The bandwidth grew too; the ridge point is their ratio." },
    { value = function(p) return p.bwnew / p.bwold end,
      feedback = "That is the bandwidth's growth. The ridge point is peak divided by bandwidth." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: V100 (139 FLOP/B) to H100 (295 FLOP/B).
    { params = { old = "V100 32GB", new = "H100 80GB SXM", pold = 125, bwold = 900, pnew = 989, bwnew = 3350 },
      answer = "2.126", score = 1 },
    { params = { old = "V100 32GB", new = "H100 80GB SXM", pold = 125, bwold = 900, pnew = 989, bwnew = 3350 },
      answer = "7.91", score = 0 },
    { "double", "invalid" },
  },
}

question {
  id = "frontiers.upgrade-speedup",
  kind = "numeric",
  title = "What a new GPU gives a given kernel (your numbers)",
  prompt = [[
A kernel has an arithmetic intensity of {ai} FLOP/B and runs at the roofline
bound in FP16. It moves from the {old} ({pold} TFLOP/s, {bwold} GB/s) to the
{new} ({pnew} TFLOP/s, {bwnew} GB/s). By what factor does it speed up?
Give three significant figures.]],
  points = 2,
  unit = "x",
  topics = { "roofline", "hardware-trends" },
  rubric = { "advanced.future", "practice.profiling" },
  hints = {
    "On each GPU the bound is min(peak, AI × bandwidth).",
    "Compute both bounds in TFLOP/s (GB/s × FLOP/B / 1000), then divide.",
  },
  params = function(rng)
    -- The kernel stays memory bound on the new GPU (below its ridge), so the
    -- answer is never simply the compute ratio.
    local p
    repeat
      local pair = rng:pick({ { "V100", "A100" }, { "A100", "H100" }, { "V100", "H100" } })
      local a, b = GPUS[pair[1]], GPUS[pair[2]]
      p = { old = a.name, new = b.name, pold = a.fp16, bwold = a.bw, pnew = b.fp16, bwnew = b.bw,
            ai = rng:pick({ 16, 64, 100, 150, 200, 250 }) }
    until p.ai * p.bwnew / 1000 < p.pnew
    return p
  end,
  answer = function(p)
    return math.min(p.pnew, p.ai * p.bwnew / 1000) / math.min(p.pold, p.ai * p.bwold / 1000)
  end,
  wrong = {
    { value = function(p) return p.pnew / p.pold end,
      feedback = "That is the ratio of the peaks. At {ai} FLOP/B the kernel is memory bound on the {new}: bandwidth sets its speed." },
    { value = function(p) return p.ai * p.bwnew / 1000 end,
      feedback = "That is the new bound in TFLOP/s. The question asks for the speedup: divide by the old bound." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: AI 200 from V100 (compute bound, 125) to H100
    -- (memory bound, 670): 5.36x, not 7.9x.
    { params = { old = "V100 32GB", new = "H100 80GB SXM", pold = 125, bwold = 900, pnew = 989, bwnew = 3350, ai = 200 },
      answer = "5.36", score = 1 },
    { params = { old = "V100 32GB", new = "H100 80GB SXM", pold = 125, bwold = 900, pnew = 989, bwnew = 3350, ai = 200 },
      answer = "7.912", score = 0 },
    { "faster", "invalid" },
  },
}

question {
  id = "frontiers.decode-upgrade",
  kind = "numeric",
  title = "New GPU and new precision for decoding (your numbers)",
  prompt = [[
Decoding at batch size 1 reads every weight once per token. A model runs
with {bits1}-bit weights on an {old} ({bwold} GB/s) and moves to {bits2}-bit
weights on an {new} ({bwnew} GB/s). By what factor can its tokens per second
grow, at most?
Give three significant figures.]],
  points = 2,
  unit = "x",
  topics = { "decoding", "fp8", "hardware-trends" },
  rubric = { "advanced.future", "practice.deployment" },
  hints = {
    "Tokens per second ≤ bandwidth / bytes of weights.",
    "The ratio is (new bandwidth / new bytes per weight) / (old bandwidth / old bytes per weight).",
  },
  params = function(rng)
    local c = rng:pick({ { "A100", 16, "H100", 8 }, { "V100", 16, "H100", 8 }, { "V100", 16, "H100", 4 },
                         { "V100", 16, "A100", 8 }, { "A100", 8, "H100", 4 } })
    local a, b = GPUS[c[1]], GPUS[c[3]]
    return { old = a.name, bwold = a.bw, bits1 = c[2], new = b.name, bwnew = b.bw, bits2 = c[4] }
  end,
  answer = function(p) return (p.bwnew / p.bits2) / (p.bwold / p.bits1) end,
  wrong = {
    { value = function(p) return p.bwnew / p.bwold end,
      feedback = "That is the bandwidth alone. Fewer bits per weight also means fewer bytes to read per token." },
    { value = function(p) return p.bits1 / p.bits2 end,
      feedback = "That is the precision alone. The new GPU's bandwidth counts too." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: FP16 on A100 to FP8 on H100: 3.29x.
    { params = { old = "A100 80GB SXM", bwold = 2039, bits1 = 16, new = "H100 80GB SXM", bwnew = 3350, bits2 = 8 },
      answer = "3.29", score = 1 },
    { params = { old = "A100 80GB SXM", bwold = 2039, bits1 = 16, new = "H100 80GB SXM", bwnew = 3350, bits2 = 8 },
      answer = "1.64", score = 0 },
    { "3x faster", "invalid" },
  },
}

question {
  id = "frontiers.fits-memory",
  kind = "numeric",
  title = "The largest model that fits (your numbers)",
  prompt = [[
What is the largest model, in billions of parameters, whose weights alone
fit in the {mem} GB of one {gpu} when stored in {prec} ({bits} bits per
weight)? Ignore the KV cache, activations and overheads.
Give three significant figures.]],
  topics = { "memory", "hardware-trends", "quantization" },
  rubric = { "advanced.future", "theory.memory" },
  hints = { "Bytes per weight = {bits} / 8. Divide the memory by it." },
  params = function(rng)
    local g = GPUS[rng:pick({ "V100", "A100", "H100", "GH200" })]
    local t = rng:pick({ { "FP32", 32 }, { "FP16", 16 }, { "FP8", 8 }, { "INT4", 4 } })
    return { gpu = g.name, mem = g.mem, prec = t[1], bits = t[2] }
  end,
  answer = function(p) return p.mem / (p.bits / 8) end,
  wrong = {
    { value = function(p) return p.mem / p.bits end,
      feedback = "That divides by bits. Memory is in bytes: {bits} bits are {bits}/8 bytes." },
    { value = function(p) return p.mem * 8 / p.bits * 1000 end,
      feedback = "The answer is in BILLIONS of parameters: {mem} GB is {mem} × 10^9 bytes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { gpu = "GH200", mem = 144, prec = "FP8", bits = 8 }, answer = "144", score = 1 },
    { params = { gpu = "H100 80GB SXM", mem = 80, prec = "INT4", bits = 4 }, answer = "160", score = 1 },
    { params = { gpu = "H100 80GB SXM", mem = 80, prec = "INT4", bits = 4 }, answer = "20", score = 0 },
    { "70B", "invalid" },
  },
}

question {
  id = "frontiers.growth-rate",
  kind = "numeric",
  title = "How fast models grew (your numbers)",
  prompt = [[
{m1} ({y1}) had {p1} parameters; {m2} ({y2}) had {p2}. By what factor per
year did the parameter count grow on average (compound growth)?
Give three significant figures.]],
  points = 2,
  unit = "x",
  topics = { "hardware-trends", "model-scale" },
  rubric = { "advanced.future", "advanced.cost" },
  hints = {
    "Total growth = {p2} / {p1}.",
    "Per year: the ({y2} − {y1})-th root of the total growth.",
  },
  params = function(rng)
    local models = {
      { "AlexNet", 2012, 60e6, "60 million" },
      { "BERT", 2018, 340e6, "340 million" },
      { "GPT-3", 2020, 175e9, "175 billion" },
      { "GPT-4", 2023, 1.76e12, "an estimated 1.76 trillion" },
    }
    local i, j
    repeat i, j = rng:int(1, 4), rng:int(1, 4) until i < j
    local a, b = models[i], models[j]
    return { m1 = a[1], y1 = a[2], n1 = a[3], p1 = a[4], m2 = b[1], y2 = b[2], n2 = b[3], p2 = b[4] }
  end,
  answer = function(p) return (p.n2 / p.n1) ^ (1 / (p.y2 - p.y1)) end,
  wrong = {
    { value = function(p) return p.n2 / p.n1 end,
      feedback = "That is the total growth over {y1}-{y2}. Per year, take its ({y2} − {y1})-th root." },
    { value = function(p) return p.n2 / p.n1 / (p.y2 - p.y1) end,
      feedback = "Growth compounds: divide the exponent, not the factor. Take the ({y2} − {y1})-th root." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: AlexNet to GPT-3, 2917x in 8 years: 2.71x a year.
    { params = { m1 = "AlexNet", y1 = 2012, n1 = 60e6, p1 = "60 million",
                 m2 = "GPT-3", y2 = 2020, n2 = 175e9, p2 = "175 billion" }, answer = "2.71", score = 1 },
    { params = { m1 = "AlexNet", y1 = 2012, n1 = 60e6, p1 = "60 million",
                 m2 = "GPT-3", y2 = 2020, n2 = 175e9, p2 = "175 billion" }, answer = "(175e9/60e6)^(1/8)", score = 1 },
    { params = { m1 = "AlexNet", y1 = 2012, n1 = 60e6, p1 = "60 million",
                 m2 = "GPT-3", y2 = 2020, n2 = 175e9, p2 = "175 billion" }, answer = "364.6", score = 0 },
    { "fast", "invalid" },
  },
}

question {
  id = "frontiers.perf-per-watt",
  kind = "numeric",
  title = "Compute per watt across generations (your numbers)",
  prompt = [[
The {old} peaks at {pold} TFLOP/s (dense FP16) at {wold} W; the {new} at
{pnew} TFLOP/s at {wnew} W. By what factor did peak FP16 compute per watt
grow?
Give three significant figures.]],
  unit = "x",
  topics = { "hardware-trends", "energy" },
  rubric = { "advanced.future", "advanced.cost" },
  hints = { "Compare TFLOP/s per watt: ({pnew}/{wnew}) / ({pold}/{wold})." },
  params = function(rng)
    local pair = rng:pick({ { "V100", "A100" }, { "A100", "H100" }, { "V100", "H100" } })
    local a, b = GPUS[pair[1]], GPUS[pair[2]]
    return { old = a.name, pold = a.fp16, wold = a.watts, new = b.name, pnew = b.fp16, wnew = b.watts }
  end,
  answer = function(p) return (p.pnew / p.wnew) / (p.pold / p.wold) end,
  wrong = {
    { value = function(p) return p.pnew / p.pold end,
      feedback = "That is the peak's growth. The new GPU also draws more power: divide by the power ratio." },
    { value = function(p) return (p.pnew / p.pold) * (p.wnew / p.wold) end,
      feedback = "More watts make each FLOP dearer: divide by the power ratio, do not multiply." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { old = "V100 32GB", pold = 125, wold = 300, new = "H100 80GB SXM", pnew = 989, wnew = 700 },
      answer = "3.39", score = 1 },
    { params = { old = "V100 32GB", pold = 125, wold = 300, new = "H100 80GB SXM", pnew = 989, wnew = 700 },
      answer = "7.91", score = 0 },
    { "more", "invalid" },
  },
}

question {
  id = "frontiers.generations",
  kind = "multi",
  title = "What each generation added",
  prompt = "Which statements about NVIDIA's tensor-core generations are true? Pick all that apply.",
  points = 2,
  topics = { "tensor-cores", "hardware-trends", "precision" },
  rubric = { "advanced.future", "theory.gpu" },
  hints = { "Look at the formats each generation added, and at the bandwidth column of the table." },
  choices = {
    "The V100's tensor cores multiply FP16 and accumulate in FP32.",
    "The A100 added TF32, BF16, INT8 and 2:4 structured sparsity.",
    "The H100 added FP8 and the Transformer Engine.",
    "Memory bandwidth grew as fast as peak compute from V100 to H100.",
    "The day-5 table's 1979 TFLOP/s for the H100 is its dense FP16 peak.",
  },
  answer = { 1, 2, 3 },
  why = {
    [4] = "No: compute grew 7.9×, bandwidth 3.7×. That is why the ridge point moved up.",
    [5] = "No: 1979 assumes 2:4 sparsity; the dense FP16 peak is about 989.",
  },
  examples = { { "a b c", 1 }, { "abc", 1 }, { "a b", 2 / 3 }, { "d e", 0 } },
}

question {
  id = "frontiers.memory-wall",
  kind = "choice",
  title = "What gains value on the next GPU",
  prompt = [[
A new GPU generation raises peak compute 3× and memory bandwidth 1.6×.
Which optimization of an existing training job is most likely to become MORE
valuable on it?]],
  topics = { "hardware-trends", "roofline" },
  rubric = { "advanced.future", "practice.optimization" },
  hints = { "Where does the ridge point go, and which kernels does that hurt?" },
  choices = {
    "Fusing element-wise kernels so intermediate tensors never go to memory.",
    "Rewriting the matrix multiplies to use fewer FLOPs.",
    "Adding more data-loader worker processes on the CPU.",
    "Nothing: a faster GPU makes every kernel equally faster.",
  },
  answer = 1,
  why = {
    [2] = "Large matrix multiplies are compute bound and gain the full 3×; the memory-bound kernels around them gain only 1.6× and become a larger share of the step.",
    [3] = "Only if data loading is already the bottleneck; nothing in the new GPU changes that.",
    [4] = "Memory-bound kernels speed up by the bandwidth ratio (1.6×), compute-bound ones by up to 3×.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 } },
}

question {
  id = "frontiers.upgrade-replicas",
  kind = "numeric",
  title = "Replicas after an upgrade (your numbers)",
  prompt = [[
A decoding service is memory-bandwidth bound and needs {n} replicas on {old}
GPUs ({bwold} GB/s). The same model, at the same precision, moves to {new}
GPUs ({bwnew} GB/s), one replica per GPU. How many replicas does the same load
need now?
Give a whole number.]],
  topics = { "hardware-trends", "serving", "cost" },
  rubric = { "advanced.future", "advanced.cost" },
  hints = {
    "A memory-bound replica's throughput grows with the bandwidth.",
    "Replicas = ⌈{n} × {bwold} / {bwnew}⌉.",
  },
  params = function(rng)
    local pair = rng:pick({ { "V100", "A100" }, { "A100", "H100" }, { "V100", "H100" } })
    local a, b = GPUS[pair[1]], GPUS[pair[2]]
    local n
    repeat
      n = rng:int(6, 60)
    until math.abs(n * a.bw / b.bw - math.floor(n * a.bw / b.bw + 0.5)) > 0.05
      and math.ceil(n * a.bw / b.bw) ~= math.ceil(n * a.fp16 / b.fp16)
    return { n = n, old = a.name, bwold = a.bw, new = b.name, bwnew = b.bw, pold = a.fp16, pnew = b.fp16 }
  end,
  answer = function(p) return math.ceil(p.n * p.bwold / p.bwnew) end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return math.ceil(p.n * p.pold / p.pnew) end,
      feedback = "That scales by peak compute. A memory-bound service speeds up only by the bandwidth ratio." },
    { value = function(p) return p.n * p.bwold / p.bwnew end,
      feedback = "Replicas are whole: round up." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { params = { n = 20, old = "A100 80GB SXM", bwold = 2039, new = "H100 80GB SXM", bwnew = 3350, pold = 312, pnew = 989 },
      answer = "13", score = 1 },
    { params = { n = 20, old = "A100 80GB SXM", bwold = 2039, new = "H100 80GB SXM", bwnew = 3350, pold = 312, pnew = 989 },
      answer = "7", score = 0 },
    { "13 GPUs", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# FPGAs and 16-bit fixed point

An **FPGA** is a chip of configurable logic: lookup tables, flip-flops,
blocks of on-chip RAM and hard multiply-accumulate units (DSP slices),
wired together by a configuration compiled from a hardware description.
For inference that means a datapath made for one model: activations
stream through a pipeline of multipliers with no instructions to fetch,
no caches to miss and timing fixed to the clock cycle.

| strengths                           | weaknesses                         |
|-------------------------------------|------------------------------------|
| low, predictable latency at batch 1 | lower peak than GPU tensor cores   |
| energy-efficient on a fixed model   | little on-chip memory              |
| any bit width: 16, 8, 4, 1 bits     | hours to compile (place and route) |
| reconfigurable, unlike an ASIC      | harder to program than CUDA        |

They serve where latency must be small and steady: network cards,
trading systems, search ranking (Microsoft's Brainwave ran Bing's models
on FPGAs at batch 1).

**Fixed point.** DSP slices multiply integers, so FPGAs (and small
microcontrollers) compute in fixed point: a 16-bit integer q stands for
q / 2^f, with f bits after an implied binary point. In the Qm.f format 1
bit is the sign, m bits the integer part and f the fraction, m + f = 15:

```
resolution   2^-f                           Q7.8:  1/256 = 0.0039
range        -2^m  to  2^m - 2^-f           Q7.8:  -128 to 127.996
code of x    round(x × 2^f)                 Q7.8:  1.5 -> 384
product      Qm.f × Qm.f has 2f fraction bits in 32: shift right by f
```

Against FP32, 16-bit fixed point halves the memory and the bandwidth
per value, and a 16 × 16-bit multiplier is a small fraction of the logic
of a floating-point one, so many more fit on the chip. The price is a
fixed range: too few fraction bits round small values away, too few
integer bits overflow. So f is chosen per layer or per tensor, as a
quantization scale is. The course's claim, 16-bit fixed point instead of
32-bit floating point for much faster training and inference at a small
loss, holds with that care (and, for training, stochastic rounding, so
that small updates are not always rounded to zero).
]]

question {
  id = "frontiers.fixed-code",
  kind = "numeric",
  title = "A value in fixed point (your numbers)",
  prompt = [[
A 16-bit fixed-point format has {f} fraction bits (Q{m}.{f}). Which integer
code stores x = {x}, rounded to the nearest code? (A whole number.)]],
  topics = { "fpga", "fixed-point" },
  rubric = { "advanced.future", "practice.optimization" },
  hints = {
    "A code q stands for q / 2^f.",
    "q = round({x} × 2^{f}).",
  },
  params = function(rng)
    local f = rng:pick({ 8, 10, 12, 13 })
    local x, q
    -- x is not an exact code (rounding must show) nor near a tie between
    -- two codes, and fits the format's range
    repeat
      x = rng:int(-4000, 4000) / 1000
      q = x * 2 ^ f
      local off = math.abs(q - math.floor(q + 0.5))
    until math.abs(x) >= 0.1 and off > 0.05 and off < 0.45 and math.abs(x) < 2 ^ (15 - f)
    return { f = f, m = 15 - f, x = x }
  end,
  answer = function(p) return math.floor(p.x * 2 ^ p.f + 0.5) end,
  tolerance = { abs = 0 },   -- one code
  wrong = {
    { value = function(p)
        local q = p.x * 2 ^ p.f
        local t = q < 0 and math.ceil(q) or math.floor(q)
        return t ~= math.floor(q + 0.5) and t
      end,
      feedback = "That truncates the fraction; the code is the NEAREST integer to x × 2^f." },
    { value = function(p) return math.floor(p.x * 2 ^ p.m + 0.5) end,
      feedback = "Scale by 2 to the number of FRACTION bits, f = {f}." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 3) end, score = 0 },
    { params = { f = 8, m = 7, x = 1.37 }, answer = "351", score = 1 },    -- 350.72
    { params = { f = 8, m = 7, x = 1.37 }, answer = "350", score = 0 },    -- truncated
    { "q", "invalid" },
  },
}

question {
  id = "frontiers.fixed-range",
  kind = "numeric",
  title = "The range of a fixed-point format (your numbers)",
  prompt = [[
A signed 16-bit fixed-point format keeps {f} fraction bits (Q{m}.{f}).
What is the largest value it can represent?
Give three significant figures.]],
  topics = { "fpga", "fixed-point" },
  rubric = { "advanced.future", "theory.gpu" },
  hints = {
    "The largest code is 2^15 − 1; each code stands for code / 2^f.",
    "(2^15 − 1) / 2^{f} = 2^{m} − 2^-{f}.",
  },
  params = function(rng)
    local f = rng:pick({ 4, 6, 8, 10, 12, 14 })
    return { f = f, m = 15 - f }
  end,
  answer = function(p) return (2 ^ 15 - 1) / 2 ^ p.f end,
  wrong = {
    { value = function(p) return (2 ^ 16 - 1) / 2 ^ p.f end,
      feedback = "One of the 16 bits is the sign: the largest code is 2^15 − 1, not 2^16 − 1." },
    { value = function(p) return 2 ^ p.f end,
      feedback = "The fraction bits set the resolution 2^-f; the range comes from the other 15 − f bits." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { f = 8, m = 7 }, answer = "127.996", score = 1 },
    { params = { f = 8, m = 7 }, answer = "128", score = 1 },            -- within 1%
    { params = { f = 8, m = 7 }, answer = "256", score = 0 },
    { "big", "invalid" },
  },
}

question {
  id = "frontiers.fpga-fit",
  kind = "choice",
  title = "Where an FPGA wins",
  prompt = "For which of these workloads is an FPGA the strongest candidate?",
  topics = { "fpga" },
  rubric = { "advanced.future", "practice.design" },
  hints = { "An FPGA trades peak throughput for a fixed, pipelined datapath." },
  choices = {
    "A small, stable model answering single requests within a few microseconds, all day.",
    "Training a 70 B-parameter language model.",
    "Research code whose model changes every day.",
    "Serving a large model at the highest possible tokens per second with big batches.",
  },
  answer = 1,
  why = {
    [2] = "Training large models needs the peak FLOP/s and memory of GPUs (or TPUs); FPGAs have far less of both.",
    [3] = "Every change means hours of synthesis and place-and-route; GPUs run new code at once.",
    [4] = "Large batches play to the GPU's tensor-core throughput; the FPGA's edge is latency at batch 1.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "z", "invalid" } },
}

------------------------------------------------------------------------------
page [[
# Energy, heat and performance per watt

Power decides what a GPU can sustain and what a deployment costs. The
course's table gives board power: V100 300 W, A100 400 W, H100 700 W; its
inference target is more than 100 inferences per watt-hour.

```
energy per inference (J)  = power (W) / throughput (inferences/s)
inferences per Wh         = throughput × 3600 / power (W)
performance per watt      = throughput / power
```

An H100 at 700 W serving 1000 queries per second spends 0.7 J per query:
1000 × 3600 / 700 ≈ 5100 inferences per Wh. An optimised model on a GPU
clears the course's target easily; it binds on CPUs, small devices, and
large language models, whose one answer is hundreds of forward passes.

**Thermals.** All that power becomes heat. A GPU holds its boost clock
only while it stays under its power limit and its temperature limit;
past them the driver lowers the clock (power or thermal throttling) and
throughput drops with it. The signs: a benchmark that slows down after a
minute, clocks below their maximum under steady load, throttle reasons
in `nvidia-smi -q -d PERFORMANCE`. Causes: hot inlet air, blocked
airflow, neighbours heating each other. Measure the steady state, not
the first seconds.

**Power capping.** The last per cent of speed costs the most power:
dynamic power grows with voltage squared times clock, and a higher clock
needs a higher voltage. A power cap (`nvidia-smi -pl 500`) therefore
often loses little throughput. Capping an H100 from 700 W to 500 W at a
10 % loss of throughput raises performance per watt by
0.9 / (500 / 700) = 1.26×.

**The building pays too.** A data centre's PUE (power usage
effectiveness) is its total power over the power of its computers, about
1.1 to 1.5: cooling and power conversion add 10 to 50 % to every watt a
GPU draws.
]]

question {
  id = "frontiers.inferences-per-wh",
  kind = "numeric",
  title = "Inferences per watt-hour (your numbers)",
  prompt = [[
A {dev} drawing {w} W serves {qps} inferences per second. How many
inferences per watt-hour is that?
Give three significant figures.]],
  topics = { "energy" },
  rubric = { "advanced.cost", "practice.deployment" },
  hints = {
    "One watt-hour is 3600 joules.",
    "Inferences per Wh = {qps} × 3600 / {w}.",
  },
  params = function(rng)
    local d = rng:pick({ { "GPU (H100)", 700 }, { "GPU (A100)", 400 }, { "CPU server", 250 },
                         { "edge board", 15 } })
    return { dev = d[1], w = d[2], qps = rng:pick({ 2, 20, 150, 1000, 4000 }) }
  end,
  answer = function(p) return p.qps * 3600 / p.w end,
  wrong = {
    { value = function(p) return p.qps / p.w end,
      feedback = "That is inferences per joule (per watt-second). A watt-hour is 3600 of them." },
    { value = function(p) return p.w / p.qps end,
      feedback = "That is the energy per inference in joules; the question asks inferences per watt-hour." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { dev = "GPU (H100)", w = 700, qps = 1000 }, answer = "5140", score = 1 },
    { params = { dev = "GPU (H100)", w = 700, qps = 1000 }, answer = "1.43", score = 0 },
    { params = { dev = "GPU (H100)", w = 700, qps = 1000 }, answer = "0.7", score = 0 },
    { "lots", "invalid" },
  },
}

question {
  id = "frontiers.power-cap",
  kind = "numeric",
  title = "Performance per watt under a power cap (your numbers)",
  prompt = [[
A GPU's power limit is lowered from {p1} W to {p2} W, and it loses {loss}%
of its throughput. By what factor does its performance per watt change?
(Assume it draws its limit in both cases.)
Give three significant figures.]],
  unit = "x",
  topics = { "energy", "power-capping" },
  rubric = { "advanced.cost", "practice.optimization" },
  hints = {
    "Performance per watt = throughput / power: both change.",
    "(1 − {loss}/100) / ({p2} / {p1}).",
  },
  params = function(rng)
    local p1 = rng:pick({ 400, 700 })
    local p2 = p1 == 700 and rng:pick({ 350, 450, 500, 600 }) or rng:pick({ 250, 300, 350 })
    return { p1 = p1, p2 = p2, loss = rng:pick({ 3, 5, 10, 15, 20 }) }
  end,
  answer = function(p) return (1 - p.loss / 100) / (p.p2 / p.p1) end,
  wrong = {
    { value = function(p) return p.p1 / p.p2 end,
      feedback = "That ignores the lost throughput: multiply by 1 − {loss}/100." },
    { value = function(p) return (1 - p.loss / 100) * (p.p2 / p.p1) end,
      feedback = "Less power in the denominator makes each watt do MORE: divide by the power ratio." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { p1 = 700, p2 = 500, loss = 10 }, answer = "1.26", score = 1 },
    { params = { p1 = 700, p2 = 500, loss = 10 }, answer = "1.4", score = 0 },
    { params = { p1 = 700, p2 = 500, loss = 10 }, answer = "0.643", score = 0 },
    { "better", "invalid" },
  },
}

question {
  id = "frontiers.throttling",
  kind = "choice",
  title = "A benchmark that slows down",
  prompt = [[
A training benchmark reaches 410 samples/s in its first minute and then
settles at 350 samples/s, with the data pipeline idle and the inputs the
same throughout. What is the most likely cause?]],
  topics = { "energy", "thermals", "profiling" },
  rubric = { "practice.profiling", "practice.deployment" },
  hints = { "What limits the clock once the chip has warmed up?" },
  choices = {
    "The GPU reached its power or temperature limit and lowered its clock (throttling).",
    "The learning rate decayed.",
    "cudnn.benchmark was still timing algorithms in the first minute.",
    "The model's weights grew larger as it trained.",
  },
  answer = 1,
  why = {
    [2] = "The learning rate changes the numbers computed, not the work per sample.",
    [3] = "Benchmark trials make the FIRST steps slower, not faster.",
    [4] = "The weights' count and size stay the same throughout training.",
  },
  examples = { { "a", 1 }, { "c", 0 }, { "b", 0 }, { "x", "invalid" } },
}

------------------------------------------------------------------------------
page [[
# Fitting the parts together

A training job or a serving system is a chain of parts: storage, CPU,
PCIe, GPU, network, scheduler. The chain runs at the speed of its slowest
link, and an optimization of one part helps only if that part is the
bottleneck.

**The input pipeline.** Images flow from storage (an NVMe SSD reads
3-7 GB/s, network storage 1-10 GB/s) to CPU workers that decode and augment
them, over PCIe (64 GB/s for PCIe 5.0 x16) to the GPU. Each stage has a rate
in images per second; the pipeline delivers the **smallest**. Prefetching
and pinned (page-locked) host memory let the copy to the GPU overlap with
compute: with a second CUDA stream the step takes max(copy, compute)
instead of copy + compute.

**Checkpoints meet storage.** A training checkpoint holds the FP32 master
weights and Adam's two moments, 12 bytes per parameter: 840 GB for a
70-billion-parameter model. At 5 GB/s that is 168 s of writing.

**Collectives meet the network.** NCCL runs all-reduce on NVIDIA GPUs
(NVLink, InfiniBand, GPU-direct); Gloo and MPI run on CPUs and any network.
Tensor parallelism exchanges activations inside every layer, so it belongs
on NVLink inside a node (450 GB/s per direction on an H100), not across a
25 GB/s network link; data parallelism, which communicates once per step,
crosses nodes.

**Latency budgets meet every part.** The course's serving target, P99 under
50 ms at 10,000 QPS, is shared by the network, the batcher's waiting time,
tokenisation, the model and post-processing. Whatever the other parts take
is gone from the model's budget.
]]

question {
  id = "frontiers.input-pipeline",
  kind = "numeric",
  title = "The slowest link of an input pipeline (your numbers)",
  prompt = [[
A training node reads JPEG images of {kb} KB from storage at {sbw} GB/s.
{cores} CPU cores decode and augment them, {rate} images per second per
core. The GPU trains on {gpu} images per second. (PCIe is not a limit.) How
many images per second does the node train on?
Give three significant figures.]],
  topics = { "input-pipeline", "bottleneck" },
  rubric = { "advanced.integration", "practice.profiling" },
  hints = {
    "Storage delivers {sbw} × 10^9 / ({kb} × 1000) images per second.",
    "The pipeline runs at the smallest of the three rates.",
  },
  params = function(rng)
    for _ = 1, 200 do
      local p = { kb = rng:pick({ 110, 150, 250, 500 }), sbw = rng:pick({ 1, 2, 3, 7 }),
                  cores = rng:pick({ 8, 16, 32, 64 }), rate = rng:pick({ 100, 150, 250 }),
                  gpu = rng:pick({ 2000, 3000, 5000, 8000 }) }
      local st, cpu = p.sbw * 1e9 / (p.kb * 1000), p.cores * p.rate
      local ref = math.min(st, cpu, p.gpu)
      local others = { st, cpu, p.gpu }
      local ok = true
      for _, v in ipairs(others) do
        if v ~= ref and math.abs(v - ref) < 0.05 * ref then ok = false end
      end
      if ok and ref ~= p.gpu then return p end
    end
    return { kb = 150, sbw = 3, cores = 16, rate = 150, gpu = 5000 }
  end,
  answer = function(p) return math.min(p.sbw * 1e9 / (p.kb * 1000), p.cores * p.rate, p.gpu) end,
  wrong = {
    { value = function(p) return p.gpu end,
      feedback = "The GPU could train on {gpu} images per second, but it gets only what the slower stages deliver." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { kb = 150, sbw = 3, cores = 16, rate = 150, gpu = 5000 }, answer = "2400", score = 1 },
    { params = { kb = 150, sbw = 3, cores = 16, rate = 150, gpu = 5000 }, answer = "5000", score = 0 },
    { "2400 images", "invalid" },
  },
}

question {
  id = "frontiers.overlap-copy",
  kind = "numeric",
  title = "Overlapping the copy to the GPU (your numbers)",
  prompt = [[
Each training step copies a batch of {b} images of 3 × 224 × 224 FP32 values
to the GPU over {link} ({bw} GB/s), then computes for {g} ms. With pinned
memory and a second CUDA stream, the next batch's copy overlaps the current
step's compute. By what factor does the step time drop?
Give three significant figures.]],
  unit = "x",
  topics = { "input-pipeline", "pcie", "overlap" },
  rubric = { "advanced.integration", "practice.optimization" },
  hints = {
    "Copy time = {b} × 3 × 224 × 224 × 4 bytes / ({bw} × 10^9 bytes/s).",
    "Before: copy + compute. After: max(copy, compute).",
  },
  params = function(rng)
    local l = rng:pick({ { "PCIe 4.0 x16", 32 }, { "PCIe 5.0 x16", 64 } })
    local p
    repeat
      p = { b = rng:pick({ 128, 256, 512, 1024 }), link = l[1], bw = l[2], g = rng:pick({ 5, 10, 20, 40 }) }
      local c = p.b * 3 * 224 * 224 * 4 / (p.bw * 1e9) * 1000
      local ref = (c + p.g) / math.max(c, p.g)
    until math.abs(ref - 2) > 0.05 and ref > 1.02
    return p
  end,
  answer = function(p)
    local c = p.b * 3 * 224 * 224 * 4 / (p.bw * 1e9) * 1000
    return (c + p.g) / math.max(c, p.g)
  end,
  wrong = {
    { value = 2, feedback = "2× only when copy and compute take equally long. Work out the copy time first." },
    { value = function(p)
        local c = p.b * 3 * 224 * 224 * 4 / (p.bw * 1e9) * 1000
        return (c + p.g) / math.min(c, p.g)
      end,
      feedback = "After overlapping, the step takes as long as the LONGER of copy and compute." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- 256 images over PCIe 5.0: 2.41 ms of copy against 10 ms of compute.
    { params = { b = 256, link = "PCIe 5.0 x16", bw = 64, g = 10 }, answer = "1.241", score = 1 },
    { params = { b = 256, link = "PCIe 5.0 x16", bw = 64, g = 10 }, answer = "2", score = 0 },
    { "1.2 ms", "invalid" },
  },
}

question {
  id = "frontiers.checkpoint-write",
  kind = "numeric",
  title = "Writing a training checkpoint (your numbers)",
  prompt = [[
A {pb}-billion-parameter model trains with mixed-precision Adam. Its
checkpoint holds the FP32 master weights and Adam's two FP32 moments
(12 bytes per parameter). Storage takes writes at {bw} GB/s. How many
seconds does writing one checkpoint take?
Give three significant figures.]],
  unit = "s",
  topics = { "checkpointing", "storage" },
  rubric = { "advanced.integration", "theory.memory" },
  hints = { "Size = {pb} × 10^9 × 12 bytes; divide by {bw} × 10^9 bytes per second." },
  params = function(rng)
    return { pb = rng:pick({ 1.3, 7, 13, 70, 175 }), bw = rng:pick({ 1, 2, 5, 10, 25 }) }
  end,
  answer = function(p) return 12 * p.pb / p.bw end,
  wrong = {
    { value = function(p) return 2 * p.pb / p.bw end,
      feedback = "That saves only FP16 weights. Resuming training needs the FP32 master weights and Adam's moments: 12 bytes per parameter." },
    { value = function(p) return 16 * p.pb / p.bw end,
      feedback = "Gradients are not saved (they are recomputed from the next batch): 12 bytes per parameter, not 16." },
    { value = function(p) return 12 * p.pb / p.bw * 8 end,
      feedback = "The storage speed is in gigaBYTES per second: no factor 8." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 70 B at 5 GB/s: 840 GB, 168 s.
    { params = { pb = 70, bw = 5 }, answer = "168", score = 1 },
    { params = { pb = 70, bw = 5 }, answer = "2.8 min", score = 1 },
    { params = { pb = 70, bw = 5 }, answer = "28", score = 0 },
    { params = { pb = 70, bw = 5 }, answer = "224", score = 0 },
    { "168 GB", "invalid" },
  },
}

question {
  id = "frontiers.tp-placement",
  kind = "numeric",
  title = "Tensor parallelism across nodes (your numbers)",
  prompt = [[
In every training step each GPU of a tensor-parallel group sends and
receives {v} GB of activations. Inside a node, NVLink carries {nv} GB/s per
direction; between nodes, the network carries {ib} GB/s. How many seconds
longer does each step's exchange take if the group is split across nodes
(ignore latency)?
Give three significant figures.]],
  unit = "s",
  topics = { "tensor-parallelism", "interconnect", "placement" },
  rubric = { "advanced.integration", "practice.design" },
  hints = {
    "Time on a link = data / bandwidth.",
    "Subtract the NVLink time from the network time.",
  },
  params = function(rng)
    return { v = rng:pick({ 2, 5, 10, 20, 40 }), nv = rng:pick({ 300, 450 }), ib = rng:pick({ 12.5, 25, 50 }) }
  end,
  answer = function(p) return p.v / p.ib - p.v / p.nv end,
  wrong = {
    { value = function(p) return p.v / p.ib end,
      feedback = "That is the time over the network. The question asks how much LONGER than over NVLink." },
    { value = function(p) return p.nv / p.ib end,
      feedback = "That is how many times slower the network is, not the extra seconds." },
    { value = function(p) return p.v / p.ib - p.v / (2 * p.nv) end,
      feedback = "The NVLink figure given is already per direction: do not double it." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { v = 10, nv = 450, ib = 25 }, answer = "0.3778", score = 1 },
    { params = { v = 10, nv = 450, ib = 25 }, answer = "377.8 ms", score = 1 },
    { params = { v = 10, nv = 450, ib = 25 }, answer = "0.4", score = 0 },
    { "18x", "invalid" },
  },
}

question {
  id = "frontiers.backend",
  kind = "choice",
  title = "Which collective library?",
  prompt = [[
A team trains data-parallel on eight nodes of eight H100s each, linked by
InfiniBand. Which communication backend should PyTorch's distributed
package use for the gradient all-reduce?]],
  topics = { "collectives", "nccl" },
  rubric = { "advanced.integration", "practice.deployment" },
  hints = { "Which library is built for NVIDIA GPUs, NVLink and InfiniBand with GPU-direct transfers?" },
  choices = {
    "NCCL",
    "Gloo",
    "A parameter server written in Python over HTTP",
    "No backend: each GPU keeps its own gradients",
  },
  answer = 1,
  why = {
    [2] = "Gloo works on CPUs and any network; for GPU tensors it is much slower than NCCL.",
    [3] = "A central server over HTTP would be the bottleneck the paramserver lesson warns about.",
    [4] = "Without an all-reduce the replicas drift apart: it is no longer one model.",
  },
  examples = { { "a", 1 }, { "b", 0 } },
}

question {
  id = "frontiers.latency-budget",
  kind = "numeric",
  title = "What is left for the model (your numbers)",
  prompt = [[
A service promises P99 latency under {slo} ms. At the 99th percentile the
network round trip takes {net} ms, the dynamic batcher waits up to {wait}
ms, tokenisation takes {tok} ms and post-processing {post} ms. How many
milliseconds are left for the model itself?
Give three significant figures.]],
  unit = "ms",
  topics = { "latency", "serving", "budget" },
  rubric = { "advanced.integration", "practice.deployment" },
  hints = { "Subtract every other part from the {slo} ms objective." },
  params = function(rng)
    return { slo = rng:pick({ 50, 80, 100 }), net = rng:pick({ 3, 5, 8 }), wait = rng:pick({ 5, 10, 15 }),
             tok = rng:pick({ 1, 2, 4 }), post = rng:pick({ 1, 2, 3 }) }
  end,
  answer = function(p) return p.slo - p.net - p.wait - p.tok - p.post end,
  wrong = {
    { value = function(p) return p.slo - p.net - p.tok - p.post end,
      feedback = "The batcher's waiting time counts too: a request may wait {wait} ms before its batch starts." },
    { value = function(p) return p.slo - p.wait end,
      feedback = "Network, tokenisation and post-processing take their share of the budget as well." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The course's 50 ms target with 5 + 10 + 2 + 3 ms of other parts.
    { params = { slo = 50, net = 5, wait = 10, tok = 2, post = 3 }, answer = "30", score = 1 },
    { params = { slo = 50, net = 5, wait = 10, tok = 2, post = 3 }, answer = "40", score = 0 },
    { "30 GB", "invalid" },
  },
}
