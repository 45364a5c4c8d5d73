-- Lesson 3: Memory hierarchy and locality.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md hours 2 and 5, ml-system-optimization-notes.txt
-- parts 5 and 7 and short question 6, gpu-ml-training-inference-guide.md on
-- the roofline model, BLAS levels and data loading,
-- day5-summary-and-assessment.md's GPU table); the text is ours.
--
-- Worked examples of the material that are questions here, with the
-- document's numbers:
--   * the hierarchy order (memory.order) and the access-time ratio
--     L1 : RAM : network = 1 : 50 : 10,000 (memory.ratio-worked);
--   * IJK versus IKJ (memory.ikj-why, memory.innermost; the analytic miss
--     counts in memory.ijk-misses and memory.ikj-ratio);
--   * the guide's roofline analysis on an A100 (312 TFLOP/s; the guide's
--     1935 GB/s is the A100 80GB PCIe card, and this course uses the A100
--     80GB SXM of the day-5 table, 2039 GB/s, everywhere, naming it):
--     ridge point (memory.ridge-a100), 1024^3 FP32 matmul
--     (memory.ai-matmul-1024), element-wise addition (memory.ai-add,
--     memory.add-attainable), 8192^3 FP16 matmul (memory.ai-matmul-8192);
--   * the notes' question "a CNN runs slowly despite high TFLOPs"
--     (memory.cnn-slow).
--
-- Corrections to the material, taught on the pages:
--   * The guide judges an FP32 matmul against the A100's FP16 tensor-core
--     peak (312 TFLOP/s). The FP32 peak is 19.5 TFLOP/s (ridge ~10 FLOP/B);
--     the conclusion (compute bound) holds, the margin does not
--     (memory.fp32-ridge).
--   * The guide calls matrix-vector products "moderate arithmetic
--     intensity". At about 0.5 FLOP/B in FP32 they are memory bound on
--     every GPU (memory.blas-bound).
--   * The day-5 table gives the H100 "1979 TFLOPS (FP16)": that is the
--     figure with 2:4 sparsity; dense FP16 is about 989 TFLOP/s, as the
--     guide's own table says. memory.ridge uses the dense figure.
--   * The crash course puts "network" after HDD. A data-centre network
--     access (microseconds) is faster than an HDD seek (milliseconds);
--     memory.order leaves the network out and the page explains why.
--   * "IKJ: speedup up to 7x" is a measurement on some machine, not a law;
--     the miss count gives 4.5x fewer misses (64-byte lines, doubles) and
--     the lab measures the rest.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not; arithmetic intensity is answered as a plain number of FLOP per
-- byte; prompts contain no braces except params placeholders.

lesson {
  id = "memory",
  title = "Memory hierarchy and locality",
  topics = { "memory-hierarchy" },
  rubric = { "theory.memory" },
}

-- Peak numbers per GPU: FP32 without tensor cores, dense FP16 with tensor
-- cores (TFLOP/s), memory bandwidth (GB/s). Sources: the day-5 table and the
-- guide's table; H100 FP16 is the dense figure (see above).
local GPUS = {
  { name = "H100 80GB SXM", fp32 = 67, fp16 = 989, bw = 3350 },
  { name = "A100 80GB SXM", fp32 = 19.5, fp16 = 312, bw = 2039 },
  { name = "V100 32GB", fp32 = 15.7, fp16 = 125, bw = 900 },
  { name = "RTX 4090", fp32 = 83, fp16 = 165, bw = 1008 },
}

local function gpu_params(rng)
  local g = rng:pick(GPUS)
  local prec = rng:pick({ "FP32", "FP16" })
  local peak = prec == "FP32" and g.fp32 or g.fp16
  return { gpu = g.name, prec = prec, peak = peak, bw = g.bw }
end

-- Ridge point in FLOP per byte from TFLOP/s and GB/s.
local function ridge(peak_tflops, bw_gbs) return peak_tflops * 1000 / bw_gbs end

-- Largest whole b with 3 * b^2 * e <= bytes (three b x b tiles fit).
local function max_tile(bytes, e)
  local b = math.floor(math.sqrt(bytes / (3 * e)))
  while 3 * (b + 1) * (b + 1) * e <= bytes do b = b + 1 end
  while b > 0 and 3 * b * b * e > bytes do b = b - 1 end
  return b
end

------------------------------------------------------------------------------
page [==[
# The memory hierarchy

Fast memory is small and expensive; big memory is slow and cheap. Computers
therefore stack several levels, each bigger and slower than the one above,
and keep the data in use near the top.

```
   fastest, smallest
   +-----------+
   | registers |  < 1 ns              a few KB per core
   +-----------+
   |  L1 cache |  ~1 ns   (4 cycles)  32-64 KB per core
   +-----------+
   |  L2 cache |  ~4 ns               0.5-2 MB per core
   +-----------+
   |  L3 cache |  ~10-40 ns           tens of MB, shared
   +-----------+
   |    DRAM   |  ~50-100 ns          tens of GB to TBs
   +-----------+
   |  NVMe SSD |  ~20-100 us          TBs
   +-----------+
   |    HDD    |  ~5-10 ms            TBs
   +-----------+
   slowest, largest
```

The numbers are typical for a current server and vary by a factor of two or
so between machines; the *ratios* are what matter. The course condenses them
into one line worth remembering:

> L1 : RAM : network  =  1 : 50 : 10,000

If an L1 hit takes 1 ns, a DRAM access takes about 50 ns and a network round
trip inside a data centre about 10 us. A processor that waits for DRAM on
every access runs at a fiftieth of its speed; one that waits for the network
does almost nothing.

**Where is the network?** The course lists it below the HDD. That is right
for a wide-area link (tens of ms across a continent) but not inside one data
centre: an RDMA message takes a few us and even TCP well under a ms, far less
than one HDD seek. Place it by its latency, not by habit.

## Bandwidth matters too

Latency is the time to the first byte; bandwidth is how many bytes per second
follow. Feeding a training job is a bandwidth question:

| source                   | bandwidth, roughly        |
|--------------------------|---------------------------|
| network-attached storage | 1-10 GB/s                 |
| local NVMe SSD           | 3-7 GB/s                  |
| CPU main memory (DRAM)   | 100 to several 100 GB/s   |
| GPU memory (HBM)         | 0.9-3.35 TB/s (V100-H100) |

## Average access time

With a cache, the average time per access is

```
AMAT = hit time + miss rate x miss penalty
```

A 1 ns L1 with a 5 % miss rate to 100 ns DRAM averages 1 + 0.05 x 100 =
6 ns: a 5 % miss rate makes memory six times slower than the cache. Small
changes in miss rate have large effects, which is why locality (next page)
matters so much.
]==]

question {
  id = "memory.order",
  kind = "ordering",
  title = "Order the hierarchy",
  prompt = "Put these levels of the memory hierarchy in order of access time,\nfastest first.",
  topics = { "memory-hierarchy" },
  hints = { "Caches are numbered from the core outwards." },
  items = {
    "registers",
    "L1 cache",
    "L2 cache",
    "L3 cache",
    "DRAM (main memory)",
    "NVMe SSD",
    "hard disk (HDD)",
  },
  examples = {
    { order = { 1, 2, 3, 4, 5, 6, 7 }, score = 1 },
    { order = { 1, 2, 3, 4, 5, 7, 6 }, score = 1 - 2 / 21 },   -- SSD and HDD swapped
    { order = { 7, 6, 5, 4, 3, 2, 1 }, score = 0 },             -- slowest first
    { "a b c", "invalid" },
    { "", "invalid" },
  },
}

question {
  id = "memory.ratio-worked",
  kind = "numeric",
  title = "RAM versus network",
  prompt = [[
The course's rule of thumb for access times is L1 : RAM : network =
1 : 50 : 10,000. By this rule, how many RAM accesses take as long as one
network access?
Give three significant figures.]],
  unit = "x",
  topics = { "memory-hierarchy", "latency" },
  hints = { "Divide the network's share by RAM's share." },
  answer = 200,
  wrong = {
    { value = 10000, feedback = "10,000 compares the network with L1. Compared with RAM it is 10,000 / 50." },
    { value = 50, feedback = "50 is RAM compared with L1. The network compared with RAM is 10,000 / 50." },
    { value = 1 / 200, feedback = "Upside down: the network is the slower one, so the factor is above 1." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "200", 1 },
    { "10000/50", 1 },
    { "10000", 0 },
    { "50", 0 },
    { "210", 0 },     -- 5% off
    { "200 ms", "invalid" },
  },
}

question {
  id = "memory.ratio",
  kind = "numeric",
  title = "From L1 to the network (your numbers)",
  prompt = [[
On a machine where an L1 cache hit takes {l1} ns, how long does a network
access take according to the ratio L1 : RAM : network = 1 : 50 : 10,000?
Answer in microseconds.
Give three significant figures.]],
  unit = "us",
  topics = { "memory-hierarchy", "latency" },
  hints = {
    "The network access is 10,000 times the L1 time.",
    "1 us = 1000 ns.",
  },
  params = function(rng) return { l1 = rng:pick({ 0.5, 0.8, 1, 1.2, 1.5, 2 }) } end,
  answer = function(p) return p.l1 * 10000 / 1000 end,
  wrong = {
    { value = function(p) return p.l1 * 10000 end,
      feedback = "That number is in ns. The question asks for microseconds: divide by 1000." },
    { value = function(p) return p.l1 * 50 / 1000 end,
      feedback = "That is a RAM access (50 times L1). The network is 10,000 times L1." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return tostring(p.l1 * 10) end, score = 1 },
    { answer = function(p) return string.format("%g ns", p.l1 * 10000) end, score = 1 },   -- any time unit
    { answer = function(p) return tostring(p.l1 * 11) end, score = 0 },
    { params = { l1 = 1 }, answer = "10", score = 1 },
    { params = { l1 = 1 }, answer = "0.01 ms", score = 1 },
    { params = { l1 = 1 }, answer = "10000", score = 0 },   -- ns read as us
    { params = { l1 = 1 }, answer = "0.05", score = 0 },    -- RAM
    { "10 GB", "invalid" },
  },
}

