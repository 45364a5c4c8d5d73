-- Lesson 4: GPU architecture and memory coalescing.
--
-- Facts and worked examples come from the course material
-- (gpu-ml-training-inference-guide.md sections 1, 2 and 6,
-- gpu-acceleration-cheatsheet.md, ml-system-optimization-notes.txt parts 3
-- and 6, day5-summary-and-assessment.md); the text is ours.
--
-- Worked examples of the material that are questions here, with the
-- document's numbers:
--   * the warp-divergence diagram: a warp split 16/16 over two paths takes
--     4 time units instead of 2 (gpu.divergence-worked);
--   * coalescing, "1 vs 32 memory transactions per warp" with 128-byte lines
--     (gpu.lines-coalesced, gpu.lines-strided) and the bytes that the
--     strided warp really moves in 32-byte sectors (gpu.strided-bytes);
--   * the cheatsheet's launch configuration (n + 255) / 256
--     (gpu.blocks-needed, with n = 1,000,000 as a fixed example);
--   * the guide's tensor-core generations: 125 -> 312 TFLOP/s "2.5x"
--     (gpu.tc-a100) and 312 -> 989 TFLOP/s "3x" (gpu.tc-h100);
--   * the guide's FP16 machine epsilon (gpu.fp16-eps);
--   * the guide's interleaved shared-memory reduction (gpu.reduction-warps).
--
-- Corrections to the material, taught on the pages:
--   * The notes say a block "contains 32 threads, known as a warp". A warp
--     is 32 threads; a block is whatever the launch asks for, up to 1024
--     threads, i.e. up to 32 warps (gpu.block-size).
--   * The guide calls the GPU's model SIMD; it is SIMT (threads with their
--     own registers and control flow, executed a warp at a time).
--   * The guide gives registers "~20KB per SM, zero latency", shared memory
--     "1-2 cycle latency" and L2 "tens of cycles". An A100 SM has 64 K
--     32-bit registers (256 KB, as the cheatsheet says); shared memory takes
--     roughly 20-30 cycles and L2 roughly 200.
--   * The guide gives FP16's machine epsilon as about 6 x 10^-4. It is
--     2^-10 = 9.77 x 10^-4 (the unit roundoff is half that, 4.9 x 10^-4).
--   * "989 TFLOPS (3x improvement)": 989 / 312 = 3.17. And the day-5 table's
--     H100 "1979 TFLOPS (FP16)" is the 2:4-sparse figure; dense is 989.
--   * The day-5 summary quotes a 10-30x coalescing penalty. Counting bytes
--     in 32-byte sectors, a fully scattered warp of 4-byte loads moves 8x the
--     useful bytes; the page explains why a measured gap can differ and
--     calls 10-30x a measured range, not a rule.
--   * The cheatsheet's profiling table calls low bandwidth use "memory
--     bound"; a kernel near its peak bandwidth is the memory-bound one (the
--     profiling page says so).
--   * The guide's divergence diagram shows three steps for "4 units"; its
--     numbers are right if each path costs 2 units, which is how the
--     question states it.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not (counts of warps, blocks, sectors and banks are exact); prompts
-- contain no braces except params placeholders.

lesson {
  id = "gpu",
  title = "GPU architecture and memory coalescing",
  topics = { "gpu" },
  rubric = { "theory.gpu" },
}

-- Number of distinct 32-byte sectors touched by a warp whose thread i reads
-- e bytes at byte offset (start + i * stride) * e.
local function sectors(e, stride, start)
  local seen, n = {}, 0
  for i = 0, 31 do
    local s = ((start + i * stride) * e) // 32
    if not seen[s] then seen[s] = true; n = n + 1 end
  end
  return n
end

local function gcd(a, b)
  while b ~= 0 do a, b = b, a % b end
  return a
end