question {
  id = "memory.amat",
  kind = "numeric",
  title = "Average memory access time (your numbers)",
  prompt = [[
A cache hit takes {hit} ns. {miss}% of the accesses miss and then wait
{penalty} ns extra for DRAM. What is the average memory access time, in ns?
Give three significant figures.]],
  unit = "ns",
  topics = { "memory-hierarchy", "caches" },
  hints = { "AMAT = hit time + miss rate x miss penalty, with the miss rate as a fraction." },
  params = function(rng)
    -- Not when the hit time of the missing accesses, what the last mistake
    -- below drops, is within the 1% tolerance.
    local p
    repeat
      p = { hit = rng:pick({ 1, 1.5, 2 }), miss = rng:pick({ 2, 3, 5, 8, 10, 20 }),
            penalty = rng:pick({ 60, 80, 100, 120 }) }
    until p.miss / 100 * p.hit > 0.015 * (p.hit + p.miss / 100 * p.penalty)
    return p
  end,
  answer = function(p) return p.hit + p.miss / 100 * p.penalty end,
  wrong = {
    { value = function(p) return p.hit + p.miss * p.penalty end,
      feedback = "Use the miss rate as a fraction: " .. "a 5% miss rate is 0.05, not 5." },
    { value = function(p) return p.miss / 100 * p.penalty end,
      feedback = "Every access pays the hit time first; add it." },
    { value = function(p) return (1 - p.miss / 100) * p.hit + p.miss / 100 * p.penalty end,
      feedback = "The miss penalty comes on top of the hit time (a miss first looks in the cache): AMAT = hit + miss rate x penalty." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", p.hit + p.miss / 100 * p.penalty) end, score = 1 },
    { answer = function(p) return string.format("%.4g", 1.1 * (p.hit + p.miss / 100 * p.penalty)) end, score = 0 },
    { params = { hit = 1, miss = 5, penalty = 100 }, answer = "6", score = 1 },
    { params = { hit = 1, miss = 5, penalty = 100 }, answer = "501", score = 0 },
    { params = { hit = 1, miss = 5, penalty = 100 }, answer = "5", score = 0 },
    { "6 GB/s", "invalid" },
  },
}

question {
  id = "memory.feed-bandwidth",
  kind = "numeric",
  title = "Keeping the GPUs fed (your numbers)",
  prompt = [[
A training machine has {g} GPUs; each consumes {rate} images per second, and
an image is {kb} KB on disk. What read bandwidth must the storage sustain,
in GB/s (1 GB = 1,000,000 KB)?
Give three significant figures.]],
  unit = "GB/s",
  topics = { "memory-hierarchy", "bandwidth", "data-loading" },
  rubric = { "theory.memory", "practice.design" },
  hints = { "Bytes per second = GPUs x images per second per GPU x bytes per image." },
  params = function(rng)
    return { g = rng:pick({ 4, 8, 16 }), rate = rng:pick({ 1000, 2000, 3000, 5000 }),
             kb = rng:pick({ 80, 110, 150, 500 }) }
  end,
  answer = function(p) return p.g * p.rate * p.kb / 1e6 end,
  wrong = {
    { value = function(p) return p.rate * p.kb / 1e6 end,
      feedback = "That feeds one GPU. All of them read at the same time: multiply by their number." },
    { value = function(p) return p.g * p.rate * p.kb / 1e3 end,
      feedback = "That is MB/s. The question asks GB/s: 1 GB is 1000 MB." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", p.g * p.rate * p.kb / 1e6) end, score = 1 },
    { answer = function(p) return string.format("%.4g MB/s", p.g * p.rate * p.kb / 1e3) end, score = 1 },
    { answer = function(p) return string.format("%.4g", 0.9 * p.g * p.rate * p.kb / 1e6) end, score = 0 },
    { params = { g = 8, rate = 2500, kb = 110 }, answer = "2.2", score = 1 },
    { params = { g = 8, rate = 2500, kb = 110 }, answer = "0.275", score = 0 },   -- one GPU
    { "2.2 ms", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Locality

Caches work because programs are predictable in two ways.

- **Temporal locality**: data used now is likely to be used again soon. A
  loop's accumulator, the weights applied to every sample of a batch, the
  pivot of a sort. The cache keeps recently used lines and evicts the least
  recently used (LRU) when it needs room.
- **Spatial locality**: data *near* something used now is likely to be used
  soon. Walking an array, reading the fields of a struct. The cache never
  fetches a single byte: it fetches a whole **line**, 64 bytes on most CPUs
  (16 floats, 8 doubles), and a hardware prefetcher that spots a sequential
  walk fetches the next lines before they are asked for.

## Layout decides the stride

C stores a 2-D array **row by row** (row-major): element `A[i][j]` of an
N x N array of e-byte elements lives at offset (i x N + j) x e.

```
row-major N x N array in memory:

  A[0][0] A[0][1] ... A[0][N-1] | A[1][0] A[1][1] ... | A[2][0] ...
  <-------- one row ---------->
  walk a row:    stride e bytes       -> 64/e elements per line
  walk a column: stride N x e bytes   -> a new line on every access
```

Walking with a stride of s elements, each access needs a new line once
s x e reaches the line size; before that, one line serves 64 / (s x e)
accesses. For a cold cache and an array far larger than the cache:

```
miss rate = min(1, s x e / line size)
```

Doubles walked with stride 1 miss once in 8 accesses (12.5 %); with stride 8
or more, every access misses. Fortran, MATLAB and Julia store arrays column by
column, so there the good direction is reversed. NumPy and PyTorch default to
row-major, but a transposed view is not (in PyTorch, `.is_contiguous()`
tells).
]==]

calculator {
  id = "memory.stride",
  title = "Cache misses of a strided walk",
  inputs = {
    { name = "e", label = "element size", default = 8, min = 1, max = 4096, integer = true, unit = "B" },
    { name = "s", label = "stride", default = 1, min = 1, max = 1e9, integer = true, unit = "elements" },
    { name = "line", label = "cache line", default = 64, min = 1, max = 4096, integer = true, unit = "B" },
  },
  compute = function(v)
    local miss = math.min(1, v.s * v.e / v.line)
    return {
      { label = "miss rate (cold cache, huge array)", value = 100 * miss, unit = "%" },
      { label = "accesses served per line", value = 1 / miss },
      { label = "IJK misses per inner iteration", value = v.e / v.line + 1 },
      { label = "IKJ misses per inner iteration", value = 2 * v.e / v.line },
      { label = "IJK / IKJ", value = (v.e / v.line + 1) / (2 * v.e / v.line), unit = "x" },
    }
  end,
  examples = {
    { inputs = { e = 8, s = 1, line = 64 }, outputs = { 12.5, 8, 1.125, 0.25, 4.5 } },
    { inputs = { e = 8, s = 16, line = 64 }, outputs = { 100, 1 } },
  },
}

question {
  id = "memory.locality-kind",
  kind = "multi",
  title = "Spatial locality",
  prompt = "Which of these access patterns rely on SPATIAL locality? Pick all that apply.",
  topics = { "locality" },
  hints = { "Spatial: neighbouring addresses. Temporal: the same address again." },
  choices = {
    "Summing a float array from its first element to its last.",
    "Applying the same weight matrix to every sample of a batch.",
    "Reading the x, y and z fields of one struct right after each other.",
    "Incrementing one loop counter a million times.",
    "Following a linked list whose nodes were allocated at random addresses.",
  },
  answer = { 1, 3 },
  why = {
    [2] = "Reusing the same weights again and again is temporal locality.",
    [4] = "One variable used over and over is temporal locality.",
    [5] = "Randomly placed nodes have neither: each node is probably in a different cache line.",
  },
  examples = {
    { "a c", 1 },
    { "a", 0.5 },
    { "a b c", 0.5 },
    { "b d", 0 },
    { "a x", "invalid" },
  },
}

question {
  id = "memory.stride-miss",
  kind = "numeric",
  title = "Miss rate of a strided walk (your numbers)",
  prompt = [[
A loop reads a huge array of {e}-byte elements, which is not in the cache,
with a stride of {s}: it reads element i × {s} for i = 0, 1, 2, ... Cache
lines are {line} bytes and nothing is prefetched.
What fraction of the loop's reads miss the cache, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "locality", "caches" },
  hints = {
    "Consecutive reads are {s} x {e} bytes apart.",
    "Miss rate = min(1, stride in bytes / line size).",
  },
  params = function(rng)
    return { s = rng:pick({ 1, 2, 4, 8, 16 }), e = rng:pick({ 4, 8 }), line = rng:pick({ 64, 128 }) }
  end,
  answer = function(p) return 100 * math.min(1, p.s * p.e / p.line) end,
  wrong = {
    { value = function(p) return p.s > 1 and 100 * p.e / p.line end,   -- stride 1: no mistake
      feedback = "That is the miss rate for stride 1. With a stride, each line serves fewer reads: use the stride in bytes." },
    { value = function(p) return p.s * p.e > p.line and 100 * p.s * p.e / p.line end,   -- below a line: no cap to forget
      feedback = "A read cannot miss more than once: once the stride reaches a line, every read misses and the rate stops rising." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", 100 * math.min(1, p.s * p.e / p.line)) end, score = 1 },
    { answer = function(p) return string.format("%.4g", 100 * math.min(1, p.s * p.e / p.line) + 5) end, score = 0 },
    { params = { s = 1, e = 8, line = 64 }, answer = "12.5", score = 1 },
    { params = { s = 1, e = 8, line = 64 }, answer = "12.5%", score = 1 },
    { params = { s = 2, e = 4, line = 64 }, answer = "12.5", score = 1 },
    { params = { s = 2, e = 4, line = 64 }, answer = "6.25", score = 0 },   -- ignored the stride
    { params = { s = 16, e = 8, line = 64 }, answer = "100", score = 1 },
    { params = { s = 16, e = 8, line = 64 }, answer = "200", score = 0 },   -- not capped
    { "one in eight", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Matrix multiply: IJK versus IKJ

`C = A x B` for N x N matrices of doubles, stored row-major. Both loop orders
below do exactly the same 2N^3 floating-point operations; only the order of
memory accesses differs.

```c
/* IJK: the inner loop runs over k */
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++) {
    double sum = 0;
    for (k = 0; k < N; k++)
      sum += A[i][k] * B[k][j];  /* A along a row, B DOWN A COLUMN */
    C[i][j] = sum;
  }

/* IKJ: the inner loop runs over j */
for (i = 0; i < N; i++)
  for (k = 0; k < N; k++) {
    double a = A[i][k];          /* one value, kept in a register */
    for (j = 0; j < N; j++)
      C[i][j] += a * B[k][j];    /* B and C along rows */
  }
```

In IJK the inner loop steps through `B[k][j]` with a stride of N doubles: for
a large N every access is a new cache line (spatial locality wasted). In IKJ
the inner loop walks `B[k][...]` and `C[i][...]` with stride 1, so one 64-byte
line serves 8 consecutive doubles; `A[i][k]` is a single value held in a
register for the whole inner loop (temporal locality), and row i of C is
reused for every k.

Misses per inner-loop iteration, N large, 64-byte lines, 8-byte doubles:

| loop order | A     | B     | C     | total |
|------------|-------|-------|-------|-------|
| IJK, JIK   | 0.125 | 1     | 0     | 1.125 |
| IKJ, KIJ   | 0     | 0.125 | 0.125 | 0.25  |
| JKI, KJI   | 1     | 0     | 1     | 2     |

IKJ has 1.125 / 0.25 = **4.5 times fewer misses** than IJK. Measured gains
are often larger for big matrices (the course quotes up to 7x): the
unit-stride inner loop also lets the compiler use SIMD instructions and the
prefetcher stream whole rows. How much you gain depends on the machine, the
matrix size and the compiler; **see the lab lesson next**, which measures
IJK against IKJ and a stride sweep on your own CPU.

The rule to take away: **make the innermost loop walk memory with stride 1**.
For row-major arrays that is the last index.
]==]

question {
  id = "memory.ikj-why",
  kind = "choice",
  title = "Why IKJ wins",
  prompt = [[
In C, the IKJ loop order of a large matrix multiply runs several times faster
than IJK. Why?]],
  topics = { "locality", "matmul" },
  hints = { "Count the floating-point operations of both first. Then look at the inner loop's accesses to B." },
  choices = {
    "IKJ performs fewer floating-point operations.",
    "IKJ's inner loop walks B and C along rows (stride 1), so each cache line serves several accesses; IJK walks B down a column and misses on almost every access.",
    "IKJ needs less memory for the matrices.",
    "IKJ keeps the whole of B in registers.",
  },
  answer = 2,
  why = {
    [1] = "Both orders perform exactly the same 2N^3 operations; only the memory access order differs.",
    [3] = "The matrices are the same size in both orders.",
    [4] = "B has N^2 elements, far too many for registers. IKJ keeps one element of A in a register.",
  },
  examples = {
    { "b", 1 },
    { "2", 1 },
    { "a", 0 },
    { "d", 0 },
    { "f", "invalid" },
  },
}

question {
  id = "memory.innermost",
  kind = "text",
  title = "Which loop goes inside?",
  prompt = [[
For C[i][j] += A[i][k] * B[k][j] with row-major arrays, which loop index
should be the innermost so that the inner loop walks both B and C with
stride 1? (One letter.)]],
  topics = { "locality", "matmul" },
  hints = { "Stride 1 in a row-major array means the LAST index changes fastest." },
  answer = { "j", "the j loop", "j loop" },
  patterns = { "^j$", "^the j", "^j loop" },
  examples = {
    { "j", 1 },
    { "J", 1 },
    { "the j loop", 1 },
    { "k", 0 },
    { "i", 0 },
    { "", "invalid" },
  },
}

question {
  id = "memory.ijk-misses",
  kind = "numeric",
  title = "Misses per iteration of IJK (your numbers)",
  prompt = [[
Take the IJK matrix multiply with row-major N x N matrices of {e}-byte
elements, N very large, and {line}-byte cache lines. On average, how many
cache misses does one iteration of the inner (k) loop cause, counting A, B
and C together?
Give three significant figures.]],
  topics = { "locality", "matmul", "caches" },
  hints = {
    "A[i][k] walks a row: one miss every {line}/{e} iterations.",
    "B[k][j] walks a column: a miss every iteration. C[i][j] does not change in the inner loop.",
  },
  params = function(rng)
    local c = rng:pick({ { 4, 32 }, { 4, 64 }, { 8, 32 }, { 8, 64 }, { 8, 128 } })
    return { e = c[1], line = c[2] }
  end,
  answer = function(p) return p.e / p.line + 1 end,
  wrong = {
    { value = function(p) return 2 * p.e / p.line end,
      feedback = "That is IKJ's count. In IJK, B is walked down a column: one miss per iteration." },
    { value = function(p) return p.e / p.line end,
      feedback = "You counted A only. B[k][j] walks down a column and misses on every iteration." },
    { value = 2, feedback = "Two misses per iteration is the JKI/KJI order. In IJK, A is walked along a row." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", p.e / p.line + 1) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 2 * p.e / p.line) end, score = 0 },
    { params = { e = 8, line = 64 }, answer = "1.125", score = 1 },
    { params = { e = 8, line = 64 }, answer = "1 + 1/8", score = 1 },
    { params = { e = 8, line = 64 }, answer = "0.25", score = 0 },
    { params = { e = 8, line = 64 }, answer = "1.2", score = 0 },   -- 6.7% off
    { "many", "invalid" },
  },
}

question {
  id = "memory.ikj-ratio",
  kind = "numeric",
  title = "IJK versus IKJ misses (your numbers)",
  prompt = [[
With {e}-byte elements, {line}-byte cache lines and very large N, how many
times more cache misses per inner-loop iteration does the IJK matrix multiply
cause than the IKJ one?
Give three significant figures.]],
  unit = "x",
  topics = { "locality", "matmul", "caches" },
  hints = {
    "Count the misses per inner iteration for each array, using the line size.",
    "IJK: e/line for A plus 1 for B. IKJ: e/line for B plus e/line for C.",
  },
  params = function(rng)
    local c = rng:pick({ { 4, 32 }, { 4, 64 }, { 8, 32 }, { 8, 64 }, { 8, 128 } })
    return { e = c[1], line = c[2] }
  end,
  answer = function(p) return (p.e / p.line + 1) / (2 * p.e / p.line) end,
  wrong = {
    { value = function(p) return p.line / p.e end,
      feedback = "That compares B's misses alone (1 against e/line). Count A in IJK and C in IKJ too." },
    { value = function(p) return p.line / (2 * p.e) end,
      feedback = "Close, but IJK also misses on A once every line/e iterations: its count is 1 + e/line." },
    { value = 7, feedback = "7x is a speedup the course measured on one machine, not a miss count." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", (p.e / p.line + 1) / (2 * p.e / p.line)) end, score = 1 },
    { answer = function(p) return string.format("%.5g", p.line / p.e) end, score = 0 },
    { params = { e = 8, line = 64 }, answer = "4.5", score = 1 },
    { params = { e = 8, line = 64 }, answer = "1.125/0.25", score = 1 },
    { params = { e = 8, line = 64 }, answer = "4", score = 0 },
    { params = { e = 8, line = 64 }, answer = "8", score = 0 },
    { params = { e = 8, line = 64 }, answer = "7", score = 0 },
    { "4.5 s", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Loop tiling

Even IKJ streams all of B through the cache once for every row i: for large
N that is about N^3 elements read from memory, although B has only N^2.
**Tiling** (blocking) reorders the loops so that small blocks are reused
while they are in the cache.

```c
/* tiled matrix multiply, b x b tiles */
for (ii = 0; ii < N; ii += b)
  for (jj = 0; jj < N; jj += b)
    for (kk = 0; kk < N; kk += b)
      /* C tile (ii, jj) += A tile (ii, kk) x B tile (kk, jj) */
      for (i = ii; i < ii + b; i++)
        for (k = kk; k < kk + b; k++)
          for (j = jj; j < jj + b; j++)
            C[i][j] += A[i][k] * B[k][j];
```

```
     A                   B                   C
     +---+---+---+       +---+---+---+       +---+---+---+
     |   |   |   |       |   |B0 |   |       |   |   |   |
     +---+---+---+       +---+---+---+       +---+---+---+
  ii |A0 |A1 |A2 |   x   |   |B1 |   |  -->  |   | C |   |  ii
     +---+---+---+       +---+---+---+       +---+---+---+
     |   |   |   |       |   |B2 |   |       |   |   |   |
     +---+---+---+       +---+---+---+       +---+---+---+
                               jj                  jj

  C tile (ii, jj) += A0 x B0, then A1 x B1, then A2 x B2   (kk = 0, 1, 2)
```

The C tile stays in the cache while kk runs; each step brings in one tile of
A and one of B, 2 b^2 elements, and does 2 b^3 operations on them: every
loaded element is used b times.

- **Tile size.** The three tiles must fit in the cache together:
  3 x b^2 x e <= cache size. For a 32 KiB L1 and doubles,
  b^2 <= 32768 / 24 = 1365, so b <= 36 (32 in practice, a power of two).
- **Traffic.** With (N/b)^3 tile steps of 2 b^2 elements each, the tiled
  multiply loads about **2N^3 / b** elements instead of about N^3: b/2 times
  less. With b = 32 that is 16 times less memory traffic.

Tiling is the central optimisation of dense linear algebra and of
convolutions (im2col and direct), on CPUs for the caches and on GPUs for
**shared memory** (lesson 4): a thread block loads a tile into shared memory
once and all its threads reuse it. It reduces cache misses and global-memory
traffic; it does not change the number of operations.
]==]

calculator {
  id = "memory.tile",
  title = "Tile size and traffic",
  inputs = {
    { name = "kib", label = "cache size", default = 32, min = 1, max = 1e6, unit = "KiB" },
    { name = "e", label = "element size", default = 8, min = 1, max = 64, integer = true, unit = "B" },
    { name = "n", label = "matrix size N", default = 4096, min = 1, max = 1e6, integer = true },
  },
  compute = function(v)
    local b = max_tile(v.kib * 1024, v.e)
    if b < 1 then
      return { { label = "largest tile b", text = "none: three elements do not fit" } }
    end
    return {
      { label = "largest tile b (3 b^2 e <= cache)", value = b },
      { label = "memory of three tiles", value = 3 * b * b * v.e, unit = "B" },
      { label = "traffic untiled, about N^3 e", value = v.n ^ 3 * v.e, unit = "B" },
      { label = "traffic tiled, about 2 N^3 e / b", value = 2 * v.n ^ 3 * v.e / b, unit = "B" },
      { label = "traffic saved", value = b / 2, unit = "x" },
    }
  end,
  examples = {
    { inputs = { kib = 32, e = 8, n = 4096 }, outputs = { 36, 31104, 4096 ^ 3 * 8, 2 * 4096 ^ 3 * 8 / 36, 18 } },
  },
}

question {
  id = "memory.tile-size",
  kind = "numeric",
  title = "Largest tile that fits (your numbers)",
  prompt = [[
A tiled matrix multiply keeps one b x b tile each of A, B and C in a cache
of {kib} KiB (1 KiB = 1024 bytes). The elements are {e}-byte numbers. What
is the largest whole tile size b for which all three tiles fit?
Give a whole number.]],
  topics = { "tiling", "caches" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "All three tiles must fit in the cache at the same time.",
    "The three tiles take 3 x b^2 x {e} bytes.",
    "Solve 3 x b^2 x {e} <= {kib} x 1024 and round b down.",
  },
  params = function(rng)
    return { kib = rng:pick({ 32, 48, 64, 100, 128, 164, 256, 512, 1024 }), e = rng:pick({ 4, 8 }) }
  end,
  answer = function(p) return max_tile(p.kib * 1024, p.e) end,
  -- A whole number: only the exact largest b counts (b + 1 does not fit).
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return max_tile(3 * p.kib * 1024, p.e) end,
      feedback = "That fits ONE tile in the cache. A, B and C each need a tile: 3 x b^2 x e bytes." },
    { value = function(p) return max_tile(p.kib * 1024 * p.e, p.e) end,
      feedback = "You counted elements, not bytes: each element takes e bytes." },
    { value = function(p) return max_tile(p.kib * 1024, p.e) + 1 end,
      feedback = "One too many: three tiles of that size just overflow the cache. Round b down." },
  },
  examples = {
    { answer = function(p) return tostring(max_tile(p.kib * 1024, p.e)) end, score = 1 },
    { answer = function(p) return tostring(max_tile(p.kib * 1024, p.e) - 1) end, score = 0 },
    { params = { kib = 32, e = 8 }, answer = "36", score = 1 },
    { params = { kib = 32, e = 8 }, answer = "37", score = 0 },   -- 3 x 37^2 x 8 = 32856 > 32768
    { params = { kib = 32, e = 8 }, answer = "64", score = 0 },   -- one tile only
    { params = { kib = 32, e = 8 }, answer = "32", score = 0 },   -- a sensible choice, not the largest
    { "36 KB", "invalid" },
  },
}

question {
  id = "memory.tile-traffic",
  kind = "numeric",
  title = "Traffic of a tiled multiply (your numbers)",
  prompt = [[
A tiled multiply of two {n} x {n} matrices of doubles (8 bytes) uses
{b} x {b} tiles, so it loads about 2N^3 / b elements from memory. How many
gigabytes is that (1 GB = 10^9 bytes)?
Give three significant figures.]],
  unit = "GB",
  topics = { "tiling", "bandwidth" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "Blocking cuts traffic because each tile, once loaded, is reused b times.",
    "Elements: 2 x {n}^3 / {b}. Bytes: times 8.",
  },
  params = function(rng)
    return { n = rng:pick({ 1024, 2048, 4096, 8192 }), b = rng:pick({ 16, 32, 64 }) }
  end,
  answer = function(p) return 2 * p.n ^ 3 / p.b * 8 / 1e9 end,
  wrong = {
    { value = function(p) return p.n ^ 3 * 8 / 1e9 end,
      feedback = "That is the untiled traffic, about N^3 elements. Tiling divides it by b/2." },
    { value = function(p) return 2 * p.n ^ 3 / p.b / 1e9 end,
      feedback = "That counts elements; each double is 8 bytes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 2 * p.n ^ 3 / p.b * 8 / 1e9) end, score = 1 },
    { answer = function(p) return string.format("%.5g GiB", 2 * p.n ^ 3 / p.b * 8 / 2 ^ 30) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.05 * 2 * p.n ^ 3 / p.b * 8 / 1e9) end, score = 0 },
    { params = { n = 4096, b = 32 }, answer = "34.36", score = 1 },
    { params = { n = 4096, b = 32 }, answer = "32 GiB", score = 1 },
    { params = { n = 4096, b = 32 }, answer = "549.8", score = 0 },   -- untiled
    { "34 seconds", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Memory pools and fragmentation

Asking the driver for GPU memory is slow: `cudaMalloc` and `cudaFree`
take from microseconds to milliseconds, and `cudaFree` waits for the whole
device to finish its work. A training step creates and frees thousands of
tensors, so frameworks keep a **memory pool**. PyTorch's *caching
allocator* asks the driver for large segments, carves tensors out of
them, and when a tensor dies keeps its block for the next request instead
of handing it back.

How it hands out memory (PyTorch's defaults):

- every size is rounded up to a multiple of 512 bytes;
- requests up to 1 MB share 2 MB segments; larger ones get segments of
  their own (20 MB for requests up to 10 MB, else the size rounded up
  to 2 MB);
- a free block larger than a request is split, and two free neighbours
  are merged again; blocks belong to the CUDA stream that used them.

`torch.cuda.memory_allocated()` counts the live tensors,
`torch.cuda.memory_reserved()` what the pool holds; the difference is
memory the pool keeps free.

**Fragmentation.** *Internal*: the rounding wastes the tail of each
block; a 1,000-byte tensor takes 1,024 bytes. *External*: the free memory
is there in total but in pieces, none large enough. A pool with 6 GB free
in holes of 1.5 GB cannot place a 2 GB tensor: "CUDA out of memory. Tried
to allocate 2.00 GiB", next to a large figure "reserved by PyTorch".
Shapes that change from step to step (sequence lengths, a smaller last
batch) make it worse: every step leaves holes of new sizes.

Remedies, cheapest first:

- keep shapes the same from step to step: pad or bucket the sequence
  lengths, drop or pad the last batch;
- allocate the big buffers once, at the start (pre-allocation);
- let segments grow in place instead of adding new ones
  (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`), or stop large
  free blocks being split for small tensors (`max_split_size_mb`);
- `torch.cuda.empty_cache()` only returns free cached blocks to the
  driver (for other processes); it moves no live tensor, so it does not
  defragment anything.

Serving engines go furthest: a paged KV cache (the frontiers lesson)
allocates fixed-size blocks only, so external fragmentation cannot occur.
]==]

question {
  id = "memory.pool-rounding",
  kind = "numeric",
  title = "Waste from rounding allocations (your numbers)",
  prompt = [[
A memory pool rounds every allocation up to a multiple of 512 bytes. A
step allocates many small tensors of {s} bytes each. What share of the
memory handed out for them is wasted by the rounding, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "memory-pool", "fragmentation" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = {
    "Each tensor gets a whole number of 512-byte units.",
    "Block = ceil({s} / 512) × 512 bytes; waste = (block − {s}) / block.",
  },
  params = function(rng)
    return { s = rng:pick({ 100, 600, 1000, 1100, 2100, 3000, 5000, 9000 }) }
  end,
  answer = function(p)
    local block = math.ceil(p.s / 512) * 512
    return 100 * (block - p.s) / block
  end,
  wrong = {
    { value = function(p)
        local block = math.ceil(p.s / 512) * 512
        return 100 * (block - p.s) / p.s
      end,
      feedback = "That divides the waste by the tensor's size; the question asks its share of the memory handed out, the block." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return wb.sig(ctx.reference, 6) .. "%" end, score = 1 },
    { params = { s = 1000 }, answer = "2.34", score = 1 },
    { params = { s = 1000 }, answer = "2.4", score = 0 },     -- 24/1000
    { params = { s = 600 }, answer = "41.4", score = 1 },
    { "a lot", "invalid" },
  },
}

question {
  id = "memory.pool-holes",
  kind = "numeric",
  title = "Free, but in pieces (your numbers)",
  prompt = [[
After some steps a caching allocator's free memory lies in holes of {h1},
{h2}, {h3} and {h4} GB, none of them next to another. Without asking the
driver for more, what is the largest tensor it can place, as a percentage
of its free memory?
Give three significant figures.]],
  unit = "%",
  topics = { "memory-pool", "fragmentation" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = {
    "A tensor needs one contiguous block.",
    "Largest hole / sum of the holes.",
  },
  params = function(rng)
    local p
    repeat
      p = { h1 = rng:pick({ 0.5, 0.75, 1, 1.5 }), h2 = rng:pick({ 0.25, 1, 2, 2.5 }),
            h3 = rng:pick({ 0.5, 1.25, 3 }), h4 = rng:pick({ 0.75, 1, 1.5, 2 }) }
    until math.max(p.h1, p.h2, p.h3, p.h4) < 0.99 * (p.h1 + p.h2 + p.h3 + p.h4)
    return p
  end,
  answer = function(p) return 100 * math.max(p.h1, p.h2, p.h3, p.h4) / (p.h1 + p.h2 + p.h3 + p.h4) end,
  wrong = {
    { value = 100, feedback = "Free memory in separate holes cannot hold one tensor larger than the largest hole: that is external fragmentation." },
    { value = function(p) return 100 * math.min(p.h1, p.h2, p.h3, p.h4) / (p.h1 + p.h2 + p.h3 + p.h4) end,
      feedback = "That is the smallest hole. A tensor fits in the LARGEST one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { h1 = 1.5, h2 = 1, h3 = 3, h4 = 1.5 }, answer = "42.9", score = 1 },
    { params = { h1 = 1.5, h2 = 1, h3 = 3, h4 = 1.5 }, answer = "100", score = 0 },
    { "half", "invalid" },
  },
}

question {
  id = "memory.pool-remedies",
  kind = "multi",
  title = "What reduces fragmentation?",
  prompt = [[
Training with variable-length sequences runs out of GPU memory although
PyTorch reports several GB reserved but unallocated. Which of these help?
Pick all that apply.]],
  points = 2,
  topics = { "memory-pool", "fragmentation" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = { "Three help. Which ones change the sizes of the holes, or avoid them?" },
  choices = {
    "Bucket or pad the sequence lengths so that tensor shapes repeat from step to step.",
    "Allocate the large buffers once at the start of training.",
    "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
    "Call torch.cuda.empty_cache() after every step to defragment the pool.",
    "Free every tensor with cudaFree as soon as it dies.",
  },
  answer = { 1, 2, 3 },
  why = {
    [4] = "empty_cache returns free cached blocks to the driver; it moves no live tensor, so the holes between them stay.",
    [5] = "cudaFree is slow and synchronises the device: that is why the pool exists. It does not stop fragmentation either.",
  },
  examples = { { "a b c", 1 }, { "abc", 1 }, { "a b", 2 / 3 }, { "a b c d", 2 / 3 }, { "d e", 0 } },
}

------------------------------------------------------------------------------
page [==[
# The roofline model

Is a kernel limited by arithmetic or by memory? Compare two numbers.

- **Arithmetic intensity (AI)**: floating-point operations per byte moved
  to or from memory, FLOP/B. A property of the algorithm (and its data
  types).
- **Ridge point**: the machine's peak compute divided by its memory
  bandwidth, also in FLOP/B. A property of the hardware.

```
attainable FLOP/s = min( peak FLOP/s ,  AI x bandwidth )

FLOP/s
  ^                 ridge point
  |                     v
  |  peak ..............+=========================  compute bound
  |                   /
  |                 /
  |               /   slope = memory bandwidth
  |             /
  |           /    memory bound
  |         /
  +--------+-----------+-------------------------->  AI (FLOP/B)
```

Left of the ridge a kernel is **memory bound**: it waits for bytes, and
only moving fewer bytes (or moving them faster) helps. Right of it, it is
**compute bound**: only fewer or faster operations help.

## Worked example: an A100

Which A100? Its memory bandwidth depends on the model: **1555 GB/s** for
the A100 40GB (PCIe or SXM), **1935 GB/s** for the A100 80GB PCIe card (the
figure the guide uses) and **2039 GB/s** for the A100 80GB SXM module (the
day-5 table's). This course uses the **A100 80GB SXM** throughout: 312
TFLOP/s (FP16 on tensor cores) and 2039 GB/s, so its
ridge = (312 x 10^12) / (2039 x 10^9) = **153 FLOP/B**. (With the guide's
PCIe card it would be 161.)

| operation                     | FLOP       | bytes moved    | AI        |
|-------------------------------|------------|----------------|-----------|
| 1024^3 matmul, FP32           | 2 x 1024^3 | 3 x 1024^2 x 4 | **170.7** |
| 1024^2 element-wise add, FP32 | 1024^2     | 3 x 1024^2 x 4 | **0.083** |
| 8192^3 matmul, FP16           | 2 x 8192^3 | 3 x 8192^2 x 2 | **2731**  |

(AI in FLOP per byte. Each matrix is counted as moved once: the best case,
which good tiling approaches. A matmul of N x N matrices has
AI = 2N / (3e) for e-byte elements: it grows with N.)

- The element-wise add is deep in memory-bound territory: it can reach at
  most 0.083 x 2039 GB/s = **170 GFLOP/s**, about 0.05 % of the peak.
- The 8192 FP16 matmul is far right of the ridge: compute bound. The
  1024 FP32 matmul (170.7) sits just right of 153, if one compares it with
  the FP16 peak, as the guide does; but see the correction below.
- **A correction.** The guide compares the *FP32* matmul with the *FP16*
  tensor-core peak. An A100 runs plain FP32 at 19.5 TFLOP/s: its FP32
  ridge is 19.5 / 2.039 = about 10 FLOP/B, so the 1024 FP32 matmul is
  compute bound with a wide margin, not just barely. Always use the peak of
  the precision (and units) the operation actually runs on.

## Which operations are memory bound?

- vector operations (BLAS level 1: add, scale, dot), activations,
  normalisations: O(n) work on O(n) data, AI well below 1;
- **matrix-vector products** (level 2): about 2 flops per matrix element
  read, AI about 0.5 in FP32: memory bound on every GPU (not "moderate");
- matrix-matrix products and convolutions (level 3): O(n^3) work on O(n^2)
  data: compute bound once they are large enough.

**Kernel fusion** raises AI without changing the maths: three element-wise
kernels in a row each read and write the whole tensor; fused into one, the
tensor is read once and written once, a third of the traffic. It is why a
network of many small layers can run far below the GPU's peak although its
FLOP count is modest: every layer boundary is a round trip to memory.
]==]

calculator {
  id = "memory.roofline",
  title = "Roofline",
  inputs = {
    { name = "peak", label = "peak compute", default = 312, min = 0.001, max = 1e6, unit = "TFLOP/s" },
    { name = "bw", label = "memory bandwidth", default = 2039, min = 0.001, max = 1e7, unit = "GB/s",
      help = "A100 80GB SXM 2039; 80GB PCIe 1935; 40GB 1555" },
    { name = "ai", label = "arithmetic intensity", default = 170.67, min = 1e-6, max = 1e9, unit = "FLOP/B" },
  },
  compute = function(v)
    local r = ridge(v.peak, v.bw)
    local att = math.min(v.peak * 1e12, v.ai * v.bw * 1e9)
    local bound = v.ai < r and "memory bound: move fewer bytes (fusion, tiling, lower precision)"
                  or "compute bound: do fewer or faster operations (tensor cores)"
    -- A one-line picture: where the kernel sits against the ridge, on a log
    -- scale of 8 characters per decade from 0.01 to 10^4 FLOP/B.
    local pos = function(x) return math.max(0, math.min(48, math.floor(8 * (math.log(x, 10) + 2) + 0.5))) end
    local line = {}
    for i = 0, 48 do line[i + 1] = "-" end
    line[pos(r) + 1] = "R"
    line[pos(v.ai) + 1] = pos(v.ai) == pos(r) and "X" or "*"
    local axis = table.concat(line) .. "\n0.01    0.1     1       10      100     1e3     1e4"
    return {
      { label = "ridge point", value = r, unit = "FLOP/B" },
      { label = "attainable", value = att, unit = "FLOP/s" },
      { label = "share of peak", value = 100 * att / (v.peak * 1e12), unit = "%" },
      { label = "verdict", text = bound },
      { label = "AI in FLOP/B (R ridge, * kernel, X both)", text = axis },
    }
  end,
  examples = {
    { inputs = { peak = 312, bw = 2039, ai = 1 / 12 }, outputs = { 312000 / 2039, 2039e9 / 12, 100 * 2039e9 / 12 / 312e12,
      "memory bound: move fewer bytes (fusion, tiling, lower precision)" } },
    { inputs = { peak = 19.5, bw = 2039, ai = 170.67 }, outputs = { 19500 / 2039, 19.5e12, 100,
      "compute bound: do fewer or faster operations (tensor cores)" } },
  },
}

question {
  id = "memory.ridge-a100",
  kind = "numeric",
  title = "The A100's ridge point",
  prompt = [[
An A100 80GB SXM peaks at 312 TFLOP/s (FP16 on tensor cores) and moves
2039 GB/s from its memory. Where is its ridge point, in FLOP per byte?
(Answer with a plain number.)
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity" },
  hints = { "Ridge = peak FLOP/s / bandwidth in bytes/s. Mind the 10^12 and 10^9." },
  answer = 312e12 / 2039e9,   -- 153.02
  wrong = {
    { value = 312 / 2039, feedback = "Mind the prefixes: TFLOP/s is 10^12, GB/s is 10^9. Divide FLOP/s by bytes/s in the same base units." },
    { value = 2039 / 312, feedback = "Upside down: FLOP per byte is peak FLOP/s divided by bytes/s." },
    { value = 312e12 / 1935e9,
      feedback = "161 is the ridge of the A100 80GB PCIe card (1935 GB/s), the guide's figure. This is the SXM module: 2039 GB/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "153", 1 },
    { "153.0", 1 },
    { "312e12/2039e9", 1 },
    { "0.153", 0 },
    { "6.5", 0 },
    { "161.2", 0 },   -- the PCIe card's ridge
    { "160", 0 },     -- 4.6% off
    { "161 GB/s", "invalid" },
  },
}

question {
  id = "memory.ai-matmul-1024",
  kind = "numeric",
  title = "AI of a 1024 x 1024 FP32 matmul",
  prompt = [[
Multiplying two 1024 x 1024 FP32 matrices takes 2 x 1024^3 floating-point
operations and, at best, moves the three matrices (two inputs, one output)
once between memory and the chip. What is its arithmetic intensity, in FLOP
per byte?
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity", "matmul" },
  hints = {
    "Arithmetic intensity is FLOPs over bytes moved: a matrix multiply does 2N^3 FLOPs on three N x N matrices.",
    "Bytes: 3 x 1024^2 elements x 4 bytes.",
    "AI = 2 x 1024^3 / (3 x 1024^2 x 4) = 2 x 1024 / 12.",
  },
  answer = 2 * 1024 ^ 3 / (3 * 1024 ^ 2 * 4),   -- 170.67
  wrong = {
    { value = 1024 ^ 3 / (3 * 1024 ^ 2 * 4), feedback = "A multiply-add is 2 operations: the count is 2 x N^3, not N^3." },
    { value = 2 * 1024 ^ 3 / (3 * 1024 ^ 2), feedback = "That is per element. Each FP32 element is 4 bytes." },
    { value = 2 * 1024 ^ 3 / (2 * 1024 ^ 2 * 4), feedback = "Three matrices move: two inputs are read and the result is written." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "170.7", 1 },
    { "2*1024^3/(3*1024^2*4)", 1 },
    { "512/3", 1 },
    { "85.3", 0 },
    { "682.7", 0 },
    { "256", 0 },
    { "175", 0 },    -- 2.5% off
    { "170 FLOP", "invalid" },   -- an operation count, not a ratio
  },
}

question {
  id = "memory.fp32-ridge",
  kind = "choice",
  title = "Which peak to compare with",
  prompt = [[
The 1024 x 1024 FP32 matmul has an arithmetic intensity of 170.7 FLOP/B. An
A100 80GB SXM runs plain FP32 (no tensor cores) at 19.5 TFLOP/s with
2039 GB/s of memory bandwidth. Against THIS peak, the matmul is:]],
  topics = { "roofline", "arithmetic-intensity" },
  hints = {
    "The ridge point is where the compute and memory limits meet: peak FLOP/s over bandwidth.",
    "Compute the FP32 ridge point: (19.5 x 10^12) / (2039 x 10^9).",
  },
  choices = {
    "compute bound with a wide margin: the FP32 ridge is about 10 FLOP/B",
    "just barely compute bound: the ridge is about 153 FLOP/B",
    "memory bound",
    "exactly at the ridge point",
  },
  answer = 1,
  why = {
    [2] = "153 FLOP/B is the ridge for the FP16 tensor-core peak (312 TFLOP/s). An FP32 matmul on FP32 units meets a ridge of about 10.",
    [3] = "170.7 FLOP/B is far above the FP32 ridge of about 10 FLOP/B.",
    [4] = "The FP32 ridge is (19.5 x 10^12) / (2039 x 10^9) = 9.6 FLOP/B, far below 170.7.",
  },
  examples = {
    { "a", 1 },
    { "b", 0 },
    { "c", 0 },
    { "e", "invalid" },
  },
}

question {
  id = "memory.ai-add",
  kind = "numeric",
  title = "AI of an element-wise addition",
  prompt = [[
C = A + B for 1024 x 1024 FP32 matrices: one addition per element; A and B
are read and C is written. What is the arithmetic intensity, in FLOP per
byte?
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity" },
  hints = {
    "Count the FLOPs and the bytes moved for one element.",
    "Per element: 1 FLOP for 3 x 4 = 12 bytes.",
  },
  answer = 1 / 12,   -- 0.0833
  wrong = {
    { value = 1 / 8, feedback = "The result is written too: 3 arrays move, 12 bytes per element." },
    { value = 12, feedback = "Upside down: FLOP per byte, not bytes per FLOP." },
    { value = 1 / 3, feedback = "Count bytes, not elements: each FP32 element is 4 bytes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "0.0833", 1 },
    { "1/12", 1 },
    { "0.083", 1 },
    { "0.125", 0 },
    { "12", 0 },
    { "0.09", 0 },   -- 8% off
    { "1/12 s", "invalid" },
  },
}

question {
  id = "memory.add-attainable",
  kind = "numeric",
  title = "How fast can the addition go?",
  prompt = [[
On an A100 80GB SXM with 2039 GB/s, what is the highest compute rate the
element-wise addition (0.0833 FLOP/B) can reach according to the roofline
model? Answer in GFLOP/s.
Give three significant figures.]],
  unit = "GFLOP/s",
  topics = { "roofline", "arithmetic-intensity", "bandwidth" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = { "Memory bound: attainable = AI x bandwidth." },
  answer = 2039 / 12,   -- 169.92
  wrong = {
    { value = 312000, feedback = "That is the compute peak. At 0.083 FLOP/B the addition is memory bound: AI x bandwidth." },
    { value = 2039 * 12, feedback = "Multiply by the AI (1/12), do not multiply by 12." },
    { value = 1935 / 12,
      feedback = "1935 GB/s is the A100 80GB PCIe card (the guide's figure); this question's SXM module has 2039 GB/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "169.9", 1 },
    { "2039/12", 1 },
    { "0.17 TFLOP/s", 1 },    -- 170: within 1%
    { "0.16992 TFLOPS", 1 },
    { "312 TFLOP/s", 0 },
    { "161.25", 0 },          -- the PCIe card's bandwidth
    { "150", 0 },
    { "170 GB/s", "invalid" },   -- a bandwidth, not a compute rate
  },
}

question {
  id = "memory.ai-matmul-8192",
  kind = "numeric",
  title = "AI of an 8192 x 8192 FP16 matmul",
  prompt = [[
Multiplying two 8192 x 8192 FP16 matrices (2 bytes per element): 2 x 8192^3
operations, three matrices moved once. What is its arithmetic intensity, in
FLOP per byte?
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity", "matmul" },
  hints = {
    "A large matrix multiply reuses each element many times: its intensity grows with N.",
    "AI = 2N / (3e) with N = 8192 and e = 2.",
  },
  answer = 2 * 8192 / 6,   -- 2730.7
  wrong = {
    { value = 2 * 8192 / 12, feedback = "FP16 is 2 bytes per element, not 4." },
    { value = 8192 / 6, feedback = "A multiply-add counts as 2 operations: 2 x N^3." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "2731", 1 },
    { "2730.67", 1 },
    { "8192/3", 1 },
    { "1365", 0 },
    { "2600", 0 },
    { "2731 TFLOP/s", "invalid" },
  },
}

question {
  id = "memory.ridge",
  kind = "numeric",
  title = "Ridge point of a GPU (your numbers)",
  prompt = [[
A {gpu} peaks at {peak} TFLOP/s in {prec} and has {bw} GB/s of memory
bandwidth. Where is its {prec} ridge point, in FLOP per byte?
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity" },
  rubric = { "theory.memory", "theory.gpu" },
  hints = {
    "The ridge point is where the compute and memory limits meet: peak FLOP/s over bandwidth.",
    "Ridge = {peak} x 10^12 / ({bw} x 10^9).",
  },
  params = gpu_params,
  answer = function(p) return ridge(p.peak, p.bw) end,
  wrong = {
    { value = function(p) return p.peak / p.bw end,
      feedback = "Mind the prefixes: 10^12 over 10^9 is a factor of 1000." },
    { value = function(p) return p.bw / (p.peak * 1000) end,
      feedback = "Upside down: peak FLOP/s divided by bytes/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", ridge(p.peak, p.bw)) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.05 * ridge(p.peak, p.bw)) end, score = 0 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039 }, answer = "153", score = 1 },
    { params = { gpu = "H100 80GB SXM", prec = "FP32", peak = 67, bw = 3350 }, answer = "20", score = 1 },
    { params = { gpu = "H100 80GB SXM", prec = "FP32", peak = 67, bw = 3350 }, answer = "0.02", score = 0 },
    { "20 GB/s", "invalid" },
  },
}

question {
  id = "memory.attainable",
  kind = "numeric",
  title = "Attainable performance (your numbers)",
  prompt = [[
A kernel has an arithmetic intensity of {ai} FLOP/B and runs in {prec} on a
{gpu}: peak {peak} TFLOP/s, {bw} GB/s. What compute rate can it reach at
best, according to the roofline model? Answer in TFLOP/s.
Give three significant figures.]],
  unit = "TFLOP/s",
  topics = { "roofline", "arithmetic-intensity" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = {
    "Attainable = min(peak, AI x bandwidth).",
    "AI x bandwidth = {ai} x {bw} GFLOP/s.",
  },
  params = function(rng)
    local p = gpu_params(rng)
    p.ai = rng:pick({ 1 / 12, 0.25, 1, 4, 16, 64, 170.67, 256, 1024, 2731 })
    return p
  end,
  answer = function(p) return math.min(p.peak, p.ai * p.bw / 1000) end,
  wrong = {
    -- The first two mistakes belong to one side of the ridge each; on the
    -- other side they are the right answer, so they give -1 (no answer a
    -- student writes) there.
    { value = function(p) return p.ai * p.bw / 1000 > p.peak and p.ai * p.bw / 1000 or -1 end,
      feedback = "AI x bandwidth is above the peak here: no kernel runs faster than the peak. It is compute bound." },
    { value = function(p) return p.ai * p.bw / 1000 < p.peak and p.peak or -1 end,
      feedback = "This kernel is left of the ridge: memory bound. It reaches AI x bandwidth, not the peak." },
    { value = function(p) return p.ai * p.bw end,
      feedback = "AI x GB/s gives GFLOP/s; divide by 1000 for TFLOP/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", math.min(p.peak, p.ai * p.bw / 1000)) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 0.9 * math.min(p.peak, p.ai * p.bw / 1000)) end, score = 0 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 4 }, answer = "8.156", score = 1 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 4 }, answer = "8156 GFLOP/s", score = 1 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 4 }, answer = "312", score = 0 },
    { params = { gpu = "A100 80GB SXM", prec = "FP32", peak = 19.5, bw = 2039, ai = 256 }, answer = "19.5", score = 1 },
    { params = { gpu = "A100 80GB SXM", prec = "FP32", peak = 19.5, bw = 2039, ai = 256 }, answer = "522", score = 0 },
    { "8 GB/s", "invalid" },
    -- The guide's element-wise add on the A100 80GB SXM: memory bound.
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 1 / 12 }, answer = "0.1699", score = 1 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 1 / 12 }, answer = "312", score = 0 },
    { params = { gpu = "A100 80GB SXM", prec = "FP16", peak = 312, bw = 2039, ai = 2731 }, answer = "312", score = 1 },
  },
}

question {
  id = "memory.matmul-ai",
  kind = "numeric",
  title = "AI of a square matmul (your numbers)",
  prompt = [[
What is the arithmetic intensity of multiplying two {n} x {n} matrices in
{prec} ({e} bytes per element), counting 2N^3 operations and the three
matrices moved once? Answer in FLOP per byte.
Give three significant figures.]],
  topics = { "roofline", "arithmetic-intensity", "matmul" },
  hints = { "AI = 2N^3 / (3 N^2 e) = 2N / (3e)." },
  params = function(rng)
    local t = rng:pick({ { "FP32", 4 }, { "FP16", 2 }, { "BF16", 2 }, { "FP64", 8 } })
    return { n = rng:pick({ 256, 512, 1024, 2048, 4096, 8192 }), prec = t[1], e = t[2] }
  end,
  answer = function(p) return 2 * p.n / (3 * p.e) end,
  wrong = {
    { value = function(p) return p.n / (3 * p.e) end,
      feedback = "A multiply-add is 2 operations: the count is 2N^3." },
    { value = function(p) return 2 * p.n / 3 end,
      feedback = "That is per element; divide by the element size in bytes." },
    { value = function(p) return 2 * p.n / (3 * p.e * 8) end,
      feedback = "Bytes, not bits: divide by the element size in bytes (FP16 is 2 bytes, FP32 is 4)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 2 * p.n / (3 * p.e)) end, score = 1 },
    { answer = function(p) return string.format("%.5g", p.n / (3 * p.e)) end, score = 0 },
    { params = { n = 1024, prec = "FP32", e = 4 }, answer = "170.7", score = 1 },
    { params = { n = 8192, prec = "FP16", e = 2 }, answer = "2731", score = 1 },
    { params = { n = 8192, prec = "FP16", e = 2 }, answer = "2800", score = 0 },
    { "lots", "invalid" },
    -- The guide's roofline examples.
    { params = { n = 1024, prec = "FP32", e = 4 }, answer = "170.67", score = 1 },
    { params = { n = 8192, prec = "FP16", e = 2 }, answer = "2731", score = 1 },
  },
}

question {
  id = "memory.fusion",
  kind = "numeric",
  title = "What kernel fusion saves (your numbers)",
  prompt = [[
{k} element-wise operations are applied one after the other to a tensor of
{mel} million FP32 values. Unfused, each operation is its own kernel that
reads the whole tensor and writes the whole result. Fused, one kernel reads
it once and writes once. All kernels are memory bound at {bw} GB/s. How much
time does fusion save, in microseconds?
Give three significant figures.]],
  unit = "us",
  topics = { "roofline", "fusion", "bandwidth" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "Fusing keeps intermediate results on chip: count the trips to global memory before and after.",
    "One kernel moves 2 x 4 bytes per element (read and write).",
    "Unfused: {k} such kernels; fused: one. Time = bytes / bandwidth.",
  },
  params = function(rng)
    return { k = rng:pick({ 2, 3, 4, 5 }), mel = rng:pick({ 4, 16, 64, 256 }), bw = rng:pick({ 900, 2039, 3350 }) }
  end,
  answer = function(p) return (p.k - 1) * 8 * p.mel * 1e6 / (p.bw * 1e9) * 1e6 end,
  wrong = {
    { value = function(p) return p.k * 8 * p.mel * 1e6 / (p.bw * 1e9) * 1e6 end,
      feedback = "That is the whole unfused time. The fused kernel still takes one kernel's time: the saving is (k - 1) kernels." },
    { value = function(p) return p.k > 2 and 8 * p.mel * 1e6 / (p.bw * 1e9) * 1e6 end,   -- k = 2: the same number
      feedback = "That is the fused kernel's time. The saving is the unfused time minus it." },
    { value = function(p) return (p.k - 1) * 4 * p.mel * 1e6 / (p.bw * 1e9) * 1e6 end,
      feedback = "Each kernel reads AND writes the tensor: 8 bytes per element, not 4." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", (p.k - 1) * 8 * p.mel * 1e6 / (p.bw * 1e9) * 1e6) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.1 * (p.k - 1) * 8 * p.mel * 1e6 / (p.bw * 1e9) * 1e6) end, score = 0 },
    -- 3 kernels on 16 M floats at 2039 GB/s: 188.3 us unfused, 62.8 us fused.
    { params = { k = 3, mel = 16, bw = 2039 }, answer = "125.6", score = 1 },
    { params = { k = 3, mel = 16, bw = 2039 }, answer = "0.1256 ms", score = 1 },
    { params = { k = 3, mel = 16, bw = 2039 }, answer = "188.3", score = 0 },
    { params = { k = 3, mel = 16, bw = 2039 }, answer = "62.8", score = 0 },
    { "125 GB", "invalid" },
  },
}

question {
  id = "memory.axpy-time",
  kind = "numeric",
  title = "Time of a memory-bound kernel (your numbers)",
  prompt = [[
The kernel y = a*x + y runs on vectors of {mel} million {prec} values
({e} bytes each): it reads x and y and writes y. On a GPU with {bw} GB/s,
how long does it take at best, in microseconds?
Give three significant figures.]],
  unit = "us",
  topics = { "roofline", "bandwidth" },
  hints = {
    "It is memory bound (2 FLOP per 3 x {e} bytes). Time = bytes moved / bandwidth.",
    "Bytes moved = 3 x {mel} million x {e}.",
  },
  params = function(rng)
    local t = rng:pick({ { "FP32", 4 }, { "FP16", 2 }, { "FP64", 8 } })
    return { mel = rng:pick({ 1, 8, 32, 100 }), prec = t[1], e = t[2], bw = rng:pick({ 900, 2039, 3350 }) }
  end,
  answer = function(p) return 3 * p.mel * 1e6 * p.e / (p.bw * 1e9) * 1e6 end,
  wrong = {
    { value = function(p) return 2 * p.mel * 1e6 * p.e / (p.bw * 1e9) * 1e6 end,
      feedback = "y is read AND written: three vectors' worth of bytes move, not two." },
    { value = function(p) return 3 * p.mel * 1e6 / (p.bw * 1e9) * 1e6 end,
      feedback = "Count bytes, not values: multiply by the bytes per value (FP32 is 4 bytes)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 3 * p.mel * 1e6 * p.e / (p.bw * 1e9) * 1e6) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 2 * p.mel * 1e6 * p.e / (p.bw * 1e9) * 1e6) end, score = 0 },
    { params = { mel = 100, prec = "FP32", e = 4, bw = 2000 }, answer = "600", score = 1 },
    { params = { mel = 100, prec = "FP32", e = 4, bw = 2000 }, answer = "0.6 ms", score = 1 },
    { params = { mel = 100, prec = "FP32", e = 4, bw = 2000 }, answer = "400", score = 0 },
    { params = { mel = 100, prec = "FP32", e = 4, bw = 2000 }, answer = "630", score = 0 },   -- 5% off
    { "600 FLOP", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Graph compilers: capture, fusion, folding, layouts

Eager execution, PyTorch's default, runs every operation as Python calls
it: one kernel per operation, each intermediate written to memory and
read back by the next. A **graph compiler** (TorchScript, `torch.compile`,
XLA, TensorRT) first captures the computation as a graph, then rewrites
it before anything runs.

**Capture.** *Tracing* runs the model once on an example input and
records the operations that ran (`torch.jit.trace`). What the example did
not exercise is not in the graph: `if x.mean() > 0:` becomes whichever
branch the example took, for every input from then on, without a
warning. *Scripting* (`torch.jit.script`) compiles the Python source and
keeps the control flow. So: tracing for models whose graph is fixed,
scripting for data-dependent control flow. (`torch.compile` traces too,
but guards its assumptions, such as shapes, and captures again when one
fails.)

**Operator fusion.** A chain of element-wise operations (bias add, GeLU,
dropout, residual add) becomes one kernel: the input is read once and
the output written once, instead of a read and a write per operation.
For k element-wise operations on N values that is about 2N values moved
instead of 2kN. A matrix multiply or convolution fuses its epilogue (bias
and activation) the same way.

**Constant folding.** Whatever depends only on constants is computed
once, at compile time: shape arithmetic, a scale applied to fixed
weights. The classic inference case is a BatchNorm after a convolution.
With s = γ / √(σ² + ε) per output channel, the pair equals one
convolution with

```
W' = W × s          b' = (b − μ) × s + β
```

and the BatchNorm disappears from the graph. **Dead code elimination**
removes what no output needs.

**Layout.** An image batch can be stored NCHW (each channel's H × W plane
in turn: PyTorch's default) or NHWC (all C channels of one pixel side by
side: "channels last"). cuDNN's tensor-core convolutions want NHWC; given
NCHW they transpose on the way in and out, moving the tensor twice more.
In NCHW, channel c and c + 1 of one pixel are H × W elements apart; in
NHWC they are neighbours. Convert the model and its inputs once
(`memory_format=torch.channels_last`) and every convolution skips the
transposes.
]==]

question {
  id = "memory.trace-branch",
  kind = "choice",
  title = "Tracing a data-dependent branch",
  prompt = [[
A model's forward pass contains `if x.mean() > 0: y = f(x) else: y = g(x)`.
It is compiled with torch.jit.trace on an example whose mean is positive.
What happens when the traced model later gets an input with a negative
mean?]],
  topics = { "graph-compilers", "jit" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = { "What does a trace record: the code, or the operations that ran?" },
  choices = {
    "It runs f anyway: the trace recorded only the branch the example took.",
    "It runs g: tracing records both branches and the condition.",
    "It raises an error, because the input differs from the example.",
    "It falls back to eager execution for that call.",
  },
  answer = 1,
  why = {
    [2] = "That is scripting (torch.jit.script), which compiles the source with its control flow. Tracing records operations only.",
    [3] = "torch.jit.trace checks nothing at run time: the wrong branch runs silently (it warns only when tracing sees the condition turned into a constant).",
    [4] = "A traced module has no fallback; torch.compile's guards would capture again, torch.jit.trace does not.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "c", 0 }, { "x", "invalid" } },
}

question {
  id = "memory.bn-fold",
  kind = "numeric",
  title = "Folding a BatchNorm into a convolution (your numbers)",
  prompt = [[
For one output channel, a convolution has bias b = {b}, and the BatchNorm
after it has γ = {g}, β = {be}, running mean μ = {mu} and running variance
σ² = {var} (ignore ε). Folded into the convolution, what is that channel's
new bias b'?
Give three significant figures.]],
  topics = { "graph-compilers", "constant-folding" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = {
    "BatchNorm at inference is y = (x − μ) × γ / σ + β: an affine map of the convolution's output.",
    "s = γ / √σ²; b' = (b − μ) × s + β.",
  },
  params = function(rng)
    local p
    repeat
      p = { b = rng:pick({ -0.5, 0.2, 0.8, 1.5 }), g = rng:pick({ 0.5, 1.2, 2 }),
            be = rng:pick({ -0.3, 0.1, 0.4 }), mu = rng:pick({ -0.6, 0.3, 1.1 }),
            var = rng:pick({ 0.25, 0.64, 4 }) }
      local s = p.g / math.sqrt(p.var)
      local ref = (p.b - p.mu) * s + p.be
      local nosqrt = (p.b - p.mu) * p.g / p.var + p.be
      local nobeta = (p.b - p.mu) * s
    until math.abs(ref) > 0.05 and math.abs(nosqrt - ref) > 0.03 * math.abs(ref)
      and math.abs(nobeta - ref) > 0.03 * math.abs(ref)
    return p
  end,
  answer = function(p) return (p.b - p.mu) * p.g / math.sqrt(p.var) + p.be end,
  wrong = {
    { value = function(p) return (p.b - p.mu) * p.g / p.var + p.be end,
      feedback = "Divide by the standard deviation √σ², not by the variance." },
    { value = function(p) return (p.b - p.mu) * p.g / math.sqrt(p.var) end,
      feedback = "Add BatchNorm's shift β after scaling." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return wb.sig(ctx.reference, 6) end, score = 1 },
    { answer = function(p, ctx) return wb.sig(ctx.reference + 0.1 * math.abs(ctx.reference) + 0.05, 6) end, score = 0 },
    -- b = 0.8, μ = 0.3, γ = 1.2, σ² = 0.64 (σ = 0.8), β = 0.1: 0.5 × 1.5 + 0.1
    { params = { b = 0.8, g = 1.2, be = 0.1, mu = 0.3, var = 0.64 }, answer = "0.85", score = 1 },
    { params = { b = 0.8, g = 1.2, be = 0.1, mu = 0.3, var = 0.64 }, answer = "1.0375", score = 0 },
    { "b", "invalid" },
  },
}

question {
  id = "memory.nchw-stride",
  kind = "numeric",
  title = "NCHW against NHWC (your numbers)",
  prompt = [[
A batch of {h} × {h} feature maps in {prec} ({e} bytes per value) is stored
NCHW. How many bytes apart in memory are channel c and channel c + 1 of
the same pixel?
Give three significant figures.]],
  unit = "B",
  topics = { "layout", "graph-compilers" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "In NCHW a whole channel plane comes before the next channel.",
    "One plane: H × W values of {e} bytes.",
  },
  params = function(rng)
    local t = rng:pick({ { "FP16", 2 }, { "FP32", 4 } })
    return { h = rng:pick({ 7, 14, 28, 56, 112 }), prec = t[1], e = t[2] }
  end,
  answer = function(p) return p.h * p.h * p.e end,
  wrong = {
    { value = function(p) return p.e end, feedback = "Neighbours: that is NHWC (channels last). In NCHW a whole H × W plane lies between them." },
    { value = function(p) return p.h * p.h end, feedback = "That counts values; multiply by {e} bytes per value." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { h = 56, prec = "FP16", e = 2 }, answer = "6272", score = 1 },
    { params = { h = 56, prec = "FP16", e = 2 }, answer = "2", score = 0 },
    { params = { h = 56, prec = "FP16", e = 2 }, answer = "3136", score = 0 },
    { "far", "invalid" },
  },
}

question {
  id = "memory.blas-bound",
  kind = "multi",
  title = "Memory bound or not?",
  prompt = [[
On an A100 in FP32 (19.5 TFLOP/s, about 2 TB/s: ridge about 10 FLOP/B),
which of these are memory bound? Pick all that apply.]],
  points = 2,
  topics = { "roofline", "arithmetic-intensity" },
  hints = { "Estimate each AI: FLOP per element over bytes per element." },
  choices = {
    "adding two large vectors",
    "a matrix-vector product with an 8192 x 8192 matrix",
    "ReLU applied to a large activation tensor",
    "multiplying two 4096 x 4096 matrices",
  },
  answer = { 1, 2, 3 },
  why = {
    [2] = "About 2 flops per matrix element read (4 bytes): AI about 0.5 FLOP/B, far below 10. Matrix-vector products are memory bound.",
    [4] = "AI = 2 x 4096 / 12 = 683 FLOP/B, far above the ridge: compute bound.",
  },
  examples = {
    { "a b c", 1 },
    { "a c", 2 / 3 },
    { "a b c d", 2 / 3 },
    { "d", 0 },
    { "a b c e", "invalid" },
  },
}

question {
  id = "memory.cnn-slow",
  kind = "design",
  title = "A CNN that will not go fast",
  prompt = [[
A CNN runs slowly on a GPU rated at hundreds of TFLOP/s: the profiler shows
the GPU reaching only a few per cent of its peak FLOP/s. In a short paragraph:
what is the likely cause, how would you confirm it, and what would you do?]],
  points = 4,
  topics = { "roofline", "fusion", "memory-hierarchy" },
  rubric = { "theory.memory", "practice.profiling", "practice.optimization" },
  hints = {
    "Where does the time of an element-wise layer go?",
    "How many times does each activation travel to global memory and back?",
  },
  concepts = {
    { name = "memory bound", points = 2,
      claims = {
        { subject = { "layers", "most layers", "it", "they", "cnn", "model", "network", "kernels", "this",
                      "gpu", "convolutions", "activations", "the cnn s layers" },
          relation = { "memory bound", "memory-bound", "bandwidth bound", "bandwidth-bound" } },
        { subject = { "layers", "most layers", "it", "they", "cnn", "model", "network", "kernels", "this",
                      "gpu", "convolutions", "activations" },
          relation = { "is", "are", "stay*", "remain*", "become*" },
          object = { "memory bound", "memory-bound", "bandwidth bound", "bandwidth-bound" } },
        { subject = { "layers", "most layers", "it", "they", "cnn", "model", "network", "kernels", "this",
                      "gpu", "convolutions", "activations" },
          relation = { "bound", "limited", "starved", "wait*", "stall*" },
          object = { "by memory", "by bandwidth", "by memory bandwidth", "for memory", "on memory",
                     "for bandwidth", "for data", "by dram" } },
        { subject = { "cause", "problem", "culprit", "this", "it", "bottleneck" },
          relation = { "is" },
          object = { "memory wall", "memory bandwidth", "the memory", "bandwidth" } },
        { subject = { "memory bandwidth", "bandwidth", "memory traffic", "data movement" },
          relation = { "limit*", "set*", "bound*", "is", "dominat*", "decid*", "determin*" },
          object = { "speed", "time", "bottleneck", "performance", "them", "it", "layers", "limit",
                     "runtime" } },
      },
      contradicts = {
        { match = { "compute bound", "compute-bound", "lacks flop/s", "not enough flops", "lacks flops" },
          feedback = "You said the layers are compute bound: at a few per cent of peak FLOP/s they are waiting for memory. Most CNN layers are memory bound." },
      },
      feedback = "Name the cause: most layers are memory bound (the memory wall), not compute bound." },
    { name = "arithmetic intensity / roofline", points = 2,
      claims = {
        { subject = { "arithmetic intensity", "it", "they", "layers", "their intensity" },
          relation = { "is", "are", "lie*", "fall*", "sit*", "stay*", "far" },
          object = { "left of", "ridge*", "roofline", "below", "low", "few flop*", "under" } },
        { relation = { "compar*", "plot*", "plac*", "us*", "comput*", "check*", "measur*", "look*" },
          object = { "arithmetic intensity", "intensity", "roofline", "ridge*", "flop per byte",
                     "flops per byte" } },
        { subject = { "layers", "they", "it", "these layers", "most layers", "activations",
                      "element-wise layers", "normalisation" },
          relation = { "do*", "perform*", "have", "has", "compute*" },
          object = { "low arithmetic intensity", "little arithmetic", "few flop*", "arithmetic per byte",
                     "flop per byte", "flops per byte", "low intensity", "intensity" } },
      },
      contradicts = {
        { match = { "high arithmetic intensity" }, patterns = { "right of the %a* ?ridge", "right of the roofline" },
          feedback = "You put the layers right of the ridge: element-wise and normalisation layers do a few FLOP per byte, far LEFT of it." },
      },
      feedback = "Use the roofline: compare each layer's arithmetic intensity with the ridge point." },
    { name = "confirm with a profiler", points = 1,
      claims = {
        { subject = { "profiler*", "profiler run", "profile", "nsight*", "ncu", "nsys", "a profiler run" },
          relation = { "confirm*", "show*", "would", "tell*", "reveal*", "measur*", "prov*" },
          object = { "bandwidth", "saturat*", "memory bound", "bound", "it", "that", "kernels", "dram" } },
        { relation = { "profil*", "confirm*", "check*", "measur*", "run*", "use*" },
          object = { "profiler", "nsight*", "ncu", "nsys", "with a profiler", "profile" } },
      },
      feedback = "Confirm with a profiler (Nsight Compute: achieved bandwidth vs FLOP/s per kernel)." },
    { name = "kernel fusion", points = 2,
      claims = {
        { relation = { "fuse*", "fusing", "merg*", "combin*" },
          object = { "layers", "them", "kernels", "one kernel", "conv", "ops", "operators",
                     "element-wise", "chains", "activation*" } },
        { relation = { "use*", "using", "appl*", "try*", "add*", "do*" },
          object = { "fusion", "operator fusion", "layer fusion", "kernel fusion", "fused kernel*" } },
        { subject = { "fix", "fixes", "solution", "remedy", "cure", "first step" },
          relation = { "is", "are", "move", "start*", "lie*", "come*" },
          object = { "fusion", "operator fusion", "layer fusion", "kernel fusion", "fused kernel*",
                     "fuse*", "fusing" } },
        { subject = { "fusion", "kernel fusion", "layer fusion", "operator fusion", "fused kernel*",
                      "fusing" },
          relation = { "keep*", "remov*", "cut*", "sav*", "avoid*", "reduc*", "eliminat*", "stop*" },
          object = { "intermediates", "global memory", "traffic", "bytes", "round trips", "writes",
                     "memory", "launch*", "registers" } },
      },
      feedback = "Fuse layers (conv + bias + activation, element-wise chains) so intermediates are not written to global memory." },
    { name = "launch overhead", points = 1,
      claims = {
        { relation = { "remov*", "cut*", "reduc*", "sav*", "avoid*", "amorti*", "eliminat*", "pay*",
                       "add*", "hid*" },
          object = { "launch overhead", "kernel launch*", "launches", "launch", "launch cost*" } },
        { relation = { "use*", "using", "appl*", "captur*", "add*", "tr*" },
          object = { "cuda graph*" } },
        { subject = { "small kernels", "many kernels", "launches", "launch overhead", "kernel launch*",
                      "cuda graph*" },
          relation = { "add*", "cost*", "pay*", "dominat*", "remov*", "cut*", "reduc*", "is", "are" },
          object = { "overhead", "time", "microsecond*", "launch*", "it" } },
      },
      contradicts = {
        { patterns = { "launch%a* %a* ?cost%a* nothing", "launch%a* %a* ?%a* ?negligible", "launch%a* %a* ?free" },
          feedback = "You said kernel launches are free: each costs microseconds, which adds up over the many small kernels of a CNN." },
      },
      feedback = "Many small kernels also pay launch overhead: fusion or CUDA graphs remove it." },
    { name = "precision and layout", points = 1,
      claims = {
        { relation = { "us*", "switch*", "mov*", "run*", "appl*", "cast*", "convert*", "adopt*" },
          object = { "mixed precision", "fp16", "bf16", "channels last", "channels-last", "nhwc",
                     "tensor core*", "tiling", "half precision", "lower precision" } },
        { subject = { "mixed precision", "fp16", "bf16", "channels-last", "channels last", "nhwc",
                      "tiling", "layout", "half precision", "lower precision" },
          relation = { "halv*", "cut*", "reduc*", "sav*", "us*", "shrink*", "mov*", "improv*" },
          object = { "bytes", "traffic", "tensor core*", "memory", "reuse", "bandwidth", "it" } },
        -- "switch to BF16 to halve the bytes": the grammar keeps the last
        -- verb's object, and halving the bytes is what a precision says
        { relation = { "halv*" }, object = { "bytes", "traffic", "memory traffic" } },
      },
      feedback = "Move fewer bytes and use the fast units: FP16/BF16 (tensor cores), channels-last layout, tiling." },
  },
  model = [[
The likely cause is the memory wall: most layers of the CNN (activations,
normalisation, element-wise additions, small convolutions) are memory bound.
Their arithmetic intensity is far left of the GPU's ridge point on the
roofline, so the GPU waits for memory bandwidth and reaches only a few per
cent of its peak FLOP/s. I would confirm it with a profiler (Nsight Compute):
per kernel, achieved memory bandwidth close to the peak but low FLOP/s. The
fix is to move fewer bytes: kernel fusion (compiler-based layer fusion of
conv + bias + activation) keeps intermediates out of global memory and also
removes kernel launch overhead (as do CUDA graphs); mixed precision (FP16 or
BF16 on tensor cores) halves the bytes, and a channels-last layout with
tiling lets the convolutions reuse data.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
The GPU reaches only a few per cent of its peak because most of the CNN's
layers are memory bound: activations, normalisation and element-wise
additions do little arithmetic per byte. On the roofline their arithmetic
intensity is far left of the ridge point, so memory bandwidth, not FLOP/s,
sets their speed. I would confirm it with Nsight Compute, which shows each
kernel's achieved bandwidth near the peak while its FLOP/s stay low. Then I
would fuse the layers (conv, bias and activation in one kernel) so
intermediates stay out of global memory, use CUDA graphs to cut the launch
overhead of many small kernels, and switch to mixed precision on the tensor
cores to halve the bytes.]] },
    -- tol 0.12: in "A profiler run (nsys, then ncu per kernel) would
    -- confirm that the kernels saturate DRAM bandwidth" the grammar reads
    -- only the clause after "that", so the profiler is missed
    { role = "good", score = 1, tol = 0.12, answer = [[
This is the memory wall. Element-wise and normalisation layers have a low
arithmetic intensity, left of the roofline's ridge, so they are bandwidth
bound. A profiler run (nsys, then ncu per kernel) would confirm that the
kernels saturate DRAM bandwidth. The fixes move fewer bytes: operator fusion
keeps intermediates in registers and also removes kernel launches, and BF16
with a channels-last layout halves the traffic and uses the tensor cores.]] },
    { role = "partial", score = 4 / 9, tol = 0.2, answer = [[
The layers are memory bound; I would fuse them.]] },
    { role = "partial", score = 1 / 3, tol = 0.2, answer = [[
I would look at the roofline: the arithmetic intensity of these layers is
low. A profiler such as Nsight would show it.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
memory bound, memory wall, arithmetic intensity, roofline, ridge, Nsight,
kernel fusion, launch overhead, CUDA graphs, FP16, tensor cores, NHWC]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
The CNN is compute bound: its layers have a high arithmetic intensity, far
right of the ridge of the roofline, so the GPU simply lacks FLOP/s. Memory
bandwidth is not the bottleneck, so fusing layers would not help, and kernel
launches cost nothing. There is no need to profile it, and switching to FP16
changes nothing. I would buy a GPU with more TFLOP/s.]] },
  },
  examples = {
    { answer = [[
It is memory bound: low arithmetic intensity, left of the roofline ridge.
Profile with Nsight, then fuse kernels, use CUDA graphs against launch
overhead, and switch to FP16 mixed precision.]], score = 1 },
    { "The layers are memory bound; I would fuse them.", 4 / 9 },   -- (2 + 2) of 9 points
    { "The GPU is broken.", 0 },
    { "", "invalid" },
  },
}

-- ---- programming exercises (kind = "code"; `warpbench code run QID FILE`) ----

question {
  id = "memory.matmul",
  kind = "code",
  title = "Write a fast matrix multiply",
  points = 10,
  topics = { "memory-hierarchy", "roofline" },
  prompt = [[
Write `void matmul(int n, const float *a, const float *b, float *c)`: the
row-major product c = a·b of two n×n matrices (c[i*n+j] = sum over k of
a[i*n+k]·b[k*n+j]), for n = 512. The naive i-j-k loop walks b by columns and
reaches about 1% of this machine's FP32 peak. Reorder the loops (i-k-j), block
for the caches and let the compiler vectorise the inner loop.

Start with `warpbench code start memory.matmul`, run with
`warpbench code run memory.matmul matmul.c`. Your code is compiled with
`-O2 -march=native`, run on fresh random inputs every call and checked
against the reference (relative error 1e-3). The score: 30% for a correct
result, the rest by the fraction of this machine's roofline you reach
(2n³ FLOP per call at an arithmetic intensity of n/6 FLOP/byte: compute
bound), full marks from 30%.]],
  code = {
    signature = "void matmul(int n, const float *a, const float *b, float *c)",
    sizes = { n = 512 },
    inputs = { a = { count = "n*n", min = -1, max = 1 }, b = { count = "n*n", min = -1, max = 1 } },
    outputs = { c = { count = "n*n" } },
    tolerance = { rel = 1e-3, abs = 1e-3 },
    work = { flops = "2*n^3", bytes = "3*4*n^2" },
    correct = 0.3,
    bands = { { fraction = 0.03, score = 0.2 }, { fraction = 0.1, score = 0.6 },
              { fraction = 0.3, score = 1 } },
    reps = 3,
    timeout = 20,
    starter = [[
/* matmul.c: c = a * b, n x n, row-major. Make it fast. */
void matmul(int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
]],
    reference = [[
void matmul(int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += (double)a[i * n + k] * b[k * n + j];
            c[i * n + j] = (float)s;
        }
}
]],
  },
}

question {
  id = "memory.transpose",
  kind = "code",
  title = "Write a fast transpose",
  points = 10,
  topics = { "memory-hierarchy", "coalescing" },
  prompt = [[
Write `void transpose(int n, const float *a, float *b)`: b[j*n+i] = a[i*n+j]
for an n×n matrix, n = 2048 (16 MiB each way). It does no arithmetic: the
bound is bandwidth. The naive loop reads rows and writes columns, so every
write touches a new cache line. Transpose in tiles that fit in the L1 cache
(the CPU side of GPU coalescing). Scored by the fraction of this machine's
measured triad bandwidth at that size (8n² bytes per call), full marks
from 60%.]],
  code = {
    signature = "void transpose(int n, const float *a, float *b)",
    sizes = { n = 2048 },
    inputs = { a = { count = "n*n", min = -1000, max = 1000 } },
    outputs = { b = { count = "n*n" } },
    tolerance = { rel = 0, abs = 0 },
    work = { flops = 0, bytes = "8*n^2" },
    correct = 0.3,
    bands = { { fraction = 0.15, score = 0.3 }, { fraction = 0.35, score = 0.7 },
              { fraction = 0.6, score = 1 } },
    reps = 5,
    starter = [[
/* transpose.c: b = a transposed, n x n, row-major. Make it fast. */
void transpose(int n, const float *a, float *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[j * n + i] = a[i * n + j];
}
]],
    reference = [[
void transpose(int n, const float *a, float *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[j * n + i] = a[i * n + j];
}
]],
  },
}

question {
  id = "memory.sum",
  kind = "code",
  title = "Sum a float array, fast and accurately",
  points = 10,
  topics = { "memory-hierarchy", "roofline" },
  prompt = [[
Write `float sum(int n, const float *x)` returning the sum of n = 8388608
floats drawn from [0, 1). The error bound is a relative error of 1e-5
against the exact sum: one float accumulator fails it (once the sum passes
2^22 every addition rounds by up to a quarter), one double accumulator meets it but is latency bound (one
add per 4 cycles). Several independent accumulators meet both: the loop
vectorises and each partial sum stays small. Memory bound (4n bytes per
call); full marks from 95% of this machine's triad bandwidth.]],
  code = {
    signature = "float sum(int n, const float *x)",
    sizes = { n = 8388608 },
    inputs = { x = { count = "n", min = 0, max = 1 } },
    tolerance = { rel = 1e-5, abs = 0 },
    work = { flops = "n", bytes = "4*n" },
    correct = 0.3,
    bands = { { fraction = 0.5, score = 0.3 }, { fraction = 0.8, score = 0.7 },
              { fraction = 0.95, score = 1 } },
    reps = 5,
    starter = [[
/* sum.c: the sum of x[0..n), relative error at most 1e-5. Make it fast. */
float sum(int n, const float *x)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return (float)s;
}
]],
    reference = [[
float sum(int n, const float *x)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return (float)s;
}
]],
  },
}