-- Resident warps per SM for blocks of t threads using r registers per thread
-- and s KB of shared memory per block, with A100-like limits: 64 warps
-- (2048 threads), 32 blocks, 65,536 registers and 164 KB of shared memory
-- per SM; allocation granularity ignored.
local function resident_warps(t, r, s)
  local blocks = math.min(32, 2048 // t)
  if r and r > 0 then blocks = math.min(blocks, 65536 // (r * t)) end
  if s and s > 0 then blocks = math.min(blocks, 164 // s) end
  return blocks * t // 32
end

------------------------------------------------------------------------------
page [==[
# CPU and GPU: two designs

A CPU and a GPU spend their transistors on different things because they
optimise for different goals.

|               | CPU                        | GPU                        |
|---------------|----------------------------|----------------------------|
| goal          | **latency**: finish one    | **throughput**: the most   |
|               | thread as soon as possible | work per second            |
| cores         | 4-64 (up to ~128) complex  | thousands of simple lanes  |
|               | cores                      | in ~100 SMs                |
| control       | branch prediction, out-of- | simple in-order issue: one |
|               | order execution            | instruction for 32 threads |
| caches        | large (MBs per core)       | small per thread           |
| memory        | ~100-500 GB/s (DDR)        | 0.9-3.35 TB/s (HBM)        |
| hides latency | caches and speculation     | switching between warps    |

A single GPU thread is *slower* than a CPU thread. The GPU wins when there
are tens of thousands of independent pieces of work, as in the matrix
multiplications and element-wise operations that make up neural networks.

## Hiding latency needs many threads

A load from GPU memory takes several hundred cycles (about 0.5 us). The GPU
does not wait: each SM keeps dozens of warps resident and issues from
whichever is ready. How much must be in flight to keep the memory busy?
Little's law again:

```
bytes in flight = bandwidth x latency
A100 80GB SXM: 2039 GB/s x 500 ns = about 1 MB, i.e. ~9.4 KB per SM
      (108 SMs) = ~74 warp-wide 128-byte loads in flight on every SM
```

That is why GPU code launches far more threads than there are cores, and
why each thread often loads several values before using them.

## Host and device

The CPU (**host**) drives the GPU (**device**), which has its own memory:

```
  host (CPU, DRAM)                          device (GPU, HBM)
  1. allocate device memory      ------->   cudaMalloc
  2. copy inputs                 --PCIe-->  (PCIe 5.0 x16: ~64 GB/s)
  3. launch the kernel           ------->   runs on thousands of threads
  4. copy results back           <--PCIe--
  5. free device memory
```

The PCIe link is about 50 times slower than the GPU's own memory (64 GB/s
against 3.35 TB/s on an H100), so data should cross it once and stay on the
GPU. GPUs of one server talk over **NVLink** instead: 900 GB/s per H100,
but that figure counts both directions together (450 GB/s each way), while
PCIe's 64 GB/s is one direction, so like for like NVLink is about 7× PCIe,
not 14×.
]==]

question {
  id = "gpu.cpu-gpu",
  kind = "multi",
  title = "CPU versus GPU",
  prompt = "Which of these statements are true? Pick all that apply.",
  points = 2,
  topics = { "gpu", "cpu-vs-gpu" },
  hints = { "Three of the five are true." },
  choices = {
    "A CPU core spends much of its area on caches, branch prediction and out-of-order logic to make one thread fast.",
    "A GPU hides memory latency mainly by switching between many resident warps.",
    "One GPU thread runs a serial task faster than one CPU thread.",
    "A datacentre GPU's memory bandwidth is several times a CPU socket's.",
    "SIMT means every thread on the GPU executes the same instruction at the same moment.",
  },
  answer = { 1, 2, 4 },
  why = {
    [3] = "GPU threads are simple and slow one by one; the GPU wins on throughput, with many threads.",
    [5] = "Only the 32 threads of one warp share an instruction at a time; different warps run independently.",
  },
  examples = {
    { "a b d", 1 },
    { "a b", 2 / 3 },
    { "a b c d e", 1 / 3 },
    { "c e", 0 },
    { "a g", "invalid" },
  },
}

question {
  id = "gpu.pcie-copy",
  kind = "numeric",
  title = "Copying over PCIe (your numbers)",
  prompt = [[
A training job copies {gb} GB of input to the GPU over {link}, which
sustains {bw} GB/s. How long does the copy take, in ms?
Give three significant figures.]],
  unit = "ms",
  topics = { "gpu", "host-device", "bandwidth" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = { "Time = size / bandwidth; 1 s = 1000 ms." },
  params = function(rng)
    local l = rng:pick({ { "PCIe 4.0 x16", 32 }, { "PCIe 5.0 x16", 64 } })
    return { gb = rng:pick({ 1, 2, 5, 12, 40 }), link = l[1], bw = l[2] }
  end,
  answer = function(p) return p.gb / p.bw * 1000 end,
  wrong = {
    { value = function(p) return p.gb / p.bw end,
      feedback = "That number is in seconds; the question asks ms (or write the unit: '0.5 s')." },
    { value = function(p) return p.gb / 3350 * 1000 end,
      feedback = "That is the speed of the GPU's own memory. The copy crosses PCIe, about 50 times slower." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", p.gb / p.bw * 1000) end, score = 1 },
    { answer = function(p) return string.format("%.5g s", p.gb / p.bw) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.1 * p.gb / p.bw * 1000) end, score = 0 },
    { params = { gb = 4, link = "PCIe 5.0 x16", bw = 64 }, answer = "62.5", score = 1 },
    { params = { gb = 4, link = "PCIe 5.0 x16", bw = 64 }, answer = "0.0625", score = 0 },
    { "62.5 GB", "invalid" },
  },
}

question {
  id = "gpu.in-flight",
  kind = "numeric",
  title = "Bytes in flight (your numbers)",
  prompt = [[
A GPU's memory delivers {bw} GB/s and a load takes about {lat} ns to come
back. How many bytes must be in flight at any moment to keep the memory
busy, in MB (10^6 bytes)?
Give three significant figures.]],
  unit = "MB",
  topics = { "gpu", "latency-hiding", "bandwidth" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = { "Little's law: bytes in flight = bandwidth x latency. GB/s x ns = bytes." },
  params = function(rng)
    return { bw = rng:pick({ 900, 2039, 3350 }), lat = rng:pick({ 400, 500, 600, 800 }) }
  end,
  answer = function(p) return p.bw * 1e9 * p.lat * 1e-9 / 1e6 end,
  wrong = {
    { value = function(p) return p.bw * p.lat / 1e9 end,
      feedback = "Check the powers of ten: GB/s x ns = (10^9 B/s) x (10^-9 s) = bytes, so the product is in bytes." },
    { value = function(p) return p.bw / p.lat end,
      feedback = "Multiply bandwidth by latency; dividing them has no meaning here." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", p.bw * p.lat / 1e6) end, score = 1 },
    { answer = function(p) return string.format("%.5g KB", p.bw * p.lat / 1e3) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.2 * p.bw * p.lat / 1e6) end, score = 0 },
    { params = { bw = 2039, lat = 500 }, answer = "1.0195", score = 1 },
    { params = { bw = 2039, lat = 500 }, answer = "1.02 MB", score = 1 },
    { params = { bw = 2039, lat = 500 }, answer = "1 MB", score = 0 },    -- 1.9% off
    { params = { bw = 2039, lat = 500 }, answer = "4.078", score = 0 },
    { "1 ms", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Threads, warps, blocks and grids

A CUDA **kernel** is one function that thousands of threads run at once.
The threads are organised in a hierarchy that mirrors the hardware:

```
grid    every thread of one kernel launch: a 1-, 2- or 3-D array of blocks
 |
 +-- block   up to 1024 threads, chosen at launch (often 128-512)
      |      runs on ONE SM; its threads share that SM's shared memory
      |      and can synchronise with __syncthreads()
      |
      +-- warp    32 consecutive threads of a block (0-31, 32-63, ...)
           |      the unit the SM schedules: one instruction for all 32
           |
           +-- thread   its own registers and index; the smallest unit
```

**A block is not a warp.** Course notes sometimes say that "a block contains
32 threads, known as a warp". That is wrong: a **warp is always 32 threads**;
a **block** has as many threads as the launch asks for, up to 1024, and the
hardware splits it into warps. A block of 256 threads is 8 warps; a block of
100 threads is 4 warps, the last one with only 4 of its 32 lanes in use (so
block sizes are multiples of 32).

The streaming multiprocessor (**SM**) is the hardware that runs blocks: CUDA
cores for ordinary arithmetic, tensor cores for matrix products, a register
file (64 K 32-bit registers = 256 KB on an A100 SM), and shared memory. An
A100 has 108 SMs; an H100 SXM has 132. Blocks are independent: the GPU runs
them in any order, on any SM, as many at a time as fit.

## Indexing and launching

Each thread computes which element it owns from built-in variables:

```cuda
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;  /* global index */
    if (i < n)                           /* the last block may overhang */
        c[i] = a[i] + b[i];
}

int threads = 256;
int blocks  = (n + threads - 1) / threads;          /* round UP */
vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
```

For n = 1,000,000 and 256 threads per block that is 3907 blocks (3906 would
leave the last 64 elements undone); the last block has 192 threads with
nothing to do, which is what the `if (i < n)` guard is for.
]==]

question {
  id = "gpu.block-size",
  kind = "choice",
  title = "How big is a thread block?",
  prompt = "How many threads does a CUDA thread block contain?",
  topics = { "gpu", "thread-hierarchy" },
  hints = { "Which one is fixed by the hardware: the warp or the block?" },
  choices = {
    "Always 32: a thread block is a warp.",
    "As many as the kernel launch asks for, up to 1024; the hardware runs them as warps of 32.",
    "Always 1024.",
    "One thread per CUDA core of the SM.",
  },
  answer = 2,
  why = {
    [1] = "A common mix-up (also in some course notes): the WARP is 32 threads. A block is chosen at launch, up to 1024 threads, i.e. up to 32 warps.",
    [3] = "1024 is the maximum, not a fixed size; blocks of 128-512 threads are common.",
    [4] = "The block size is a launch parameter, unrelated to the number of cores.",
  },
  examples = {
    { "b", 1 },
    { "2", 1 },
    { "a", 0 },
    { "c", 0 },
    { "32", "invalid" },    -- not a letter, a choice number or a choice's text
  },
}

question {
  id = "gpu.blocks-needed",
  kind = "numeric",
  title = "How many blocks? (your numbers)",
  prompt = [[
A kernel processes n = {n} elements, one per thread, in blocks of {t}
threads. How many blocks must the launch ask for?
Give a whole number.]],
  topics = { "thread-hierarchy", "cuda" },
  hints = {
    "Every element needs a thread, so round up: (n + t - 1) / t in integer arithmetic.",
  },
  params = function(rng)
    return { n = rng:pick({ 50000, 100000, 1000000, 3000000, 12345678 }), t = rng:pick({ 128, 256, 512, 1024 }) }
  end,
  answer = function(p) return (p.n + p.t - 1) // p.t end,
  -- A count of blocks: only the exact number is right (one fewer leaves
  -- elements unprocessed). The course writes it (n + t - 1) / t in C's
  -- integer arithmetic, so that text typed literally is right too.
  integer = true,
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return p.n // p.t end,
      feedback = "Rounded down: the last elements get no thread. Round up: (n + t - 1) / t." },
    { value = function(p) return (p.n + 31) // 32 end,
      feedback = "That counts warps of 32 threads. Divide by the block size instead." },
  },
  examples = {
    { answer = function(p) return tostring((p.n + p.t - 1) // p.t) end, score = 1 },
    { answer = function(p) return tostring((p.n + p.t - 1) // p.t + 1) end, score = 0 },
    { params = { n = 1000000, t = 256 }, answer = "3907", score = 1 },
    { params = { n = 1000000, t = 256 }, answer = "(1000000 + 255) / 256", score = 1 },   -- C's integer division
    { params = { n = 1000000, t = 256 }, answer = "ceil(1000000 / 256)", score = 1 },
    { params = { n = 1000000, t = 256 }, answer = "(1000000 + 255) // 256", score = 1 },
    { params = { n = 1000000, t = 256 }, answer = "1000000 / 256", score = 0 },           -- 3906.25: round up
    { params = { n = 1000000, t = 256 }, answer = "3906", score = 0 },
    { "3907 blocks", "invalid" },
  },
}

question {
  id = "gpu.warps-per-block",
  kind = "numeric",
  title = "Warps in a block (your numbers)",
  prompt = [[
A kernel is launched with blocks of {t} threads. How many warps does each
block occupy?
Give a whole number.]],
  topics = { "thread-hierarchy", "warps" },
  hints = { "A warp is 32 threads; a partly filled warp still counts as a warp." },
  params = function(rng) return { t = rng:pick({ 48, 100, 200, 250, 300, 500, 1000 }) } end,
  answer = function(p) return (p.t + 31) // 32 end,
  tolerance = { abs = 0.01 },   -- a count: exact only
  wrong = {
    { value = function(p) return p.t // 32 end,
      feedback = "Rounded down: the leftover threads still need a warp of their own (with idle lanes). Round up." },
    { value = 1, feedback = "A block is not one warp: a warp is 32 threads, a block up to 1024." },
  },
  examples = {
    { answer = function(p) return tostring((p.t + 31) // 32) end, score = 1 },
    { answer = function(p) return string.format("%.4f", p.t / 32) end, score = 0 },
    { params = { t = 100 }, answer = "4", score = 1 },
    { params = { t = 100 }, answer = "3", score = 0 },
    { params = { t = 100 }, answer = "3.125", score = 0 },
    { "four", "invalid" },
  },
}

question {
  id = "gpu.global-index",
  kind = "numeric",
  title = "Which element does a thread own? (your numbers)",
  prompt = [[
In vector_add, launched with blockDim.x = {t}, which element index i does
the thread with blockIdx.x = {b} and threadIdx.x = {x} process?
Give a whole number.]],
  topics = { "thread-hierarchy", "cuda" },
  hints = {
    "Each block covers blockDim.x consecutive elements; threadIdx.x is the place inside the block.",
    "i = blockIdx.x * blockDim.x + threadIdx.x",
  },
  params = function(rng)
    local t = rng:pick({ 128, 256, 512 })
    local b, x
    -- Not b = x: swapping them (a common mistake) would give the right index.
    repeat b, x = rng:int(2, 60), rng:int(1, t - 1) until b ~= x
    return { t = t, b = b, x = x }
  end,
  answer = function(p) return p.b * p.t + p.x end,
  tolerance = { abs = 0.01 },   -- an index: exact only
  wrong = {
    { value = function(p) return p.x * p.t + p.b end,
      feedback = "Swapped: the block index is multiplied by the block size, then the thread's index inside the block is added." },
    { value = function(p) return p.b * p.t end,
      feedback = "That is the first element of the block; add threadIdx.x." },
    { value = function(p) return (p.b + 1) * p.t + p.x end,
      feedback = "Blocks count from 0: block b starts at element b x blockDim." },
  },
  examples = {
    { answer = function(p) return tostring(p.b * p.t + p.x) end, score = 1 },
    { answer = function(p) return tostring(p.b * p.t + p.x + 1) end, score = 0 },
    { params = { t = 256, b = 3, x = 10 }, answer = "778", score = 1 },
    { params = { t = 256, b = 3, x = 10 }, answer = "3*256+10", score = 1 },
    { params = { t = 256, b = 3, x = 10 }, answer = "768", score = 0 },
    { "i", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# SIMT and warp divergence

The GPU's execution model is **SIMT**, single instruction, multiple threads.
It looks like SIMD from the hardware's side (one instruction drives 32 lanes)
but each thread has its own registers and its own control flow in the
program: you write scalar code for one thread, and the SM runs it for a
whole warp at a time.

When the threads of one warp disagree at a branch, the warp **diverges**:
it runs one side with the other threads masked off, then the other side,
then the threads reconverge. Both sides cost time for the whole warp.

```
if (threadIdx.x < 16) path_A(); else path_B();     each path: 2 units

no divergence (all 32 take A)       divergence (16 take A, 16 take B)
lanes 0-31:  A A                    lanes  0-15:  A A . .
                                    lanes 16-31:  . . B B
time:        2 units                time:         4 units (2x slower)
```

- Divergence only exists **inside a warp**. A condition that is the same
  for all 32 threads of a warp (`threadIdx.x / 32 == 3`, `blockIdx.x % 2`)
  costs nothing: different warps may take different paths freely.
- Loops diverge too: a warp runs until its slowest thread is done.
- With a split of n lanes on side A (a cycles) and 32 − n on side B
  (b cycles), the warp takes a + b cycles while its lanes do useful work
  for n·a + (32 − n)·b lane-cycles: **lane utilisation** =
  (n·a + (32 − n)·b) / (32·(a + b)).

## An example: reductions

A classic shared-memory sum halves the active threads at each step. Written
with *interleaved* addressing, it keeps every warp busy for a handful of
threads:

```cuda
for (int s = 1; s < blockDim.x; s *= 2) {
    if (threadIdx.x % (2 * s) == 0)          /* active: 0, 2s, 4s, ... */
        buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
}
```

With 256 threads and s = 1, 128 threads work, but they are spread over all 8
warps, so all 8 warps execute the addition. With *sequential* addressing the
same 128 active threads are threads 0-127, which fill 4 whole warps; the
other 4 warps skip the step entirely:

```cuda
for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)                     /* active: 0 .. s-1 */
        buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
}
```

(In PyTorch code there is no warp divergence to manage: a boolean mask
launches separate kernels and gathers the selected elements. Computing both
sides and choosing with `torch.where` is faster there because it avoids the
gathers and extra launches, not because of warps.)
]==]

question {
  id = "gpu.divergence-worked",
  kind = "numeric",
  title = "A warp split in two",
  prompt = [[
In one warp, threads 0-15 take the if-branch and threads 16-31 the
else-branch; each branch costs 2 time units. Without divergence (all 32
threads on one branch) the warp needs 2 units. How many time units does the
divided warp need?
Give a whole number.]],
  topics = { "simt", "divergence" },
  hints = { "The warp cannot run both halves at the same time: it runs one side, then the other." },
  answer = 4,
  tolerance = { abs = 0.01 },   -- a whole number of units
  wrong = {
    { value = 2, feedback = "The two halves do not run at the same time: the warp executes both branches one after the other, 2 + 2 units." },
    { value = 1, feedback = "Masking off half the lanes does not halve the time: each branch still takes its full 2 units, and both run." },
    { value = 64, feedback = "The 32 threads are not serialised one by one; the two groups of 16 are." },
  },
  examples = {
    { "4", 1 },
    { "2+2", 1 },
    { "2", 0 },
    { "3", 0 },
    { "4 s", "invalid" },   -- units of time here are abstract steps
  },
}

question {
  id = "gpu.divergence-util",
  kind = "numeric",
  title = "Lane utilisation of a divergent warp (your numbers)",
  prompt = [[
In a warp, {n} threads take an if-branch that costs {a} cycles and the other
{m} threads the else-branch that costs {b} cycles. What fraction of the
warp's lane-cycles does useful work, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "simt", "divergence" },
  rubric = { "theory.gpu", "practice.profiling" },
  hints = {
    "In a divergent warp the two paths run one after the other, and idle lanes still take their cycles.",
    "The warp takes {a} + {b} cycles with all 32 lanes allocated.",
    "Useful lane-cycles: {n} x {a} + {m} x {b}.",
  },
  params = function(rng)
    local n = rng:pick({ 4, 8, 12, 20, 24, 28 })
    local a = rng:pick({ 10, 20, 40, 60 })
    local b = rng:pick({ 10, 20, 40, 60 })
    return { n = n, m = 32 - n, a = a, b = b }
  end,
  answer = function(p) return 100 * (p.n * p.a + p.m * p.b) / (32 * (p.a + p.b)) end,
  wrong = {
    { value = function(p) return 100 * p.n / 32 end,
      feedback = "That is the share of threads on the if-branch. Weigh each branch by how long it runs." },
    { value = 100, feedback = "The branches run one after the other with part of the lanes masked off: utilisation is below 100%." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 100 * (p.n * p.a + p.m * p.b) / (32 * (p.a + p.b))) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 0.9 * 100 * (p.n * p.a + p.m * p.b) / (32 * (p.a + p.b))) end, score = 0 },
    -- 8 lanes x 40 cycles + 24 lanes x 20 cycles = 800 of 32 x 60 = 1920.
    { params = { n = 8, m = 24, a = 40, b = 20 }, answer = "41.67", score = 1 },
    { params = { n = 8, m = 24, a = 40, b = 20 }, answer = "25", score = 0 },
    { params = { n = 16, m = 16, a = 20, b = 20 }, answer = "50", score = 1 },
    { "half", "invalid" },
  },
}

question {
  id = "gpu.divergence-which",
  kind = "multi",
  title = "Which branches diverge?",
  prompt = [[
A kernel runs with blocks of 256 threads. Which of these conditions make
some warps diverge? Pick all that apply.]],
  points = 2,
  topics = { "simt", "divergence" },
  hints = { "Ask of each condition: can two threads of the SAME warp (32 consecutive threadIdx.x) disagree?" },
  choices = {
    "if (threadIdx.x < 16)",
    "if (threadIdx.x % 2 == 0)",
    "if (threadIdx.x / 32 == 3)",
    "if (blockIdx.x % 2 == 0)",
    "if ((threadIdx.x / 32) % 2 == 0)",
    "if (x[i] > 0), with x holding random signs",
  },
  answer = { 1, 2, 6 },
  why = {
    [3] = "threadIdx.x / 32 is the warp number: all 32 threads of a warp agree, so no warp diverges.",
    [4] = "All threads of a block, hence of each warp, share blockIdx.x.",
    [5] = "Again a function of the warp number only: whole warps go one way or the other.",
  },
  examples = {
    { "a b f", 1 },
    { "a b", 2 / 3 },
    { "a b c f", 2 / 3 },
    { "c d e", 0 },
    { "a b z", "invalid" },
  },
}

question {
  id = "gpu.reduction-warps",
  kind = "numeric",
  title = "Warps busy in an interleaved reduction (your numbers)",
  prompt = [[
A block of 256 threads (8 warps) runs the interleaved reduction: at step s
only threads with threadIdx.x % (2*s) == 0 add. At the step with s = {s},
how many of the 8 warps have at least one active thread, and so must execute
the addition?
Give a whole number.]],
  topics = { "simt", "divergence", "shared-memory" },
  hints = {
    "Active threads are 0, {step}, 2 x {step}, ...: 256 / {step} of them.",
    "Count how many different warps (threadIdx.x / 32) they fall into.",
  },
  params = function(rng)
    local s = rng:pick({ 1, 2, 4, 8, 16, 32, 64 })
    return { s = s, step = 2 * s }
  end,
  answer = function(p) return math.min(8, 128 // p.s) end,
  tolerance = { abs = 0.01 },   -- a count of warps
  wrong = {
    { value = function(p) return (128 // p.s + 31) // 32 end,
      feedback = "That would be true with sequential addressing (active threads 0..k-1 packed into few warps). Interleaved, the active threads are spread out." },
    { value = function(p)   -- false when each active thread has a warp of its own
        return 128 // p.s > 8 and 128 // p.s
      end,
      feedback = "That is the number of active THREADS; the question asks how many warps contain one." },
  },
  examples = {
    { answer = function(p) return tostring(math.min(8, 128 // p.s)) end, score = 1 },
    { params = { s = 1, step = 2 }, answer = "8", score = 1 },
    { params = { s = 1, step = 2 }, answer = "4", score = 0 },
    { params = { s = 32, step = 64 }, answer = "4", score = 1 },
    { params = { s = 32, step = 64 }, answer = "1", score = 0 },
    { params = { s = 64, step = 128 }, answer = "2", score = 1 },
    { params = { s = 16, step = 32 }, answer = "7", score = 0 },   -- thread 224 is in warp 7: 8 warps
    { "all", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Memory coalescing

When a warp executes a load, the hardware gathers the 32 addresses and
fetches the memory **segments** that contain them: **32-byte sectors**,
grouped in **128-byte lines** (cache lines). Nothing smaller than a sector
ever moves. A load is *coalesced* when the warp's addresses fall in as few
sectors as possible.

```
coalesced: thread i reads float a[i]            (stride 1, 4 bytes each)
  threads  0 ....... 7 | 8 ...... 15 | 16 ..... 23 | 24 ..... 31
  bytes    0 ....... 31| 32 ..... 63 | 64 ..... 95 | 96 .... 127
           [ sector 0 ] [ sector 1  ] [ sector 2  ] [ sector 3  ]
           \________________ one 128-byte line ________________/
  -> 1 line, 4 sectors, 128 bytes moved for 128 bytes used: 100 %

strided: thread i reads float a[32 * i]         (128 bytes apart)
  thread 0 -> line 0, thread 1 -> line 1, ..., thread 31 -> line 31
  -> 32 lines, 32 sectors, 1024 bytes moved for 128 bytes used: 12.5 %
```

This is the course's **"1 versus 32 memory transactions per warp"**: a
coalesced warp of 4-byte loads needs one 128-byte transaction, a fully
scattered one needs 32. Counted in bytes, the scattered warp moves
32 x 32 = 1024 bytes to use 128: **8 times** the traffic, because modern
GPUs fetch 32-byte sectors, not whole lines. That is the part you can work
out on paper. A measured gap can be larger: some GPUs fetch DRAM 64 bytes at
a time, huge strides add TLB misses, and scattered warps need more requests
in flight. The course summary's "10-30x" is such a measured range, not a
rule.

For a stride of s elements of e bytes (the array aligned to 128 bytes):

| stride (floats) | sectors per warp | bytes moved | efficiency |
|----------------:|-----------------:|------------:|-----------:|
|               1 |                4 |         128 |      100 % |
|               2 |                8 |         256 |       50 % |
|               4 |               16 |         512 |       25 % |
|       8 or more |               32 |        1024 |     12.5 % |

**Alignment** matters too: 32 consecutive floats starting at element 1
instead of element 0 straddle two lines and five sectors, 160 bytes for 128
used (80 %).

## Designing for coalescing

- Let consecutive threads (`threadIdx.x`) touch consecutive addresses: the
  *fastest-varying thread index* should map to the *fastest-varying array
  index*.
- Prefer a **structure of arrays** (x[], y[], z[]) to an array of structures
  ({x, y, z}[]): with structures, thread i reading p[i].x has a stride of the
  whole structure.
- When an algorithm must read along one dimension and write along another
  (a matrix transpose), stage a tile in **shared memory**: read rows
  coalesced, write rows coalesced, and do the turn inside the chip.
]==]

calculator {
  id = "gpu.coalescing",
  title = "What one warp's load moves",
  inputs = {
    { name = "e", label = "element size", default = 4, min = 1, max = 16, integer = true, unit = "B" },
    { name = "stride", label = "stride between threads", default = 1, min = 0, max = 1e6, integer = true,
      unit = "elements", help = "0: every thread reads the same element" },
    { name = "offset", label = "first element", default = 0, min = 0, max = 1e6, integer = true,
      help = "index of thread 0's element; the array starts on a 128-byte boundary" },
  },
  compute = function(v)
    local n = sectors(v.e, v.stride, v.offset)
    local lines, seen = 0, {}
    for i = 0, 31 do
      local l = ((v.offset + i * v.stride) * v.e) // 128
      if not seen[l] then seen[l] = true; lines = lines + 1 end
    end
    local used = v.stride == 0 and v.e or 32 * v.e
    -- The first four lines' sectors: # touched, . not touched.
    local first = (v.offset * v.e) // 128
    local pic = {}
    for l = first, first + 3 do
      local row = {}
      for sct = 0, 3 do
        local id, hit = l * 4 + sct, false
        for i = 0, 31 do
          if ((v.offset + i * v.stride) * v.e) // 32 == id then hit = true; break end
        end
        row[#row + 1] = hit and "[####]" or "[....]"
      end
      pic[#pic + 1] = string.format("line %-4d %s", l, table.concat(row))
    end
    return {
      { label = "32-byte sectors touched", value = n },
      { label = "128-byte lines touched", value = lines },
      { label = "bytes moved", value = 32 * n, unit = "B" },
      { label = "bytes used", value = used, unit = "B" },
      { label = "efficiency", value = 100 * used / (32 * n), unit = "%" },
      { label = "first lines (# = sector fetched)", text = table.concat(pic, "\n") },
    }
  end,
  examples = {
    { inputs = { e = 4, stride = 1, offset = 0 }, outputs = { 4, 1, 128, 128, 100 } },
    { inputs = { e = 4, stride = 32, offset = 0 }, outputs = { 32, 32, 1024, 128, 12.5 } },
    { inputs = { e = 4, stride = 1, offset = 1 }, outputs = { 5, 2, 160, 128, 80 } },
    { inputs = { e = 4, stride = 2, offset = 0 }, outputs = { 8, 2, 256, 128, 50 } },
  },
}

question {
  id = "gpu.lines-coalesced",
  kind = "numeric",
  title = "Transactions of a coalesced warp",
  prompt = [[
The 32 threads of a warp read 32 consecutive 4-byte floats, starting at an
address aligned to 128 bytes. How many 128-byte memory transactions does the
warp need?
Give a whole number.]],
  topics = { "coalescing", "memory-transactions" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = {
    "Consecutive threads read consecutive floats: how many bytes does the warp read, and how big is a line?",
    "32 x 4 bytes = ?",
  },
  answer = 1,
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = 32, feedback = "32 transactions is the scattered case. 32 consecutive floats are exactly 128 bytes: one aligned line." },
    { value = 4, feedback = "4 is the number of 32-byte sectors in the line; the question counts 128-byte transactions." },
  },
  examples = {
    { "1", 1 },
    { "128/128", 1 },
    { "32", 0 },
    { "4", 0 },
    { "2", 0 },             -- as if the start were not aligned
    { "one", "invalid" },
  },
}

question {
  id = "gpu.lines-strided",
  kind = "numeric",
  title = "Transactions of a scattered warp",
  prompt = [[
Now thread i of the warp reads the float at index 32 x i, so consecutive
threads are 128 bytes apart. How many 128-byte memory transactions does the
warp need?
Give a whole number.]],
  topics = { "coalescing", "memory-transactions" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = { "Each thread's float lies in a different 128-byte line." },
  answer = 32,
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = 1, feedback = "The addresses are 128 bytes apart, so no two threads share a line: one transaction per thread." },
    { value = 4, feedback = "That is the coalesced warp's sector count. Here every thread needs its own line." },
  },
  examples = {
    { "32", 1 },
    { "1", 0 },
    { "31", 0 },
    { "32 lines", "invalid" },
  },
}

question {
  id = "gpu.strided-bytes",
  kind = "numeric",
  title = "Bytes moved by the scattered warp",
  prompt = [[
The GPU fetches memory in 32-byte sectors. How many bytes does the scattered
warp of the previous question (32 floats, 128 bytes apart) move from memory
in total, to use 128 bytes?
Give three significant figures.]],
  unit = "B",
  topics = { "coalescing", "memory-transactions", "bandwidth" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = { "Each thread needs one sector of its own." },
  answer = 1024,
  wrong = {
    { value = 4096, feedback = "Modern GPUs fetch 32-byte sectors, not whole 128-byte lines: 32 x 32 bytes." },
    { value = 128, feedback = "128 bytes are used, but each thread's 4 bytes come with a whole 32-byte sector." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "1024", 1 },
    { "1024 B", 1 },
    { "1 KiB", 1 },
    { "32*32", 1 },
    { "4096", 0 },
    { "1000", 0 },   -- 2.3% off
    { "1024 ms", "invalid" },
  },
}

question {
  id = "gpu.sectors-stride",
  kind = "numeric",
  title = "Sectors touched by a strided warp (your numbers)",
  prompt = [[
Thread i of a warp reads element {s} x i of an array of {e}-byte values; the
array starts on a 128-byte boundary. How many distinct 32-byte sectors does
the warp's load touch?
Give a whole number.]],
  topics = { "coalescing", "memory-transactions" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = {
    "Thread i's byte offset is {s} x {e} x i. Its sector is that offset divided by 32, rounded down.",
    "Count the different sector numbers for i = 0 .. 31 (at most 32).",
  },
  params = function(rng)
    return { s = rng:pick({ 1, 2, 3, 4, 8, 16, 32 }), e = rng:pick({ 4, 8 }) }
  end,
  answer = function(p) return sectors(p.e, p.s, 0) end,
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = function(p)   -- 4-byte elements, or 32 sectors either way: no mistake
        return p.e ~= 4 and 4 * p.s < 32 and 4 * p.s
      end,
      feedback = "That assumes 4-byte elements. Use the element size given: the warp spans 32 x stride x element-size bytes." },
    { value = function(p) return p.s * p.e > 32 and 32 * p.s * p.e / 32 end,   -- below 32: no cap to forget
      feedback = "A warp touches at most 32 sectors: one per thread, however far apart the threads are." },
  },
  examples = {
    { answer = function(p) return tostring(sectors(p.e, p.s, 0)) end, score = 1 },
    { params = { s = 1, e = 4 }, answer = "4", score = 1 },
    { params = { s = 2, e = 4 }, answer = "8", score = 1 },
    { params = { s = 3, e = 4 }, answer = "12", score = 1 },
    { params = { s = 3, e = 4 }, answer = "11", score = 0 },
    { params = { s = 1, e = 8 }, answer = "8", score = 1 },
    { params = { s = 1, e = 8 }, answer = "4", score = 0 },
    { params = { s = 16, e = 4 }, answer = "32", score = 1 },
    { params = { s = 16, e = 4 }, answer = "64", score = 0 },
    { "many", "invalid" },
  },
}

question {
  id = "gpu.coalescing-efficiency",
  kind = "numeric",
  title = "Efficiency of a strided load (your numbers)",
  prompt = [[
Thread i of a warp reads the 4-byte float at index {s} x i (array aligned to
128 bytes; memory moves in 32-byte sectors). What share of the bytes moved
does the warp actually use, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "coalescing", "bandwidth" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = {
    "Efficiency is the bytes the warp uses over the bytes memory moves for it.",
    "Bytes used: 32 x 4 = 128. Bytes moved: 32 x (number of sectors touched).",
  },
  params = function(rng) return { s = rng:pick({ 2, 3, 4, 6, 8, 16, 64 }) } end,
  answer = function(p) return 100 * 128 / (32 * sectors(4, p.s, 0)) end,
  wrong = {
    { value = function(p) return p.s > 8 and 100 / p.s end,   -- up to 8 floats the rule holds
      feedback = "Efficiency stops falling once the stride reaches 8 floats (32 bytes): from there each thread costs one sector and no more." },
    { value = function(p) return p.s > 8 and 100 * 128 / (128 * math.min(32, p.s)) end,   -- lines and sectors agree below
      feedback = "You counted whole 128-byte lines. Memory moves in 32-byte sectors." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 100 * 128 / (32 * sectors(4, p.s, 0))) end, score = 1 },
    { params = { s = 2 }, answer = "50", score = 1 },
    { params = { s = 2 }, answer = "0.5", score = 0 },     -- a fraction: read as 0.5%
    { params = { s = 64 }, answer = "12.5", score = 1 },
    { params = { s = 64 }, answer = "1.5625", score = 0 },
    { params = { s = 3 }, answer = "33.33", score = 1 },
    { params = { s = 3 }, answer = "30", score = 0 },    -- 10% off
    { "12.5 GB", "invalid" },
  },
}

question {
  id = "gpu.misaligned",
  kind = "numeric",
  title = "A misaligned warp (your numbers)",
  prompt = [[
A warp reads 32 consecutive 4-byte floats, but starts at element {k} of an
array that begins on a 128-byte boundary (so the first byte read is at
offset {off}). How many 32-byte sectors does the load touch?
Give a whole number.]],
  topics = { "coalescing", "alignment" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = {
    "The warp reads bytes {off} to {last}.",
    "Sectors are bytes 0-31, 32-63, ...: which sector holds the first byte, which the last?",
  },
  params = function(rng)
    local k = rng:pick({ 1, 2, 3, 5, 8, 13, 16, 24, 31 })
    return { k = k, off = 4 * k, last = 4 * k + 127 }
  end,
  answer = function(p) return sectors(4, 1, p.k) end,
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = function(p) return p.k % 8 == 0 and 5 or 4 end,
      feedback = "Count again: 128 bytes that start on a sector boundary fill exactly 4 sectors; any other start straddles 5." },
    { value = 32, feedback = "The floats are still consecutive: only the start is shifted, not the stride." },
  },
  examples = {
    { answer = function(p) return tostring(sectors(4, 1, p.k)) end, score = 1 },
    { params = { k = 1, off = 4, last = 131 }, answer = "5", score = 1 },
    { params = { k = 1, off = 4, last = 131 }, answer = "4", score = 0 },
    { params = { k = 8, off = 32, last = 159 }, answer = "4", score = 1 },   -- sector-aligned, though 2 lines
    { params = { k = 8, off = 32, last = 159 }, answer = "5", score = 0 },
    { "five", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Shared memory and bank conflicts

Each SM has on-chip **shared memory**: a scratchpad that the threads of one
block share, managed by the program (unlike a cache). It is the GPU's tool
for tiling (lesson 3): a block loads a tile from global memory once,
coalesced, and all its threads reuse it many times.

| level         | scope  | size (A100)                | latency, approx. |
|---------------|--------|----------------------------|------------------|
| registers     | thread | 256 KB per SM (64 K regs)  | ~1 cycle         |
| shared memory | block  | up to 164 KB per SM        | ~20-30 cycles    |
| L1 cache      | SM     | rest of 192 KB with shared | ~30 cycles       |
| L2 cache      | GPU    | 40 MB (H100: 50 MB)        | ~200 cycles      |
| global (HBM)  | GPU    | 40-80 GB                   | ~400-800 cycles  |

(Some course text gives registers as "~20 KB per SM" with "zero latency"
and shared memory as "1-2 cycles". The register file is 256 KB per SM, and
shared memory is roughly 20 times slower than a register but more than 10
times faster than global memory. Exact latencies vary by generation.)

## Banks

Shared memory is split into **32 banks**, each 4 bytes wide; consecutive
4-byte words go to consecutive banks:

```
bank of a 4-byte word = (byte address / 4) mod 32

word:  0  1  2 ... 31 | 32 33 34 ... 63 | 64 ...
bank:  0  1  2 ... 31 |  0  1  2 ... 31 |  0 ...
```

Each bank serves one word per cycle. If the 32 threads of a warp touch 32
different banks, the access takes one pass. If k threads touch *different
words in the same bank*, the access is split into k passes: a **k-way bank
conflict**. (Threads reading the *same* word get it broadcast, no conflict.)

- Thread t reads word t x s (stride s): the conflict is **gcd(s, 32)**-way.
  Odd strides are conflict-free; stride 2 is 2-way; stride 32 is 32-way.
- A `__shared__ float tile[32][32]` read **down a column** (thread t reads
  tile[t][c]) has stride 32: every thread hits the same bank, 32-way.
- **Padding** fixes it: declare `tile[32][33]`. The column stride becomes 33,
  and gcd(33, 32) = 1: conflict-free, at the cost of one unused word per row.
]==]

calculator {
  id = "gpu.banks",
  title = "Shared-memory bank conflicts",
  inputs = {
    { name = "stride", label = "stride between threads", default = 33, min = 1, max = 1e6, integer = true,
      unit = "4-byte words", help = "a column of float tile[32][W] has stride W" },
  },
  compute = function(v)
    local k = gcd(v.stride, 32)
    local banks = {}
    for t = 0, 7 do banks[#banks + 1] = tostring((t * v.stride) % 32) end
    return {
      { label = "conflict degree (passes per access)", value = k },
      { label = "distinct banks used by the warp", value = 32 // k },
      { label = "banks of threads 0-7", text = table.concat(banks, " ") },
    }
  end,
  examples = {
    { inputs = { stride = 32 }, outputs = { 32, 1, "0 0 0 0 0 0 0 0" } },
    { inputs = { stride = 33 }, outputs = { 1, 32, "0 1 2 3 4 5 6 7" } },
    { inputs = { stride = 2 }, outputs = { 2, 16 } },
  },
}

question {
  id = "gpu.bank-of",
  kind = "numeric",
  title = "Which bank? (your numbers)",
  prompt = [[
A thread reads the 4-byte word at byte offset {addr} of shared memory. With
32 banks of 4 bytes, which bank (0-31) serves it?
Give a whole number.]],
  topics = { "shared-memory", "bank-conflicts" },
  hints = {
    "Shared memory is 32 banks of 4-byte words, taken in turn word after word.",
    "Word index = byte offset / 4; bank = word index mod 32.",
  },
  params = function(rng)
    -- Not where the byte offset mod 32 (a common mistake) is the bank too.
    local addr
    repeat addr = 4 * rng:int(33, 4000) until addr % 32 ~= (addr // 4) % 32
    return { addr = addr }
  end,
  answer = function(p) return (p.addr // 4) % 32 end,
  -- A bank number: exact only. Bank 0 needs an explicit abs.
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return p.addr % 32 end,
      feedback = "Banks are 4 bytes wide: divide the byte offset by 4 before taking it mod 32." },
    { value = function(p) return p.addr // 4 end,
      feedback = "That is the word index. There are only 32 banks: take it mod 32." },
  },
  examples = {
    { answer = function(p) return tostring((p.addr // 4) % 32) end, score = 1 },
    { params = { addr = 200 }, answer = "18", score = 1 },
    { params = { addr = 200 }, answer = "8", score = 0 },
    { params = { addr = 200 }, answer = "50", score = 0 },
    { params = { addr = 200 }, answer = "19", score = 0 },     -- off by one
    { params = { addr = 256 }, answer = "0", score = 1 },
    { "bank 18", "invalid" },
  },
}

question {
  id = "gpu.bank-conflict",
  kind = "numeric",
  title = "How many ways? (your numbers)",
  prompt = [[
Thread t of a warp (t = 0..31) reads the shared-memory float buf[{s} * t].
What is the degree of the bank conflict (1 means conflict-free; k means the
access takes k passes)?
Give a whole number.]],
  topics = { "shared-memory", "bank-conflicts" },
  hints = {
    "Thread t hits bank ({s} x t) mod 32.",
    "The number of threads that share a bank is gcd({s}, 32).",
  },
  params = function(rng) return { s = rng:pick({ 1, 2, 3, 4, 6, 8, 12, 16, 17, 24, 32, 33 }) } end,
  answer = function(p) return gcd(p.s, 32) end,
  -- (For a power-of-two stride below 32 the degree IS the stride: there the
  -- mistake below gives the right number and does not apply.)
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = function(p) return math.min(32, p.s) ~= gcd(p.s, 32) and math.min(32, p.s) end,
      feedback = "The degree is not the stride: threads collide when (s x t) mod 32 repeats, which happens gcd(s, 32) times. Odd strides never collide." },
  },
  examples = {
    { answer = function(p) return tostring(gcd(p.s, 32)) end, score = 1 },
    { params = { s = 2 }, answer = "2", score = 1 },
    { params = { s = 2 }, answer = "1", score = 0 },     -- stride 2 does collide
    { params = { s = 3 }, answer = "1", score = 1 },
    { params = { s = 3 }, answer = "3", score = 0 },
    { params = { s = 12 }, answer = "4", score = 1 },
    { params = { s = 12 }, answer = "12", score = 0 },
    { params = { s = 32 }, answer = "32", score = 1 },
    { "none", "invalid" },
  },
}

question {
  id = "gpu.bank-column",
  kind = "numeric",
  title = "Reading a tile's column (your numbers)",
  prompt = [[
A block declares __shared__ float tile[32][{w}]. Thread t of a warp reads
tile[t][5], one element of a column. What is the degree of the bank conflict
(1 = conflict-free)?
Give a whole number.]],
  topics = { "shared-memory", "bank-conflicts", "padding" },
  rubric = { "theory.gpu", "practice.optimization" },
  hints = {
    "tile[t][5] is word t x {w} + 5: the stride between threads is {w} words.",
    "Degree = gcd({w}, 32).",
  },
  params = function(rng) return { w = rng:pick({ 32, 33, 34, 36, 40, 48, 65 }) } end,
  answer = function(p) return gcd(p.w, 32) end,
  tolerance = { abs = 0.01 },   -- a count
  wrong = {
    { value = function(p) return p.w == 32 and 1 or 32 end,
      feedback = "Think of the stride between threads: it is the row length. 32 words put every thread in the same bank; 33 spreads them over all 32." },
  },
  examples = {
    { answer = function(p) return tostring(gcd(p.w, 32)) end, score = 1 },
    { params = { w = 32 }, answer = "32", score = 1 },
    { params = { w = 32 }, answer = "1", score = 0 },
    { params = { w = 33 }, answer = "1", score = 1 },
    { params = { w = 34 }, answer = "2", score = 1 },
    { params = { w = 34 }, answer = "1", score = 0 },    -- padding by 2 leaves a 2-way conflict
    { params = { w = 64 }, answer = "32", score = 1 },
    { "32-way", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Occupancy

**Occupancy** is the number of warps resident on an SM divided by the most
it can hold. An A100 SM holds up to 64 warps (2048 threads) from up to 32
blocks. More resident warps give the scheduler more choice while others wait
for memory, which is how the GPU hides latency (page 1).

A block only becomes resident if the SM has room for *all* of it. Four
limits apply; the tightest one wins:

| per A100 SM     | limit                  | a block needs              |
|-----------------|------------------------|----------------------------|
| warps / threads | 64 warps, 2048 threads | threads per block          |
| blocks          | 32                     | 1                          |
| registers       | 65,536                 | registers/thread x threads |
| shared memory   | up to 164 KB           | its __shared__ arrays      |

## Worked example

256 threads per block (8 warps), 64 registers per thread, 48 KB of shared
memory per block:

- threads: 2048 / 256 = 8 blocks
- registers: 65,536 / (64 x 256) = 4 blocks
- shared memory: 164 / 48 = 3 blocks (rounded down)

The limit is 3 blocks = 24 warps: occupancy 24 / 64 = **37.5 %**. Halving
the shared memory per block would allow 4 blocks (50 %, then registers
limit); cutting registers to 32 per thread as well would allow 6 blocks.

(Real hardware allocates registers and shared memory in chunks and reserves
a little shared memory per block; the CUDA occupancy calculator and Nsight
Compute account for that. The numbers here ignore it.)

Profiling guides aim for **more than 50 %** occupancy, but occupancy is a
means, not the goal: a kernel with few warps can still saturate memory if
each thread keeps several independent loads in flight (instruction-level
parallelism), and forcing fewer registers can cause spills to slow local
memory. Measure.
]==]

calculator {
  id = "gpu.occupancy",
  title = "Occupancy (A100-like SM)",
  inputs = {
    { name = "t", label = "threads per block", default = 256, min = 32, max = 1024, integer = true },
    { name = "r", label = "registers per thread", default = 64, min = 0, max = 255, integer = true },
    { name = "s", label = "shared memory per block", default = 48, min = 0, max = 164, unit = "KB" },
  },
  compute = function(v)
    local limits = {
      { "warps (64 = 2048 threads per SM)", 64 // ((v.t + 31) // 32) },
      { "blocks (32 per SM)", 32 },
      { "registers (65,536 per SM)", v.r > 0 and 65536 // (v.r * v.t) or 32 },
      { "shared memory (164 KB per SM)", v.s > 0 and math.floor(164 / v.s) or 32 },
    }
    local best, why = math.huge, ""
    for _, l in ipairs(limits) do
      if l[2] < best then best, why = l[2], l[1] end
    end
    local warps = best * ((v.t + 31) // 32)
    return {
      { label = "resident blocks per SM", value = best },
      { label = "resident warps per SM", value = warps },
      { label = "occupancy", value = 100 * warps / 64, unit = "%" },
      { label = "limited by", text = best == 0 and "the block does not fit on an SM at all" or why },
    }
  end,
  examples = {
    { inputs = { t = 256, r = 64, s = 48 }, outputs = { 3, 24, 37.5, "shared memory (164 KB per SM)" } },
    { inputs = { t = 256, r = 64, s = 0 }, outputs = { 4, 32, 50, "registers (65,536 per SM)" } },
    { inputs = { t = 128, r = 32, s = 0 }, outputs = { 16, 64, 100, "warps (64 = 2048 threads per SM)" } },
    { inputs = { t = 100, r = 0, s = 0 }, outputs = { 16, 64, 100, "warps (64 = 2048 threads per SM)" } },
  },
}

question {
  id = "gpu.occupancy-regs",
  kind = "numeric",
  title = "Occupancy limited by registers (your numbers)",
  prompt = [[
An SM holds at most 64 warps (2048 threads), 32 blocks and 65,536 registers.
A kernel uses {r} registers per thread and blocks of {t} threads, and no
shared memory. What is its occupancy, in per cent? (Whole blocks only;
ignore allocation granularity.)
Give three significant figures.]],
  unit = "%",
  topics = { "occupancy" },
  rubric = { "theory.gpu", "practice.profiling" },
  hints = {
    "A block fits only when registers, threads per SM and blocks per SM all allow it: the tightest limit decides.",
    "A block needs {r} x {t} registers. How many whole blocks fit in 65,536?",
    "Also check 2048 / {t} and 32. Then warps = blocks x {t} / 32, out of 64.",
  },
  params = function(rng)
    return { r = rng:pick({ 32, 40, 48, 64, 72, 96, 128 }), t = rng:pick({ 128, 256, 512 }) }
  end,
  answer = function(p) return 100 * resident_warps(p.t, p.r, 0) / 64 end,
  wrong = {
    { value = function(p)   -- false when whole blocks fit exactly: no rounding to forget
        local v = 100 * math.min(2048, 65536 / p.r) / 2048
        return v ~= 100 * resident_warps(p.t, p.r, 0) / 64 and v
      end,
      feedback = "Only whole blocks become resident: round the number of blocks down before counting warps." },
    { value = function(p) return 100 * resident_warps(p.t, p.r, 0) / 32 end,
      feedback = "An SM holds 64 warps (2048 threads), not 32: divide by 64." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", 100 * resident_warps(p.t, p.r, 0) / 64) end, score = 1 },
    { params = { r = 64, t = 256 }, answer = "50", score = 1 },
    { params = { r = 64, t = 256 }, answer = "100", score = 0 },
    { params = { r = 40, t = 256 }, answer = "75", score = 1 },      -- 6 blocks of 10,240 registers
    { params = { r = 40, t = 256 }, answer = "80", score = 0 },      -- fractional blocks
    { params = { r = 32, t = 128 }, answer = "100", score = 1 },
    { params = { r = 96, t = 512 }, answer = "25", score = 1 },      -- 1 block of 49,152 registers
    { "half", "invalid" },
  },
}

question {
  id = "gpu.occupancy-smem",
  kind = "numeric",
  title = "Occupancy with shared memory (your numbers)",
  prompt = [[
An SM holds at most 64 warps (2048 threads), 32 blocks and 164 KB of shared
memory. A kernel uses blocks of {t} threads, each with {s} KB of shared
memory; registers are not a limit. What is its occupancy, in per cent?
(Whole blocks only.)
Give three significant figures.]],
  unit = "%",
  topics = { "occupancy", "shared-memory" },
  rubric = { "theory.gpu", "practice.profiling" },
  hints = {
    "A block fits only when shared memory, threads per SM and blocks per SM all allow it: the tightest limit decides.",
    "Blocks that fit: the smallest of 164 / {s}, 2048 / {t} and 32, each rounded down.",
    "Warps = blocks x {t} / 32, out of 64.",
  },
  params = function(rng)
    return { s = rng:pick({ 12, 16, 24, 32, 40, 48, 64 }), t = rng:pick({ 128, 256, 512 }) }
  end,
  answer = function(p) return 100 * resident_warps(p.t, 0, p.s) / 64 end,
  wrong = {
    { value = function(p)   -- false when whole blocks fit exactly: no rounding to forget
        local v = 100 * math.min(64, 164 / p.s * p.t / 32) / 64
        return v ~= 100 * resident_warps(p.t, 0, p.s) / 64 and v
      end,
      feedback = "Only whole blocks fit: round 164 / s down before counting warps." },
    { value = function(p) return 100 * (164 // p.s) / 32 end,
      feedback = "That is blocks over the 32-block limit. Occupancy counts warps: blocks x threads per block / 32, out of 64." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4g", 100 * resident_warps(p.t, 0, p.s) / 64) end, score = 1 },
    { params = { s = 48, t = 256 }, answer = "37.5", score = 1 },
    { params = { s = 48, t = 256 }, answer = "42.7", score = 0 },    -- 3.4 blocks
    { params = { s = 16, t = 256 }, answer = "100", score = 1 },     -- threads limit: 8 blocks
    { params = { s = 32, t = 128 }, answer = "31.25", score = 1 },
    { "37.5 KB", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# Tensor cores and mixed precision

**Tensor cores** are units inside each SM that do small matrix
multiply-accumulates (D = A x B + C on tiles) in one instruction, many times
faster than the ordinary cores. Frameworks use them automatically for
matrix products and convolutions in reduced precision.

| GPU (year)  | new in its tensor cores              | dense FP16 peak |
|-------------|--------------------------------------|-----------------|
| V100 (2017) | first generation: FP16 in, FP32      | 125 TFLOP/s     |
|             | accumulate, 4x4x4 per core per cycle |                 |
| A100 (2020) | TF32, BF16, INT8; 2:4 structured     | 312 TFLOP/s     |
|             | sparsity (doubles the peak)          | (2.5x)          |
| H100 (2022) | FP8, Transformer Engine              | ~989 TFLOP/s    |
|             |                                      | (3.2x)          |

Read spec sheets with care: "1979 TFLOPS" for an H100 is its FP16 peak *with
2:4 sparsity* (or dense FP8), twice the dense FP16 figure. Compare like with
like. Tensor cores run best when matrix dimensions are multiples of 8 (for
FP16), which is why layer sizes like 4096 or 1024 are common.

## Number formats

| format | bits s/e/m | epsilon        | largest | smallest normal |
|--------|------------|----------------|---------|-----------------|
| FP32   | 1 / 8 / 23 | 2^-23 = 1.2e-7 | 3.4e38  | 1.2e-38         |
| TF32   | 1 / 8 / 10 | 2^-10 = 9.8e-4 | 3.4e38  | 1.2e-38         |
| BF16   | 1 / 8 / 7  | 2^-7 = 7.8e-3  | 3.4e38  | 1.2e-38         |
| FP16   | 1 / 5 / 10 | 2^-10 = 9.8e-4 | 65,504  | 2^-14 = 6.1e-5  |

(bits s/e/m: sign, exponent and mantissa bits.)

(Epsilon is the gap between 1 and the next larger number. FP16 goes down
to 6e-8 with reduced precision, "subnormal" numbers; below that a value
becomes 0. One course text gives FP16's epsilon as 6e-4: it is
2^-10 = 9.77e-4, or 4.9e-4 if you mean the unit roundoff, half of it.)

## Mixed-precision training

- Keep a **master copy of the weights in FP32**; cast to FP16/BF16 for the
  forward and backward passes, where tensor cores do the work.
- Accumulate matrix products in FP32 (the tensor cores do).
- **Loss scaling** (FP16): small gradients would underflow to zero, so
  multiply the loss by a factor S (say 2^16) before backward, which scales
  every gradient by S, and divide the gradients by S before the FP32 weight
  update. *Dynamic* scaling lowers S and skips the step when an overflow
  (inf/NaN) appears, and raises S again after a run of clean steps.
- BF16 has FP32's exponent range, so it rarely needs loss scaling; it pays
  with fewer mantissa bits.

It works because networks tolerate small rounding errors (SGD is noisy
anyway) while the update, which adds a tiny change to a large weight, is done
in FP32. It halves the memory of activations and the bytes every memory-bound
kernel moves. It does *not* halve the memory of the whole training state: the
FP32 master weights and optimizer states stay (lesson 7 counts the bytes).
]==]

question {
  id = "gpu.tc-a100",
  kind = "numeric",
  title = "V100 to A100",
  prompt = [[
Dense FP16 tensor-core peaks: V100 125 TFLOP/s, A100 312 TFLOP/s. By what
factor did the peak grow?
Give three significant figures.]],
  unit = "x",
  topics = { "tensor-cores" },
  hints = {
    "Compare the tensor-core peak with the peak of the ordinary FP32 cores.",
    "312 / 125",
  },
  answer = 312 / 125,   -- 2.496, "2.5x"
  wrong = {
    { value = 125 / 312, feedback = "Upside down: the new peak divided by the old one." },
    { value = 187, feedback = "That is the difference in TFLOP/s. The question asks for the factor." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "2.5", 1 },
    { "2.496", 1 },
    { "312/125", 1 },
    { "0.4", 0 },
    { "2.6", 0 },
    { "2.5 TFLOP/s", "invalid" },
  },
}

question {
  id = "gpu.tc-h100",
  kind = "numeric",
  title = "A100 to H100",
  prompt = [[
Dense FP16 tensor-core peaks: A100 312 TFLOP/s, H100 989 TFLOP/s. By what
factor did the peak grow?
Give three significant figures.]],
  unit = "x",
  topics = { "tensor-cores" },
  hints = {
    "Compare the H100's dense FP16 tensor-core peak with the A100's.",
    "989 / 312",
  },
  answer = 989 / 312,   -- 3.17; the guide rounds it to "3x"
  -- The guide's "3x" is a rounded figure: 5% low. It gets half credit and
  -- says so, rather than full marks for an answer that asked for three
  -- significant figures.
  bands = {
    { abs = 0.2, score = 0.5, feedback = "Close: 3x is how the course rounds it; the question asks for the ratio itself, to two decimals." },
  },
  wrong = {
    { value = 1979 / 312, feedback = "1979 TFLOP/s is the H100's FP16 peak WITH 2:4 sparsity. Dense FP16 is 989." },
    { value = 312 / 989, feedback = "Upside down: the new peak divided by the old one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "3.17", 1 },
    { "989/312", 1 },
    { "3", 0.5 },
    { "6.34", 0 },
    { "0.32", 0 },
    { "3.17 s", "invalid" },
  },
}

question {
  id = "gpu.fp16-eps",
  kind = "numeric",
  title = "FP16's epsilon",
  prompt = [[
FP16 has 10 explicit mantissa bits. What is the gap between 1 and the next
larger FP16 number (the machine epsilon)? Give it as a decimal number,
to three significant figures.]],
  topics = { "mixed-precision", "number-formats" },
  hints = { "With 10 mantissa bits, the last bit of a number in [1, 2) is worth 2^-10." },
  answer = 2 ^ -10,   -- 9.765625e-4
  wrong = {
    { value = 6e-4, feedback = "6 x 10^-4 appears in some course text but is not FP16's epsilon: 2^-10 = 9.77 x 10^-4." },
    { value = 2 ^ -11, feedback = "2^-11 is the unit roundoff (the largest relative rounding error), half the gap. The gap is 2^-10." },
    { value = 2 ^ -23, feedback = "That is FP32's epsilon (23 mantissa bits)." },
    { value = 2 ^ -7, feedback = "That is BF16's epsilon (7 mantissa bits)." },
    { value = 2 ^ -14, feedback = "2^-14 is FP16's smallest normal number, not the gap above 1." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "0.000977", 1 },
    { "2^-10", 1 },
    { "9.77e-4", 1 },
    { "1/1024", 1 },
    { "6e-4", 0 },
    { "4.88e-4", 0 },
    { "0.001", 0 },     -- 2.4% off
    { "2^-10 s", "invalid" },
  },
}

question {
  id = "gpu.loss-scale",
  kind = "numeric",
  title = "Choosing a loss scale (your numbers)",
  prompt = [[
A gradient of size {g} would be stored in FP16, whose smallest normal
number is 2^-14 (about 6.1e-5). What is the smallest power-of-two loss scale
S that lifts the gradient to at least 2^-14?
Give three significant figures.]],
  topics = { "mixed-precision", "loss-scaling" },
  rubric = { "theory.gpu", "practice.optimization" },
  hints = {
    "Small FP16 gradients underflow to zero: scale the loss so the smallest gradient becomes representable.",
    "You need S >= 2^-14 / {g}.",
    "Take log2 of that and round up to a whole power.",
  },
  -- (Each g leaves the exact ratio more than 1% below its power of two, so
  -- the exact ratio, a common mistake, is never graded right.)
  params = function(rng) return { g = rng:pick({ 2.5e-8, 1e-8, 2e-7, 5e-7, 1e-6, 4e-6 }) } end,
  answer = function(p) return 2 ^ math.ceil(math.log(2 ^ -14 / p.g, 2)) end,
  wrong = {
    { value = function(p) return 2 ^ math.floor(math.log(2 ^ -14 / p.g, 2)) end,
      feedback = "Rounded down: S x g is then still below 2^-14. Round the power up." },
    { value = function(p) return 2 ^ -14 / p.g end,
      feedback = "That is the exact ratio; the question asks for the smallest POWER OF TWO at least that large." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.0f", 2 ^ math.ceil(math.log(2 ^ -14 / p.g, 2))) end, score = 1 },
    { params = { g = 1e-8 }, answer = "8192", score = 1 },
    { params = { g = 1e-8 }, answer = "2^13", score = 1 },
    { params = { g = 1e-8 }, answer = "4096", score = 0 },
    { params = { g = 1e-8 }, answer = "6103.5", score = 0 },
    { params = { g = 1e-6 }, answer = "64", score = 1 },
    { "2^13 ms", "invalid" },
  },
}

question {
  id = "gpu.tc-time",
  kind = "numeric",
  title = "A matmul at peak speed (your numbers)",
  prompt = [[
Two {n} x {n} matrices are multiplied in {prec} on an A100, which peaks at
{peak} TFLOP/s in that precision. If the multiply ran at the peak, how long
would it take, in ms?
Give three significant figures.]],
  unit = "ms",
  topics = { "tensor-cores", "mixed-precision" },
  rubric = { "theory.gpu", "advanced.cost" },
  hints = {
    "At this size a matrix multiply is compute bound: count its operations, then use the peak.",
    "Operations: 2 x {n}^3. Time = operations / peak.",
  },
  params = function(rng)
    local t = rng:pick({ { "FP32 (no tensor cores)", 19.5 }, { "TF32", 156 }, { "FP16", 312 } })
    return { n = rng:pick({ 1024, 4096, 8192, 16384 }), prec = t[1], peak = t[2] }
  end,
  answer = function(p) return 2 * p.n ^ 3 / (p.peak * 1e12) * 1000 end,
  wrong = {
    { value = function(p) return p.n ^ 3 / (p.peak * 1e12) * 1000 end,
      feedback = "A multiply-add counts as 2 operations: 2 x N^3." },
    { value = function(p) return 2 * p.n ^ 3 / (p.peak * 1e12) end,
      feedback = "That number is in seconds; the question asks ms." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 2 * p.n ^ 3 / (p.peak * 1e12) * 1000) end, score = 1 },
    { answer = function(p) return string.format("%.5g", 1.1 * 2 * p.n ^ 3 / (p.peak * 1e12) * 1000) end, score = 0 },
    { params = { n = 8192, prec = "FP16", peak = 312 }, answer = "3.524", score = 1 },
    { params = { n = 8192, prec = "FP16", peak = 312 }, answer = "1.762", score = 0 },
    { params = { n = 8192, prec = "FP32 (no tensor cores)", peak = 19.5 }, answer = "56.4", score = 1 },
    { "3.5 TFLOP", "invalid" },
    { params = { n = 1024, prec = "FP16", peak = 312 }, answer = "0.006883", score = 1 },   -- the guide's 1024^3
  },
}

question {
  id = "gpu.mixed-precision",
  kind = "multi",
  title = "Mixed precision: true or false",
  prompt = [[
Which of these statements about mixed-precision training are true? Pick all
that apply.]],
  points = 2,
  topics = { "mixed-precision", "tensor-cores" },
  rubric = { "theory.gpu", "practice.optimization" },
  hints = { "Four of the six are true." },
  choices = {
    "A master copy of the weights is kept in FP32 for the update.",
    "Loss scaling keeps small FP16 gradients from underflowing to zero.",
    "BF16 has the same exponent range as FP32, so it rarely needs loss scaling.",
    "Mixed precision halves the memory of the whole training state, optimizer included.",
    "Tensor cores run best when matrix dimensions are multiples of 8 (FP16).",
    "Dynamic loss scaling raises the scale when a gradient overflows.",
  },
  answer = { 1, 2, 3, 5 },
  why = {
    [4] = "Activations and working copies shrink, but the FP32 master weights and optimizer states remain.",
    [6] = "The other way round: an overflow (inf/NaN) lowers the scale and skips the step; clean steps raise it.",
  },
  examples = {
    { "a b c e", 1 },
    { "a b c", 0.75 },
    { "a b c d e f", 0.5 },
    { "d f", 0 },
    { "a b c e x", "invalid" },
  },
}

------------------------------------------------------------------------------
page [==[
# cuDNN and its choice of algorithm

cuDNN is NVIDIA's library of deep-learning primitives: convolutions,
RNNs, attention, normalisation, activations, pooling. Frameworks hand it
most of a CNN's time. For one convolution it offers several
**algorithms**, all correct, with very different speed and memory:

| algorithm             | how                        | suits               |
|-----------------------|----------------------------|---------------------|
| IMPLICIT_GEMM         | matrix tiles built on the  | any size; no        |
|                       | fly from the input         | workspace           |
| IMPLICIT_PRECOMP_GEMM | the same, indices computed | many sizes; a small |
|                       | in advance                 | workspace           |
| GEMM                  | im2col copy, then a matmul | simple; big copy    |
| FFT                   | product of the spectra     | large filters       |
| WINOGRAD              | fewer multiplications      | 3 × 3 filters       |

Which one is fastest depends on the batch, channels, image and filter
sizes, stride, data type, layout and GPU, and no simple rule predicts it.
So cuDNN can **measure**. With `torch.backends.cudnn.benchmark = True`,
the first time PyTorch meets a convolution with a new input shape it
times every applicable algorithm, keeps the fastest and caches that
choice for the shape; every later call with that shape reuses it.

When it pays:

- **static shapes** (fixed image size and batch): the trials cost once,
  the gain comes back every step;
- **changing shapes** (variable image sizes or sequence lengths, a
  smaller last batch) start new trials for every new shape, and can make
  training slower than without benchmark mode: pad or bucket the shapes,
  or leave it off;
- the fastest algorithm may need a large **workspace** of GPU memory,
  and may not be deterministic: `torch.backends.cudnn.deterministic =
  True` keeps to reproducible algorithms, sometimes slower;
- the first steps include the trials: **warm up** before timing.

Break-even: trials costing T per shape, and a saving of Δ per step with
the chosen algorithm, pay back after T / Δ steps with that shape.
]==]

question {
  id = "gpu.cudnn-breakeven",
  kind = "numeric",
  title = "When benchmark mode pays back (your numbers)",
  prompt = [[
With torch.backends.cudnn.benchmark = True, trying the algorithms for a
new input shape takes {tb} ms once. The algorithm it picks then saves
{dt} ms per training step against the default choice. After how many
steps with that shape have the savings repaid the trials?
Give three significant figures.]],
  topics = { "cudnn", "profiling" },
  rubric = { "practice.optimization", "practice.profiling" },
  hints = {
    "The trial is paid once; the saving comes back every step.",
    "Steps = {tb} / {dt}.",
  },
  params = function(rng)
    return { tb = rng:pick({ 150, 300, 800, 1200, 2500 }), dt = rng:pick({ 0.4, 1.5, 3, 7, 12 }) }
  end,
  answer = function(p) return p.tb / p.dt end,
  wrong = {
    { value = function(p) return p.dt / p.tb end, feedback = "Upside down: the trial's cost divided by the saving per step." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { tb = 300, dt = 1.5 }, answer = "200", score = 1 },
    { params = { tb = 300, dt = 1.5 }, answer = "0.005", score = 0 },
    { "soon", "invalid" },
  },
}

question {
  id = "gpu.cudnn-shapes",
  kind = "numeric",
  title = "Benchmark mode with changing shapes (your numbers)",
  prompt = [[
A training run of {steps} steps meets {n} different input shapes (its
sequence lengths are bucketed). For each new shape, cudnn.benchmark spends
{tb} ms on trials once; afterwards the chosen algorithms save {dt} ms per
step. How many seconds does benchmark mode save over the whole run
(negative if it costs time)?
Give three significant figures.]],
  unit = "s",
  topics = { "cudnn", "profiling" },
  rubric = { "practice.optimization", "advanced.cost" },
  hints = {
    "Savings: every step. Costs: one trial per distinct shape.",
    "{steps} × {dt} ms − {n} × {tb} ms, in seconds.",
  },
  params = function(rng)
    local p
    repeat
      p = { steps = rng:pick({ 2000, 10000, 50000 }), n = rng:pick({ 4, 16, 64, 500, 5000 }),
            tb = rng:pick({ 200, 500, 1000 }), dt = rng:pick({ 0.5, 2, 5 }) }
      -- the net must not vanish, and forgetting the trials (or all but
      -- one) must show
      local net = math.abs(p.steps * p.dt - p.n * p.tb)
    until net > 0.05 * p.steps * p.dt and (p.n - 1) * p.tb > 0.03 * net
    return p
  end,
  answer = function(p) return (p.steps * p.dt - p.n * p.tb) / 1000 end,
  wrong = {
    { value = function(p) return p.steps * p.dt / 1000 end,
      feedback = "That leaves out the trials: each new shape costs its benchmark once." },
    { value = function(p) return (p.steps * p.dt - p.tb) / 1000 end,
      feedback = "One trial per DISTINCT shape: {n} of them, not one." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { steps = 10000, n = 16, tb = 500, dt = 2 }, answer = "12", score = 1 },
    { params = { steps = 10000, n = 5000, tb = 500, dt = 2 }, answer = "-2480", score = 1 },
    { params = { steps = 10000, n = 16, tb = 500, dt = 2 }, answer = "20", score = 0 },
    { "a bit", "invalid" },
  },
}

question {
  id = "gpu.cudnn-when",
  kind = "choice",
  title = "When to turn on cudnn.benchmark",
  prompt = "For which of these jobs is torch.backends.cudnn.benchmark = True most likely to help?",
  topics = { "cudnn" },
  rubric = { "practice.optimization", "practice.deployment" },
  hints = { "Benchmark mode times the algorithms once per distinct input shape." },
  choices = {
    "A ResNet trained for days on 224 × 224 crops with a fixed batch size.",
    "A detector trained on images of their original, varying sizes.",
    "A run that must give bit-identical results every time.",
    "A one-off inference of a single image at a size never seen again.",
  },
  answer = 1,
  why = {
    [2] = "Every new image size starts new trials: with sizes that keep changing, benchmark mode can cost more than it saves.",
    [3] = "The fastest algorithm may be non-deterministic; reproducibility calls for cudnn.deterministic = True instead.",
    [4] = "The trials would cost more than the one call they speed up.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "k", "invalid" } },
}

------------------------------------------------------------------------------
page [==[
# Finding out what limits a kernel

Guessing is slow; the profilers answer directly.

- **Nsight Systems** (`nsys profile`) draws the timeline of a whole run: CPU
  threads, kernel launches, memory copies, gaps where the GPU idles.
- **Nsight Compute** (`ncu`) dissects one kernel: achieved memory bandwidth
  and FLOP/s against the peaks (a roofline chart), occupancy, warp stall
  reasons, sectors per request (coalescing), shared-memory bank conflicts.
- The **PyTorch profiler** ties kernels back to the Python code.

Rules of thumb from the course's checklists:

| metric                   | target    | if not met                      |
|--------------------------|-----------|---------------------------------|
| SM occupancy             | > 50 %    | not enough parallel work        |
| bandwidth (memory bound) | > 70-80 % | uncoalesced or scattered access |
| tensor-core use          | > 50 %    | ops not in FP16/BF16/TF32       |
| kernel launch latency    | < 10 us   | many tiny kernels               |

(A cheatsheet in the course lists "memory bound" as the problem when the
bandwidth use is LOW. It is the other way round: a kernel that runs near the
peak bandwidth is memory bound, and the cure is to move fewer bytes; a
memory-bound kernel far below the peak wastes bandwidth on badly coalesced
access or has too little in flight to hide latency.)

**Launch overhead.** Every kernel launch costs the CPU a few microseconds.
A step made of hundreds of tiny kernels can spend more time launching than
computing. Fusing kernels removes launches (and memory traffic, lesson 3);
**CUDA graphs** record a whole sequence once and replay it with one launch.

A checklist for a slow kernel, in order: is it memory or compute bound
(roofline)? If memory bound: are the loads coalesced and aligned, is data
reused through shared memory (tiling), are there bank conflicts? Is
occupancy too low to hide latency? Do warps diverge? Could it use tensor
cores (FP16/BF16)?
]==]

question {
  id = "gpu.launch-overhead",
  kind = "numeric",
  title = "Launch overhead (your numbers)",
  prompt = [[
A training step launches {k} small kernels one after another. Each launch
costs {l} us that the GPU spends idle, and each kernel then computes for
{w} us. What share of the step is launch overhead, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "profiling", "launch-overhead" },
  rubric = { "theory.gpu", "practice.profiling" },
  hints = {
    "Every kernel pays a fixed launch cost before it does any work.",
    "Step time = {k} x ({l} + {w}) us; overhead = {k} x {l} us.",
  },
  params = function(rng)
    return { k = rng:pick({ 200, 400, 800, 1200 }), l = rng:pick({ 4, 5, 8, 10 }), w = rng:pick({ 3, 6, 12, 20, 40 }) }
  end,
  answer = function(p) return 100 * p.l / (p.l + p.w) end,
  wrong = {
    { value = function(p) return 100 * p.l / p.w end,
      feedback = "Divide by the whole step (launch + compute), not by the compute alone." },
    { value = function(p) return 100 * p.w / (p.l + p.w) end,
      feedback = "That is the compute share; the question asks for the launch overhead." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 100 * p.l / (p.l + p.w)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 100 * p.l / (p.l + p.w) + 5) end, score = 0 },
    { params = { k = 400, l = 5, w = 20 }, answer = "20", score = 1 },
    { params = { k = 400, l = 5, w = 20 }, answer = "25", score = 0 },
    { params = { k = 400, l = 5, w = 20 }, answer = "80", score = 0 },
    { params = { k = 400, l = 5, w = 20 }, answer = "21", score = 0 },   -- 5% off
    { "20 us", "invalid" },
  },
}

question {
  id = "gpu.transpose-design",
  kind = "design",
  title = "A slow transpose",
  prompt = [[
Your CUDA kernel transposes a 8192 x 8192 float matrix: thread (x, y) reads
in[y][x] and writes out[x][y]. It reaches 15% of the bandwidth of a plain
device-to-device copy. In a short paragraph: why, how would you confirm it,
and how would you fix it?]],
  points = 4,
  topics = { "coalescing", "shared-memory", "bank-conflicts" },
  rubric = { "theory.gpu", "practice.optimization", "practice.profiling" },
  hints = {
    "Which of the two accesses has consecutive threads at consecutive addresses?",
    "Where could the data change direction without touching global memory?",
  },
  concepts = {
    -- The claim is about the WRITES: "the writes are coalesced" says the
    -- opposite (an antonym), and so does blaming the reads.
    { name = "uncoalesced writes", points = 2,
      antonyms = { { "write*", "read*" }, { "store*", "load*" }, { "strided", "coalesced" },
                   { "uncoalesced", "coalesced" }, { "scattered", "coalesced" } },
      claims = {
        { subject = { "write*", "store*", "output access*", "out x y" },
          relation = { "strided", "uncoalesced", "scattered", "non-coalesced", "non-contiguous" } },
        { subject = { "write*", "store*", "output access*", "out x y" },
          relation = { "stride*", "jump*", "spread*", "hit*", "touch*", "go", "goes", "fall*", "land*",
                       "need*", "waste*", "split*", "are", "is", "cover*", "access*" },
          object = { "strided", "uncoalesced", "scattered", "column*", "apart", "sector*", "32 kb",
                     "own sector", "separate", "stride*", "non-contiguous", "not contiguous" } },
        { subject = { "warp*", "thread*", "kernel", "each thread", "consecutive threads" },
          relation = { "write*", "store*" },
          object = { "column*", "apart", "stride*", "strided", "uncoalesced", "scattered",
                     "non-contiguous", "32 kb", "own sector", "separate sector*" } },
      },
      feedback = "Name the cause: the writes out[x][y] are strided (a column per warp), so they are not coalesced." },
    { name = "shared-memory tile", points = 2,
      claims = {
        { relation = { "stage*", "load*", "stor*", "use*", "tile*", "read*", "put*", "copy*", "buffer*",
                       "cache*", "go", "goes", "transpos*", "do", "does", "keep*", "bring*", "move*" },
          object = { "shared memory", "shared-memory", "tile", "tiles", "tiled", "smem", "__shared__",
                     "shared tile", "shared array", "shared" } },
        { subject = { "fix", "solution", "remedy", "answer", "cure", "way" },
          relation = { "is", "are", "was", "be", "becomes" },
          object = { "shared memory", "tile", "tiled", "tiling", "shared tile" } },
      },
      feedback = "Stage a tile (e.g. 32 x 32) in shared memory: read rows coalesced, write rows coalesced." },
    { name = "bank conflicts and padding", points = 2,
      claims = {
        { relation = { "pad*", "add*", "use*", "make*", "declar*", "allocat*", "widen*" },
          object = { "33", "32 x 33", "32x33", "extra column", "one column", "padding", "pad",
                     "bank*", "conflict*" } },
        { subject = { "read*", "access*", "column read*", "tile", "it", "this", "load*", "reading" },
          relation = { "cause*", "hit*", "creat*", "lead*", "give*", "produc*", "suffer*", "has",
                       "have", "trigger*", "result*", "mean*", "would", "collide*", "map*", "land*",
                       "serializ*", "serialis*", "fall*", "go", "goes" },
          object = { "bank conflict*", "conflict*", "same bank", "one bank", "banks", "serializ*",
                     "serialis*", "32-way", "32 way" } },
        { subject = { "padding", "pad", "33", "extra column" },
          relation = { "remove*", "avoid*", "prevent*", "fix*", "eliminat*", "break*", "spread*",
                       "shift*", "stagger*", "solve*", "kill*", "get*" },
          object = { "conflict*", "bank*" } },
      },
      feedback = "Reading the tile by column causes 32-way bank conflicts: pad it to [32][33]." },
    { name = "profile", points = 1,
      claims = {
        { relation = { "profil*", "confirm*", "check*", "measur*", "verify*", "look*", "see*", "run*",
                       "use*", "inspect*", "show*", "count*", "report*" },
          object = { "nsight", "ncu", "profiler", "sectors per request", "sector*", "transactions",
                     "nsight compute", "counters", "metrics" } },
        { subject = { "profiler", "nsight", "ncu", "nsight compute", "it", "counters" },
          relation = { "show*", "confirm*", "report*", "reveal*", "count*", "list*", "give*", "tell*",
                       "display*", "measur*" },
          object = { "sector*", "transaction*", "request*", "store*", "write*", "efficiency",
                     "bank conflict*", "it" } },
      },
      feedback = "Confirm with Nsight Compute: sectors per request on the stores, and shared-memory bank conflicts after the fix." },
    { name = "compare with the copy ceiling", points = 1,
      claims = {
        { relation = { "compar*", "measur*", "reach*", "approach*", "get*", "aim*", "target*", "match*",
                       "close*", "bound*", "check*", "benchmark*" },
          object = { "copy", "bandwidth", "ceiling", "memory bound", "peak", "device-to-device",
                     "cudamemcpy" } },
        { subject = { "copy", "bandwidth", "ceiling", "copy bandwidth", "it", "transpose", "kernel",
                      "target", "limit" },
          relation = { "is", "are", "be", "sets", "set", "give*", "bound*", "limit*", "cap*", "mov*",
                       "reach*", "approach*", "get*" },
          object = { "ceiling", "target", "bound", "limit", "copy", "bandwidth", "same bytes",
                     "memory bound", "memory-bound", "peak" } },
      },
      feedback = "Measure against the copy bandwidth: a transpose moves the same bytes, so a good one gets close to it." },
  },
  model = [[
The reads in[y][x] are coalesced, but the writes out[x][y] are strided: the
32 threads of a warp write one column, 32 KB apart, so every thread needs its
own 32-byte sector and the stores are not coalesced. I would confirm it with
Nsight Compute (sectors per request of the stores, about 32 instead of 4).
The fix is a shared-memory tile: each block reads a 32 x 32 tile with
coalesced row reads into __shared__ memory, synchronises, and writes the
transposed tile back as coalesced rows. Reading the tile by column would
cause 32-way bank conflicts, so pad it to tile[32][33]. A memory-bound kernel
like this should then get close to the device-to-device copy bandwidth, the
ceiling to measure it against.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
Each warp reads a row of in, which is coalesced, but it writes a column of
out: consecutive threads store 32 KB apart, so the writes are strided and
every thread needs its own 32-byte sector. I would confirm this with Nsight
Compute, where the stores show about 32 sectors per request instead of 4.
To fix it, each block loads a 32 x 32 tile into shared memory with
coalesced reads and writes it back transposed as coalesced rows. Reading
the tile by column then causes bank conflicts, so I would pad the tile to
33 columns. A good transpose should then get close to the bandwidth of a
device-to-device copy, which is the ceiling to compare against.]] },
    { role = "good", score = 1, tol = 0, answer = [[
The loads are fine, but the stores are strided: a warp writes one column of
the output, so they are uncoalesced. The profiler (ncu) shows it as many
sectors per request on the stores. The classic fix is a tiled transpose in
__shared__ memory, padded to [32][33] so that the column reads do not hit
the same bank. Since a transpose only moves bytes, the copy bandwidth is the
target it should approach.]] },
    { role = "partial", score = 0.5, tol = 0.2, answer = [[
The writes are strided, so they are not coalesced. I would use a shared
memory tile to turn them into row writes.]] },
    { role = "partial", score = 0.3, tol = 0.2, answer = [[
I would profile it with Nsight Compute first, and then pad the shared array
so that bank conflicts disappear.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
coalescing, strided writes, shared memory, tile, bank conflicts, padding,
33, Nsight, sectors per request, copy bandwidth, ceiling]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Both the reads and the writes are coalesced, so memory access is not the
problem. The kernel is compute bound because a transpose does a lot of
arithmetic. Shared memory would not help, and bank conflicts cannot happen
in a transpose, so there is no reason to pad anything. Profiling is
unnecessary; I would just launch more threads per block.]] },
  },
  examples = {
    { answer = [[
The writes are strided, not coalesced. Profile with Nsight Compute, then use
a 32x32 shared memory tile padded to 33 columns against bank conflicts, and
compare with the copy bandwidth.]], score = 1 },
    { "The writes are not coalesced; use a shared memory tile.", 0.5 },
    { "Use a faster GPU.", 0 },
    { "", "invalid" },
  },
}
