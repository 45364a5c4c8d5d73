-- Lesson 9: the assessment.
--
-- The course's own assessment (day5-summary-and-assessment.md): its beginner,
-- intermediate and advanced questions and its system-design challenge, as
-- graded questions. Numerical parts are numeric questions (per-student
-- variants, with the document's numbers as fixed-number examples); the parts
-- that ask for a design or an explanation are `design` questions graded by
-- rubric concepts, with feedback for each concept missed. The text is ours.
--
-- Where the document is wrong or leaves a number out, the question says what
-- it assumes and the page or the feedback says why:
--   * "theoretical speedup of a 90% parallel matrix multiply" has no p: only
--     the ceiling 1/f = 10x is defined without one.
--   * "1 vs 32 memory transactions per warp": today's GPUs move 32-byte
--     sectors; a coalesced float load is 4 sectors of one 128-byte line.
--   * The all-reduce question does not say how big M is: we state FP16
--     gradients (2 bytes per parameter), so 175 B parameters are 350 GB.
--     The tree formula 2 log2(p) M/B is a tree that forwards the whole
--     message at every level; pipelined trees (NCCL) do far better.
--   * Gradient checkpointing does not cost O(L sqrt L) compute: it re-runs
--     the forward pass once, about a third more work per step.
--   * "Mixed precision: 2x memory reduction" holds for activations, not for
--     Adam's model states (16 bytes per parameter either way).
--   * The GPU table's H100 FP16 figure (1979 TFLOPS) assumes 2:4 sparsity;
--     the A100 and V100 figures are dense.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not; questions whose answer is a count use abs = 0.01 (whole numbers).
-- Every question names the rubric items it evidences (scheme in pack.lua).

lesson {
  id = "assessment",
  title = "The assessment",
  topics = { "assessment" },
  rubric = { "theory.parallel" },
  -- An exam: one try per question, no feedback, hints or solutions until
  -- the student submits the whole lesson. No time limit: the course is for
  -- self-learners too (an instructor's copy may add exam = { minutes = 90 }).
  exam = true,
}

-- Model-state memory per GPU, in GB, of a pb-billion-parameter model under
-- mixed-precision Adam (16 bytes per parameter) with ZeRO stage 1, 2 or 3
-- on n GPUs.
local function zero_states(pb, n, stage)
  if stage == 1 then return 4 * pb + 12 * pb / n end
  if stage == 2 then return 2 * pb + 14 * pb / n end
  return 16 * pb / n
end

------------------------------------------------------------------------------
page [[
# The assessment

This lesson is the course's final assessment, in four parts that follow the
course's own:

| part          | what it asks                               | questions |
|---------------|--------------------------------------------|-----------|
| beginner      | CPU vs GPU, Amdahl, memory coalescing      | 6         |
| intermediate  | all-reduce, checkpointing, training memory | 7         |
| advanced      | GPU cluster scheduling, LLM serving        | 7         |
| system design | infrastructure for 100 researchers, $2M    | 3         |

This lesson is an **exam**: each question takes one answer, and nothing
about your answers (scores, feedback, hints, solutions) is shown until you
submit the whole lesson with `warpbench exam submit assessment` (in the
terminal UI: `S` in the lesson). Then you see your score, each rubric item
it evidences, and your level; each question's feedback is in its history.

Numbers are graded as numbers: an expression such as `2*(1023/1024)*350/100`
is a fine answer, and units are converted (`7 s`, `7000 ms`). Explanations
and designs are graded by the **concepts** they cover: the feedback names
each missing concept with what to add.

## The rubric and your level

Every question here, and in the lessons before, is evidence for one or more
items of the course's 100-point rubric:

| area        | items                                       | points |
|-------------|---------------------------------------------|--------|
| theoretical | GPU architecture; distributed training;     | 4 × 10 |
|             | memory; scheduling and autoscaling          |        |
| practical   | profiling; optimization; system design;     | 4 × 10 |
|             | deployment                                  |        |
| advanced    | novel strategies; cross-system integration; | 4 × 5  |
|             | cost trade-offs; future technology          |        |

(Theoretical understanding, practical skills and advanced applications.)

Your **graded** score for an item is its maximum times the share of points
you have earned on the questions tagged with it. Levels: 90 and up *expert*,
80–89 *advanced*, 70–79 *intermediate*, 60–69 *beginner+*, below 60: review
the material before going on.

Before you start, rate yourself: `warpbench selfassess` asks one line per
item. Afterwards `warpbench progress` puts your self-rating beside your
graded score. The difference is your **calibration gap**: knowing what you
do not know is a skill of its own, and an engineer who is sure and wrong is
the expensive kind.
]]

------------------------------------------------------------------------------
page [[
# Beginner 1: CPUs, GPUs, and a matrix multiply

A CPU core is built to finish *one* thread's work as soon as possible: deep
out-of-order pipelines, branch prediction and megabytes of cache per core,
all there to cut the **latency** of a single instruction stream. A GPU spends
the same silicon on **throughput**: thousands of simple lanes grouped into
streaming multiprocessors, little cache per lane, and a very wide memory
system (HBM at 2 to 3.35 TB/s on an A100 or H100, against a few hundred GB/s
for a server CPU socket).

The GPU runs threads in groups of 32, a **warp**, that issue one instruction
together: **SIMT**, single instruction, multiple threads. Threads of a warp
that take different branches run one branch after the other (divergence).
A GPU hides the latency of a memory access not with caches but by switching
to another warp that is ready, so it needs many warps in flight.

Neural networks fit this design: their work is mostly matrix multiplications
and element-wise operations, the same instruction over millions of
independent values, with little branching. Tensor cores go further and
multiply small matrix tiles in one instruction.

## Amdahl on a matrix multiply

The course asks for "the theoretical speedup of a matrix multiplication with
90% parallelizable operations". As stated it has no answer: a speedup needs a
processor count p. With f = 0.1 serial,

```
S(p) = 1 / (0.1 + 0.9 / p)        S(8) = 4.71     S(64) = 8.77
S(p) -> 1 / f                      as p grows
```

What the question *can* mean without p is the ceiling: however many GPU
cores you add, this job never runs more than **1/f** times faster. (A real GEMM is
far more than 90 % parallel; the number is an exercise, not a measurement.)
]]

question {
  id = "assessment.cpu-gpu",
  kind = "design",
  title = "CPU vs GPU design",
  prompt = [[
In a short paragraph: how do CPU and GPU designs differ, and why do GPUs
suit the training and inference of neural networks? Name the execution
model a GPU uses.]],
  points = 4,
  topics = { "gpu-architecture" },
  rubric = { "theory.gpu" },
  hints = {
    "What is each design optimised for: the time of one thread, or the work done by all of them?",
    "How does a GPU cope with slow memory accesses, if not with big caches?",
  },
  -- Concepts as claims (FORMAT.md, "design"): who does what. The opposite
  -- claims (roles swapped, the relation negated, a term replaced by its
  -- antonym) come from the same declarations.
  antonyms = { { "latency", "throughput" }, { "cpu", "gpu" }, { "cpus", "gpus" } },
  concepts = {
    { name = "latency vs throughput", points = 2,
      claims = {
        { subject = { "gpu", "gpus", "graphics processor*" },
          relation = { "optimi*", "design*", "built", "build*", "target*", "aim*", "made", "focus*",
                       "orient*", "specialis*", "specializ*", "maximi*", "favo*", "tuned", "geared" },
          object = { "throughput" } },
        { subject = { "cpu", "cpus" },
          relation = { "optimi*", "design*", "built", "build*", "target*", "aim*", "made", "focus*",
                       "orient*", "specialis*", "specializ*", "minimi*", "favo*", "tuned", "geared" },
          object = { "latency", "single thread*", "one thread" } },
      },
      contradicts = {
        { match = { "the same way", "same design", "designed alike" },
          feedback = "You had the two designs alike: a CPU is built for the latency of one thread, a GPU for the throughput of many." },
      },
      feedback = "Say what each is built for: a CPU for the latency of a single thread (big out-of-order cores, large caches), a GPU for the throughput of many threads." },
    { name = "many simple cores", points = 1,
      claims = {
        { subject = { "gpu", "gpus", "graphics processor*" },
          relation = { "has", "have", "contain*", "use*", "pack*", "run*", "offer*", "provide*",
                       "come*", "optimi*", "built", "design*", "spend*", "put*", "feature*", "is", "are" },
          object = { "thousands", "many cores", "many simple", "simple cores", "massive*",
                     "streaming multiprocessor*", "many lightweight", "lightweight cores",
                     "many threads", "many small" } },
      },
      feedback = "Mention the scale: thousands of simple lanes on a GPU against tens of complex cores on a CPU." },
    { name = "SIMT and warps", points = 2,
      claims = {
        { subject = { "gpu", "gpus", "execution model", "model", "threads", "hardware", "sm", "sms" },
          relation = { "use*", "run*", "execut*", "issue*", "follow*", "group*", "schedul*", "operat*",
                       "work*", "employ*", "is", "are", "called", "organi*", "bundl*", "batch*" },
          object = { "simt", "warp*", "lockstep", "single instruction", "same instruction",
                     "one instruction" } },
        { subject = { "warp*", "threads", "lanes" },
          relation = { "issue*", "execut*", "run*", "share*", "perform*", "do", "does", "step*",
                       "follow*", "fetch*", "move*", "march*", "is", "are" },
          object = { "same instruction", "one instruction", "single instruction", "lockstep",
                     "simt" } },
      },
      feedback = "Name the execution model: SIMT, where the 32 threads of a warp issue one instruction together (and diverging branches run one after the other)." },
    { name = "memory bandwidth", points = 1,
      claims = {
        { subject = { "gpu", "gpus", "graphics processor*" },
          relation = { "has", "have", "use*", "offer*", "provide*", "deliver*", "spend*", "trade*",
                       "rely*", "come*", "feature*", "optimi*", "built", "design*", "pair*", "is", "are" },
          object = { "bandwidth", "hbm", "high bandwidth memory" } },
        { subject = { "hbm", "memory" },
          relation = { "give*", "deliver*", "provide*", "offer*", "feed*", "has", "have", "is", "are" },
          object = { "bandwidth", "tb s", "terabytes" } },
      },
      feedback = "Say where the memory budget goes: a GPU trades large caches for memory bandwidth (HBM, 2 to 3.35 TB/s on A100/H100)." },
    { name = "latency hiding", points = 1,
      claims = {
        { subject = { "gpu", "gpus", "scheduler", "hardware", "sm", "sms", "warp scheduler" },
          relation = { "hide*", "hid*", "mask*", "cover*", "tolerat*", "overlap*" },
          object = { "latency", "latencies", "memory access*", "stall*", "wait*" } },
        { subject = { "gpu", "gpus", "scheduler", "hardware", "sm", "sms", "warp scheduler" },
          relation = { "switch*", "swap*", "move*", "jump*", "pick*", "schedul*", "run*", "issue*" },
          object = { "another warp", "other warp*", "ready warp*", "next warp", "different warp*",
                     "between warps", "warps" } },
        { subject = { "occupancy" }, relation = { "matter*", "count*", "is", "hides" },
          object = { "important", "why", "key", "latency" } },
      },
      feedback = "Explain how a GPU copes with slow memory: it hides latency by switching to other ready warps, which is why occupancy matters." },
    { name = "ML is dense linear algebra", points = 2,
      claims = {
        { subject = { "neural network*", "network*", "training", "inference", "ml", "deep learning",
                      "models", "layers", "workload*", "they", "nn", "nns" },
          relation = { "is", "are", "consist*", "boil*", "reduce*", "use*", "rely*", "map*", "need*",
                       "involve*", "come*", "made", "spend*", "do", "does", "perform*", "run*" },
          object = { "matri*", "gemm", "linear algebra", "matmul*", "tensor core*",
                     "same operation", "dot product*" } },
        { subject = { "matri*", "gemm", "matmul*", "linear algebra" },
          relation = { "dominat*", "make*", "account*", "form*" },
          object = { "network*", "training", "inference", "ml", "deep learning", "models",
                     "workload*", "time", "compute", "work", "flops" } },
        { subject = { "gpu", "gpus", "graphics processor*", "design", "they", "it", "tensor core*" },
          relation = { "good", "excel*", "suit*", "fit*", "accelerat*", "speed*", "built", "design*",
                       "made", "map*", "optimi*", "great", "fast", "ideal" },
          object = { "matri*", "gemm", "linear algebra", "matmul*", "dot product*" } },
      },
      feedback = "Connect it to ML: training and inference are mostly matrix multiplications, the same operation over many independent values (and tensor cores accelerate exactly that)." },
  },
  model = [[
A CPU is optimised for latency: a few complex out-of-order cores with branch
prediction and large caches finish one thread quickly. A GPU is optimised for
throughput: thousands of simple cores in streaming multiprocessors, small
caches, and high memory bandwidth (HBM). It runs threads in warps of 32 under
SIMT, one instruction for the whole warp, and hides memory latency by
switching to other ready warps, so occupancy matters. Neural networks are
mostly matrix multiplications, the same operation over millions of values,
which is exactly what that design (and its tensor cores) does well.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
A CPU is built for latency: a few complex out-of-order cores with large
caches make one thread finish fast. A GPU is built for throughput instead,
with thousands of simple cores grouped in streaming multiprocessors and high
memory bandwidth from HBM. Its execution model is SIMT: the 32 threads of a
warp issue the same instruction together. When a warp waits for memory, the
scheduler switches to another ready warp, so the GPU hides latency without
big caches. Training and inference are mostly matrix multiplications, the
same operation over millions of values, which is exactly what this design
and its tensor cores do well.]] },
    { role = "good", score = 1, tol = 0, answer = [[
CPUs optimise the latency of a single thread, while GPUs optimise throughput
across many threads. A GPU has thousands of lightweight cores and spends its
transistors on arithmetic and memory bandwidth rather than on caches.
Threads run in warps under SIMT, one instruction for all 32 lanes, and the
hardware hides memory latency by switching between warps, which is why
occupancy matters. Neural networks are dominated by matrix multiply (GEMM),
so they map well onto this design.]] },
    { role = "partial", score = 1 / 3, tol = 0.2, answer = [[
GPUs have thousands of cores and are good at matrix multiplication.]] },
    { role = "partial", score = 4 / 9, tol = 0.2, answer = [[
The CPU is designed for low latency and the GPU for throughput. The GPU runs
warps of 32 threads in SIMT.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
latency vs throughput, thousands of cores, SIMT, warps, lockstep, HBM,
memory bandwidth, latency hiding, occupancy, matrix multiplication, GEMM,
tensor cores]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
CPUs and GPUs are designed the same way, and both are built for throughput;
a GPU just has a higher clock. GPUs have no SIMT or warps, each thread runs
its own instructions, and they cannot hide latency, so they rely on big
caches instead of memory bandwidth. Neural networks do not use matrix
multiplication much, so GPUs are not a good fit for them.]] },
  },
  examples = {
    { answer = [[
CPUs are latency-oriented with big caches; GPUs are built for throughput with
thousands of cores and HBM bandwidth. They use SIMT: a warp of 32 threads runs
one instruction, and the GPU hides latency by switching warps. ML is mostly
matrix multiplication, so it maps well (tensor cores).]], score = 1 },
    -- Right about the cores and the maths, silent on the rest: 3 of 9.
    { "GPUs have thousands of cores and are good at matrix multiplication.", 1 / 3 },
    { "GPUs are faster.", 0 },
    { "", "invalid" },
  },
}

question {
  id = "assessment.matmul-ceiling",
  kind = "numeric",
  title = "A 90% parallel matrix multiply: the ceiling",
  prompt = [[
The course asks for "the theoretical speedup of a matrix multiplication with
90% parallelizable operations" without saying how many processors. The only
speedup Amdahl's law defines without a processor count is the maximum, for
unlimited processors. What is it?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl" },
  rubric = { "theory.parallel", "theory.gpu" },
  hints = {
    "90% parallel means a serial fraction f = 0.1.",
    "With p unlimited, S = 1 / (f + (1 - f)/p) tends to 1/f.",
  },
  answer = 10,
  wrong = {
    { value = 1 / 0.9, feedback = "1/0.9 uses the parallel share; the ceiling is 1/f with f = 0.1 the SERIAL share." },
    { value = 9, feedback = "The ceiling is 1/f = 1/0.1 = 10, not 0.9 × 10." },
    { value = 90, feedback = "90 is the parallel percentage, not a speedup. The serial 10% caps the speedup at 1/0.1." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "10", 1 },
    { "10x", 1 },
    { "1/0.1", 1 },
    { "9.5", 0 },         -- 5% off
    { "1.11", 0 },        -- the parallel fraction in the denominator
    { "infinite", "invalid" },
    { "10 GB", "invalid" },
  },
}

question {
  id = "assessment.matmul-speedup",
  kind = "numeric",
  title = "A parallel matrix multiply on p processors (your numbers)",
  prompt = [[
A matrix multiplication is {ppct}% parallelizable; the rest is serial.
What speedup does Amdahl's law give on {p} processors?
Give three significant figures.]],
  unit = "x",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
  hints = {
    "The serial fraction is f = 1 - {ppct}/100.",
    "S = 1 / (f + (1 - f)/p).",
  },
  params = function(rng)
    -- p at most 64 keeps S more than 3% below the ceiling 1/f even for the
    -- smallest f (0.02), so the "ceiling" wrong answer never overlaps.
    return { ppct = rng:pick({ 75, 85, 95, 98 }), p = rng:pick({ 8, 16, 32, 64 }) }
  end,
  answer = function(p) return wb.amdahl(1 - p.ppct / 100, p.p) end,
  wrong = {
    { value = function(p) return wb.amdahl(p.ppct / 100, p.p) end,
      feedback = "You used the parallel share as f. f is the serial share: 1 - {ppct}/100." },
    { value = function(p) return 1 / (1 - p.ppct / 100) end,
      feedback = "That is the ceiling 1/f for unlimited processors; with {p} the term (1 - f)/p still counts." },
    { value = function(p) return p.p end,
      feedback = "That is linear speedup: the serial part does not get faster." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", wb.amdahl(1 - p.ppct / 100, p.p)) end, score = 1 },
    { answer = function(p) return string.format("%.4f", 1.05 * wb.amdahl(1 - p.ppct / 100, p.p)) end, score = 0 },
    { "quick", "invalid" },
    -- The page's numbers for the course's 90% example.
    { params = { ppct = 90, p = 8 }, answer = "4.71", score = 1 },
    { params = { ppct = 90, p = 64 }, answer = "8.77", score = 1 },
    { params = { ppct = 90, p = 64 }, answer = "10", score = 0 },     -- the ceiling
    { params = { ppct = 90, p = 8 }, answer = "1.11", score = 0 },    -- swapped fractions
  },
}

------------------------------------------------------------------------------
page [[
# Beginner 2: memory coalescing

When the 32 threads of a warp load from global memory, the hardware merges
their addresses into as few memory transactions as it can. The unit it moves
is a **32-byte sector**; four sectors make a **128-byte cache line**.

- **Coalesced:** thread t reads element t of a float array that starts on a
  128-byte boundary. The warp wants 32 × 4 = 128 contiguous bytes: one line,
  4 sectors, and every byte moved is used.
- **Strided:** thread t reads element t × s. Each step skips 4s bytes, so the
  warp touches more sectors for the same 128 useful bytes. From a stride of 8
  floats (32 bytes) on, every thread needs a sector of its own: 32 sectors,
  1024 bytes moved for 128 used, an efficiency of 12.5 %.

The course puts this as "1 vs 32 memory transactions per warp". That counts
whole 128-byte lines. Current GPUs move data between DRAM, L2 and L1 in
32-byte sectors, so the worst case moves 8 times the bytes of the best
(32 sectors against 4), not 32 times. The "10–30× difference" the course
quotes is what some kernels see once caches, latency and occupancy join in,
not a rule.

## Designing for it

For a 2-D operation such as a convolution over an image stored row by row:

1. Map `threadIdx.x` to the column index, so neighbouring threads read
   neighbouring addresses along a row.
2. Keep rows aligned (pad each row to a multiple of 128 bytes: a *pitch*).
3. Load a tile of the input, with its halo of K − 1 extra rows and columns,
   into **shared memory** with coalesced loads, then let every thread read
   its K × K neighbourhood from there: each input value is reused up to K²
   times while being read from DRAM once.
4. Pad the shared-memory tile (an extra column) when threads of a warp would
   otherwise hit the same bank.
]]

question {
  id = "assessment.warp-sectors",
  kind = "numeric",
  title = "Sectors touched by a strided warp load (your numbers)",
  prompt = [[
Each of the 32 threads of a warp loads one 4-byte float: thread t reads
element t × {s} of an array that starts on a 128-byte boundary. How many
distinct 32-byte sectors does the warp's load touch?
Give a whole number.]],
  topics = { "coalescing" },
  rubric = { "theory.gpu", "practice.optimization" },
  hints = {
    "Thread t reads byte address 4 × {s} × t. Which 32-byte sector is that in?",
    "Once the step between threads is 32 bytes or more, every thread needs a sector of its own.",
  },
  params = function(rng) return { s = rng:pick({ 2, 3, 4, 5, 6, 7 }) } end,
  answer = function(p)
    local seen, n = {}, 0
    for t = 0, 31 do
      local sector = (4 * p.s * t) // 32
      if not seen[sector] then seen[sector], n = true, n + 1 end
    end
    return n
  end,
  -- A count: only the exact whole number is right.
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p)  -- 128-byte lines instead of 32-byte sectors
        local lines = {}
        local n = 0
        for t = 0, 31 do
          local line = (4 * p.s * t) // 128
          if not lines[line] then lines[line], n = true, n + 1 end
        end
        return n ~= math.min(32, 4 * p.s) and n or -1
      end,
      feedback = "You counted 128-byte lines. The memory system moves 32-byte sectors: a line is 4 of them." },
    { value = function(p) return p.s < 8 and 32 or -1 end,
      feedback = "Not every strided load is fully uncoalesced: with a step under 32 bytes, neighbouring threads still share sectors." },
  },
  examples = {
    { answer = function(p) return tostring(math.min(32, 4 * p.s)) end, score = 1 },
    { params = { s = 1 }, answer = "4", score = 1 },     -- coalesced: one 128-byte line
    { params = { s = 1 }, answer = "1", score = 0 },     -- counted the line
    { params = { s = 32 }, answer = "32", score = 1 },   -- the course's "32 transactions"
    { params = { s = 2 }, answer = "8", score = 1 },
    { params = { s = 2 }, answer = "32", score = 0 },
    { params = { s = 3 }, answer = "12", score = 1 },
    { params = { s = 3 }, answer = "13", score = 0 },
    { "four", "invalid" },
    { "4 MB", "invalid" },
  },
}

question {
  id = "assessment.warp-efficiency",
  kind = "numeric",
  title = "Useful share of the bytes moved (your numbers)",
  prompt = [[
A warp reads 32 floats (4 bytes each) with a stride of {s} elements, from
an array aligned to 128 bytes. What percentage of the bytes moved from
DRAM (in 32-byte sectors) does the warp actually use?
Give three significant figures.]],
  unit = "%",
  topics = { "coalescing" },
  rubric = { "practice.optimization", "practice.profiling" },
  hints = {
    "Efficiency is the bytes the warp uses over the bytes memory moves for it.",
    "The warp uses 32 × 4 = 128 bytes. Count the sectors it touches and multiply by 32 bytes.",
  },
  params = function(rng) return { s = rng:pick({ 2, 3, 4, 5, 6, 7 }) } end,
  answer = function(p)
    local seen, n = {}, 0
    for t = 0, 31 do
      local sector = (4 * p.s * t) // 32
      if not seen[sector] then seen[sector], n = true, n + 1 end
    end
    return 100 * 128 / (32 * n)
  end,
  wrong = {
    { value = function(p) return p.s > 8 and 100 / p.s or -1 end,
      feedback = "1/stride would hold if whole elements were moved one by one; the hardware moves 32-byte sectors, so past a 32-byte step each 4-byte element costs a 32-byte sector of its own." },
    { value = function(p) return p.s >= 8 and 100 * 4 / 128 or -1 end,
      feedback = "That charges a whole 128-byte line per element. Modern GPUs fetch 32-byte sectors: 4 useful bytes per 32 moved." },
    { value = function(p) return p.s < 8 and 12.5 or -1 end,
      feedback = "12.5% is the worst case, for a step of 32 bytes or more. With this stride neighbouring threads still share sectors." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.3f", 100 / math.min(p.s, 8)) end, score = 1 },
    { params = { s = 2 }, answer = "50", score = 1 },
    { params = { s = 2 }, answer = "50%", score = 1 },
    { params = { s = 2 }, answer = "12.5", score = 0 },
    { params = { s = 16 }, answer = "12.5", score = 1 },
    { params = { s = 16 }, answer = "6.25", score = 0 },   -- 1/stride
    { params = { s = 16 }, answer = "3.125", score = 0 },  -- a 128-byte line per element
    { params = { s = 3 }, answer = "33.3", score = 1 },
    { params = { s = 3 }, answer = "30", score = 0 },        -- 10% off
    { "half", "invalid" },
  },
}

question {
  id = "assessment.conv-coalescing",
  kind = "design",
  title = "Coalesced access for a 2-D convolution",
  prompt = [[
A CUDA kernel convolves an H × W image of floats, stored row by row, with a
small K × K filter. Describe how you would arrange its memory accesses so
that its global loads coalesce and its input is reused, and explain what
uncoalesced access would cost.]],
  points = 5,
  topics = { "coalescing", "shared-memory" },
  rubric = { "practice.optimization", "theory.gpu" },
  hints = {
    "Which thread index should walk along a row?",
    "Each input pixel is needed by K × K output pixels: where can it wait between uses?",
  },
  concepts = {
    { name = "consecutive threads, consecutive addresses", points = 2,
      claims = {
        { subject = { "consecutive thread*", "adjacent thread*", "neighbo*ring thread*", "threads",
                      "warp*", "lanes", "thread i" },
          relation = { "read*", "load*", "access*", "touch*", "fetch*", "hit*", "get*", "use*",
                       "walk*", "go", "goes", "cover*", "request*", "map*", "fall*", "land*" },
          object = { "consecutive address*", "contiguous", "adjacent address*", "consecutive element*",
                     "consecutive word*", "neighbo*ring address*", "consecutive memory",
                     "consecutive float*", "consecutive location*", "consecutive byte*",
                     "next address*", "adjacent element*", "adjacent float*", "one segment",
                     "same segment", "same line", "128 byte segment" } },
      },
      contradicts = {
        { match = { "a whole row apart", "a row apart", "w floats apart" },
          feedback = "You mapped threadIdx.x down a column: consecutive threads then read addresses a whole row apart, the uncoalesced pattern. Map it to the column index." },
      },
      feedback = "State the rule: consecutive threads of a warp read consecutive addresses, so map threadIdx.x to the column index." },
    { name = "row-major mapping", points = 1,
      claims = {
        { relation = { "map*", "assign*", "let*", "bind*", "tie*", "set*", "run*", "walk*", "go",
                       "goes", "index*", "move*", "step*", "iterat*", "correspond*", "use*",
                       "follow*", "point*", "travers*", "read*", "stride*", "advance*" },
          object = { "column index", "column coordinate", "columns", "along the row*", "along a row",
                     "along rows", "along each row", "x dimension", "innermost", "contiguous dimension",
                     "row major", "row-major", "inner dimension", "fastest varying" } },
      },
      feedback = "Say which dimension the threads walk: along a row (the contiguous, innermost dimension of a row-major image)." },
    { name = "shared-memory tiles with a halo", points = 2,
      claims = {
        { relation = { "load*", "stage*", "stor*", "cache*", "put*", "keep*", "copy*", "bring*",
                       "read*", "use*", "tile*", "hold*", "fill*", "place*", "move*", "fetch*" },
          object = { "shared memory", "tile*", "halo", "apron", "shared", "smem", "ghost cell*" } },
        { subject = { "tile*", "input", "block*" },
          relation = { "is", "are", "include*", "contain*", "cover*", "stag*", "load*", "stor*",
                       "kept", "hold*", "cach*" },
          object = { "shared memory", "halo", "apron", "extra row*", "k - 1", "k 1", "ghost cell*" } },
      },
      feedback = "Stage a tile of the input, with its halo of K - 1 extra rows and columns, in shared memory using coalesced loads." },
    { name = "reuse", points = 1,
      claims = {
        { subject = { "input*", "value*", "pixel*", "data", "element*", "tile", "each pixel",
                      "every pixel", "it", "they", "load*", "float*" },
          relation = { "reuse*", "re-use*", "reused", "serve*", "shared", "used", "read", "feed*" },
          object = { "k", "times", "output*", "neighbo*r*", "again", "many", "several", "once",
                     "from shared memory", "later", "after" } },
        { relation = { "reuse*", "re-use*", "exploit*", "get*", "gain*", "allow*", "enabl*", "give*" },
          object = { "reuse", "re-use", "the data", "the input", "each pixel", "every pixel",
                     "the pixels", "values", "the tile", "taps" } },
        -- "so the data gets reused", "and reuse it for all K x K taps"
        { subject = { "data", "input*", "value*", "pixel*", "tile", "it", "they" },
          relation = { "reused", "re-used", "gets reused", "get reused" } },
        { relation = { "reuse", "re-use" }, object = { "it", "them", "tile", "for all", "taps" } },
      },
      feedback = "Point out the reuse: each input value serves up to K × K outputs, so read it from DRAM once and from shared memory after that." },
    { name = "cost of uncoalesced access", points = 2,
      claims = {
        { subject = { "uncoalesced*", "warp*", "access*", "load*", "each thread", "thread*", "each",
                      "it", "this", "kernel", "column walk*", "strided*" },
          relation = { "touch*", "need*", "take*", "cost*", "move*", "waste*", "fetch*", "use*",
                       "read*", "require*", "split*", "issue*", "generat*", "load*", "become*",
                       "cause*", "multipl*", "mean*" },
          object = { "sector*", "transaction*", "bandwidth", "8 times", "eight times", "32 separate",
                     "more bytes", "more traffic", "8x", "serializ*", "serialis*", "replay*" } },
      },
      contradicts = {
        { patterns = { "uncoalesced %a* ?cost%a* nothing", "uncoalesced %a* ?%a* ?free" },
          feedback = "You said uncoalesced access is free: a warp then touches up to 32 sectors instead of 4, moving up to 8 times the bytes." },
      },
      feedback = "Quantify the cost: an uncoalesced warp load touches up to 32 separate 32-byte sectors instead of 4, moving up to 8 times the bytes it uses." },
    { name = "alignment", points = 1,
      claims = {
        { relation = { "pad*", "align*", "keep*", "use*", "allocat*", "round*", "start*", "make*" },
          object = { "aligned", "align*", "128 byte*", "128", "pitch*", "multiple of" } },
        { subject = { "row*", "segment*", "each row", "allocation", "start" },
          relation = { "align*", "is", "are", "start*", "pad*", "begin*", "fall*", "land*" },
          object = { "aligned", "128 byte*", "128", "pitch*", "boundar*", "multiple of", "line" } },
      },
      feedback = "Keep rows aligned: pad each row to a multiple of 128 bytes (a pitched allocation) so a warp's row segment starts on a line." },
  },
  model = [[
Map threadIdx.x to the column index so consecutive threads of a warp read
consecutive addresses along a row of the row-major image, and pad rows to a
128-byte aligned pitch. Each block first loads a tile of the input plus its
halo of K - 1 rows and columns into shared memory with coalesced loads, then
computes its outputs from shared memory, so every input value is reused up to
K × K times after one read from DRAM. Uncoalesced access would make a warp
touch up to 32 separate 32-byte sectors (transactions) instead of 4, moving
up to 8 times the bytes it needs and wasting memory bandwidth.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
Map threadIdx.x to the column index, so consecutive threads of a warp read
consecutive addresses along a row of the row-major image, and pad every row
to a pitch that keeps it aligned to 128 bytes. Each block first loads its
tile of the input plus a halo of K - 1 rows and columns into shared memory
with coalesced loads, then computes its outputs from there, so each input
value is fetched from DRAM once and reused for up to K x K outputs. Without
this, a warp's uncoalesced load could touch 32 separate 32-byte sectors
instead of 4, moving up to eight times the bytes it needs and wasting memory
bandwidth.]] },
    { role = "good", score = 1, tol = 0, answer = [[
Adjacent threads must access contiguous memory, so I would let threadIdx.x
run along the x dimension of each row. The input is staged in shared memory
tiles with an apron for the filter, so every pixel loaded once is reused by
its neighbours' outputs. Rows are padded with a pitched allocation so each
warp's segment is aligned. If the threads walked down the image instead,
each would need its own sector, wasting most of every memory transaction.]] },
    { role = "partial", score = 1 / 3, tol = 0.2, answer = [[
Use shared memory tiles so the data gets reused.]] },
    { role = "partial", score = 5 / 9, tol = 0.2, answer = [[
Consecutive threads should read consecutive addresses, so threadIdx.x goes
along the row. Otherwise every thread needs its own sector.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
threadIdx.x, consecutive addresses, row-major, shared memory, tile, halo,
reuse, sectors, transactions, alignment, pitch]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Map threadIdx.x to the row index so that each thread walks down a column:
consecutive threads then read addresses a whole row apart, which is fine
because the cache hides it. Shared memory would not help since every pixel
is read only once, so there is no reuse. Uncoalesced access costs nothing on
modern GPUs, and alignment does not matter.]] },
  },
  antonyms = { { "column index", "row index" }, { "along the row", "down a column" },
               { "along a row", "down a column" }, { "along rows", "down columns" },
               { "coalesced", "uncoalesced" } },
  examples = {
    { answer = [[
Consecutive threads (threadIdx.x) read consecutive addresses along a row; rows
are aligned to 128 bytes. Load a tile with its halo into shared memory and
reuse it for all K x K taps. Uncoalesced loads need up to 32 sectors instead
of 4.]], score = 1 },
    -- Tiling and reuse only: 3 of 9.
    { "Use shared memory tiles so the data gets reused.", 1 / 3 },
    { "Make it faster with more threads.", 0 },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Intermediate 1: ring vs tree all-reduce

Data-parallel training ends every step with an **all-reduce** of the
gradients: every GPU contributes M bytes and every GPU ends with the sum.
Two classic ways to do it, with p GPUs and a link bandwidth of B per GPU:

```
 ring                                    tree
 GPU0 --> GPU1 --> GPU2 --> GPU3                 GPU0
   ^                          |               /        \
   +--------------------------+           GPU1          GPU2
                                          /   \         /   \
 reduce-scatter: p - 1 steps           GPU3  GPU4    GPU5  GPU6
 all-gather:     p - 1 steps
 each step sends M/p bytes             reduce up log2(p) levels,
                                       broadcast down log2(p) levels
```

Counting only bandwidth (the course's formulas):

```
ring:  T = 2 (p - 1) / p  x  M / B      (about 2 M / B, whatever p is)
tree:  T = 2 log2(p)      x  M / B      (grows with log2 p)
```

The course's question does not say how big M is. Gradients are usually
reduced in 16-bit precision: 2 bytes per parameter, so a 175-billion-parameter
model sends **M = 350 GB**. On 1024 GPUs at 100 GB/s:

```
ring:  2 x 1023/1024 x 350 GB / 100 GB/s  =  6.99 s
tree:  2 x 10        x 350 GB / 100 GB/s  =  70 s
```

The ring is bandwidth-optimal: each GPU sends and receives about 2M bytes in
all, however many GPUs there are. Its weakness is **latency**: 2(p − 1)
steps, each paying a start-up cost α, against the tree's 2 log2 p. Adding
that term,

```
ring:  2 (p - 1) alpha  +  2 (p - 1)/p  x  M / B
tree:  2 log2(p) alpha  +  2 log2(p)    x  M / B
```

so the tree wins for **small messages** on many GPUs and the ring for large
ones. (The tree formula above forwards the whole message at every level. Real
libraries pipeline it in chunks over two complementary trees, which brings
its bandwidth term close to the ring's while keeping the log2 p latency; NCCL
picks between the two by message size and topology.)
]]

-- An interactive version of the page's arithmetic: both formulas, with the
-- latency term, and a bar per algorithm so the crossover is visible.
calculator {
  id = "assessment.allreduce",
  title = "Ring vs tree all-reduce",
  inputs = {
    { name = "params_b", label = "parameters", unit = "billion", default = 175, min = 0.0001, max = 100000 },
    { name = "bytes", label = "bytes per gradient value", default = 2, min = 1, max = 8, integer = true,
      help = "2 for FP16/BF16 gradients, 4 for FP32" },
    { name = "p", label = "GPUs p", default = 1024, min = 2, max = 1000000, integer = true },
    { name = "bw", label = "link bandwidth per GPU", unit = "GB/s", default = 100, min = 0.001, max = 100000 },
    { name = "alpha", label = "latency per step", unit = "µs", default = 0, min = 0, max = 1000000,
      help = "start-up cost of one send; 0 counts bandwidth only, as the course does" },
  },
  compute = function(v)
    local M, B, a = v.params_b * 1e9 * v.bytes, v.bw * 1e9, v.alpha * 1e-6
    local lg = math.log(v.p, 2)
    local ring = 2 * (v.p - 1) * a + 2 * (v.p - 1) / v.p * M / B
    local tree = 2 * lg * a + 2 * lg * M / B
    local longest = math.max(ring, tree)
    local function bar(t) return string.rep("#", math.max(1, math.floor(40 * t / longest + 0.5))) end
    return {
      { label = "message size M", value = M, unit = "B" },
      { label = "ring: 2(p-1)a + 2(p-1)/p M/B", value = ring, unit = "s" },
      { label = "tree: 2 log2(p) a + 2 log2(p) M/B", value = tree, unit = "s" },
      { label = "tree / ring", value = tree / ring, unit = "x" },
      { label = "faster", text = ring < tree and "ring" or tree < ring and "tree" or "neither" },
      { label = "time", text = "ring " .. bar(ring) .. "\ntree " .. bar(tree) },
    }
  end,
  examples = {
    -- The course's question: 175 B FP16 gradients, 1024 GPUs, 100 GB/s.
    { inputs = {}, outputs = { 350e9, 6.9931640625, 70, 70 / 6.9931640625, "ring" } },
    -- A 1 MB message with 5 us per step: the tree wins.
    { inputs = { params_b = 0.0005, bytes = 2, alpha = 5 },
      outputs = { 1e6, 2 * 1023 * 5e-6 + 2 * 1023 / 1024 * 1e6 / 1e11, 2 * 10 * 5e-6 + 20 * 1e6 / 1e11 } },
  },
}

question {
  id = "assessment.ring-allreduce",
  kind = "numeric",
  title = "Ring all-reduce time (your numbers)",
  prompt = [[
Data-parallel training of a {n}-billion-parameter model on {p} GPUs
all-reduces FP16 gradients (2 bytes per parameter) with a ring, over links of
{bw} GB/s per GPU. Counting bandwidth only, T = 2(p - 1)/p × M/B. How long
does one all-reduce take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce" },
  rubric = { "theory.parallel" },
  hints = {
    "A ring all-reduce sends each byte about twice over every link, whatever p is: find the message size M first.",
    "M = {n} × 10^9 parameters × 2 bytes.",
    "T = 2 × ({p} - 1)/{p} × M / ({bw} GB/s).",
  },
  params = function(rng)
    return { n = rng:pick({ 1.3, 7, 13, 70, 175 }), p = rng:pick({ 8, 16, 64, 256, 1024 }),
             bw = rng:pick({ 25, 50, 200, 400 }) }
  end,
  answer = function(p) return 2 * (p.p - 1) / p.p * (p.n * 2) / p.bw end,
  wrong = {
    { value = function(p) return 2 * (p.p - 1) / p.p * (p.n * 4) / p.bw end,
      feedback = "You used 4 bytes per parameter; the gradients here are FP16, 2 bytes each." },
    { value = function(p) return (p.p - 1) / p.p * (p.n * 2) / p.bw end,
      feedback = "Missing the factor 2: a ring all-reduce is a reduce-scatter followed by an all-gather, each moving (p - 1)/p of the data." },
    { value = function(p) return 2 * (p.p - 1) / p.p * (p.n * 2) * 8 / p.bw end,
      feedback = "The link speed is in gigaBYTES per second; no factor 8 is needed." },
    { value = function(p) return 2 * math.log(p.p, 2) * (p.n * 2) / p.bw end,
      feedback = "That is the tree formula, 2 log2(p) × M/B. The ring's is 2(p - 1)/p × M/B." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 2 * (p.p - 1) / p.p * (p.n * 2) / p.bw) end, score = 1 },
    -- The course's question: 175 B parameters, 1024 GPUs, 100 GB/s.
    { params = { n = 175, p = 1024, bw = 100 }, answer = "6.99", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "2*1023/1024*350/100", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "6993 ms", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "7.2", score = 0 },    -- 3% off
    { params = { n = 175, p = 1024, bw = 100 }, answer = "14", score = 0 },     -- FP32
    { params = { n = 175, p = 1024, bw = 100 }, answer = "3.5", score = 0 },    -- no factor 2
    { params = { n = 175, p = 1024, bw = 100 }, answer = "70", score = 0 },     -- tree
    { "7 GB", "invalid" },
    { "a while", "invalid" },
  },
}

question {
  id = "assessment.tree-allreduce",
  kind = "numeric",
  title = "Tree all-reduce time (your numbers)",
  prompt = [[
A {n}-billion-parameter model (FP16 gradients, 2 bytes per parameter)
trains on {p} GPUs at {bw} GB/s. Its gradients are reduced with the
course's tree formula T = 2 log2(p) × M/B. How long does one all-reduce
take?
Give three significant figures.]],
  unit = "s",
  topics = { "all-reduce" },
  rubric = { "theory.parallel" },
  hints = {
    "log2({p}) is the number of levels of a binary tree over {p} GPUs.",
  },
  params = function(rng)
    return { n = rng:pick({ 1.3, 7, 13, 70, 175 }), p = rng:pick({ 8, 16, 64, 256, 1024 }),
             bw = rng:pick({ 25, 50, 200, 400 }) }
  end,
  answer = function(p) return 2 * math.log(p.p, 2) * (p.n * 2) / p.bw end,
  wrong = {
    { value = function(p) return math.log(p.p, 2) * (p.n * 2) / p.bw end,
      feedback = "Missing the factor 2: the tree reduces up log2(p) levels, then broadcasts down as many." },
    { value = function(p) return 2 * math.log(p.p) * (p.n * 2) / p.bw end,
      feedback = "That uses the natural logarithm; a binary tree has log2(p) levels." },
    { value = function(p) return 2 * (p.p - 1) / p.p * (p.n * 2) / p.bw end,
      feedback = "That is the ring's time, 2(p - 1)/p × M/B." },
    { value = function(p) return 2 * math.log(p.p, 2) * (p.n * 4) / p.bw end,
      feedback = "You used 4 bytes per parameter; the gradients here are FP16, 2 bytes each." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", 2 * math.log(p.p, 2) * (p.n * 2) / p.bw) end, score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "70", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "70 s", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "2*log2(1024)*350/100", score = 1 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "72", score = 0 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "35", score = 0 },
    { params = { n = 175, p = 1024, bw = 100 }, answer = "48.5", score = 0 },  -- ln
    { "seventy", "invalid" },
  },
}

question {
  id = "assessment.allreduce-crossover",
  kind = "numeric",
  title = "When does the tree win? (your numbers)",
  prompt = [[
Add a start-up latency of {a} µs to every step of both algorithms:
ring T = 2(p - 1)·α + 2(p - 1)/p × M/B,
tree T = 2 log2(p)·α + 2 log2(p) × M/B.
With p = {p} GPUs and B = {bw} GB/s, below what message size M is the tree
faster? Answer in MB.
Give three significant figures.]],
  unit = "MB",
  topics = { "all-reduce" },
  rubric = { "theory.parallel", "advanced.novel" },
  hints = {
    "Set the two times equal and solve for M: the α terms on one side, the M/B terms on the other.",
    "M = (2(p - 1) - 2 log2 p)·α·B / (2 log2 p - 2(p - 1)/p).",
  },
  params = function(rng)
    return { a = rng:pick({ 1, 2, 5, 10 }), p = rng:pick({ 16, 64, 256, 1024 }), bw = rng:pick({ 25, 100 }) }
  end,
  answer = function(p)
    local lg = math.log(p.p, 2)
    local alpha, B = p.a * 1e-6, p.bw * 1e9
    return (2 * (p.p - 1) - 2 * lg) * alpha * B / (2 * lg - 2 * (p.p - 1) / p.p) / 1e6
  end,
  wrong = {
    { value = function(p)
        local lg = math.log(p.p, 2)
        return (2 * (p.p - 1) - 2 * lg) * p.a * 1e-6 * p.bw * 1e9 / 8
               / (2 * lg - 2 * (p.p - 1) / p.p) / 1e6
      end,
      feedback = "You divided by 8 somewhere: B is in gigaBYTES per second and M in megabytes, so no bits are involved." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p)
        local lg = math.log(p.p, 2)
        return string.format("%.5g", (2 * (p.p - 1) - 2 * lg) * p.a * 1e-6 * p.bw * 1e9
                                     / (2 * lg - 2 * (p.p - 1) / p.p) / 1e6)
      end, score = 1 },
    { params = { a = 5, p = 1024, bw = 100 }, answer = "56.3", score = 1 },
    { params = { a = 5, p = 1024, bw = 100 }, answer = "0.0563 GB", score = 1 },
    { params = { a = 5, p = 1024, bw = 100 }, answer = "54", score = 0 },
    { params = { a = 5, p = 1024, bw = 100 }, answer = "7.03", score = 0 },
    { "56.3 ms", "invalid" },
    -- The guide's 1 µs, 16 GPUs and 25 GB/s: below about 0.09 MB.
    { params = { a = 1, p = 16, bw = 25 }, answer = "0.0898", score = 1 },
  },
}

------------------------------------------------------------------------------
page [[
# Intermediate 2: gradient checkpointing and training memory

Training memory has four parts: **parameters**, **gradients**, **optimizer
states** and **activations** (the outputs of every layer, kept from the
forward pass for the backward pass). The first three depend on the model
alone; activations grow with depth × batch × sequence length, and they are
usually what runs out.

## Checkpointing

Keep only a few layers' outputs (the *checkpoints*) during the forward pass.
During the backward pass, re-run the forward pass of one segment at a time,
from its checkpoint, to get back the activations it needs. With L layers and
checkpoints every k layers you hold L/k checkpoints plus one segment of k
layers; k = √L minimises the sum:

```
peak activations  ~  L/k + k  layers' worth   ->  2 sqrt(L)  at k = sqrt(L)
50 layers:  50  ->  2 x 7.07 = 14.1  layers' worth   (about 28 %)
whole layers, k = 7:  ceil(50/7) + 7 = 8 + 7 = 15     (30 %)
```

(Counting a checkpoint as a whole layer's activations over-estimates it: a
checkpoint is only the layer's input, so the real saving is larger.)

**What it costs.** The course writes the compute as going from O(L) to
O(L√L). That is not right: every segment's forward pass runs **once** more,
so a step costs one extra forward pass, O(L) extra work. With the usual
backward ≈ 2 × forward, a step grows from 3 to 4 forward-pass units: about
**33 %** longer. (Choosing *which* layers to checkpoint when layers differ in
size and cost is the dynamic-programming problem the course mentions.)

## Model states: what mixed precision does and does not halve

Adam in mixed precision keeps, per parameter: FP16 weights (2 bytes) and
gradients (2), an FP32 master copy of the weights (4) and two FP32 moments
(4 + 4): **16 bytes**. Plain FP32 Adam needs 4 + 4 + 8 = 16 as well. So mixed
precision halves **activations** (and doubles tensor-core speed), not the
model states; the "2× memory reduction" the course lists holds only for the
former.

**ZeRO** spreads the model states over the N data-parallel GPUs instead of
copying them: stage 1 partitions the optimizer states, stage 2 also the
gradients, stage 3 also the weights. Per GPU, with Ψ parameters:

```
no ZeRO   16 Psi            stage 2   2 Psi + 14 Psi / N
stage 1    4 Psi + 12 Psi/N  stage 3  16 Psi / N
```

For large N that is about 4×, 8× and N× less than 16Ψ: the course's
"4×, 8×, linear".
]]

question {
  id = "assessment.checkpoint-memory",
  kind = "numeric",
  title = "Memory with sqrt(L) checkpointing (your numbers)",
  prompt = [[
A {L}-layer transformer needs {S} GB for its weights, gradients and
optimizer states and {A} GB for activations, spread evenly over its layers.
With √L checkpointing the activations at their peak take about 2√L layers'
worth instead of all {L}. How much memory does training need in total?
Give three significant figures.]],
  unit = "GB",
  topics = { "checkpointing", "training-memory" },
  rubric = { "theory.memory" },
  hints = {
    "Checkpointing keeps only some activations; the weights, gradients and optimizer states do not shrink.",
    "Activations shrink by the factor 2√L / L; the model states do not shrink.",
    "Total = {S} + {A} × 2√{L} / {L}.",
  },
  params = function(rng)
    return { L = rng:pick({ 24, 32, 40, 64, 80, 128 }), S = rng:pick({ 4, 6, 8, 10 }),
             A = rng:pick({ 16, 20, 24, 28 }) }
  end,
  answer = function(p) return p.S + p.A * 2 * math.sqrt(p.L) / p.L end,
  wrong = {
    { value = function(p) return p.A * 2 * math.sqrt(p.L) / p.L end,
      feedback = "That is the activations alone. Weights, gradients and optimizer states stay in memory: add {S} GB." },
    { value = function(p) return p.S + p.A * math.sqrt(p.L) / p.L end,
      feedback = "Checkpointing keeps √L checkpoints AND one segment of √L layers during the backward pass: 2√L layers' worth." },
    { value = function(p) return p.S + p.A end,
      feedback = "That is the memory without checkpointing." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", p.S + p.A * 2 * math.sqrt(p.L) / p.L) end, score = 1 },
    -- The course's 50-layer model that must go from 32 GB to 16 GB: 8 GB of
    -- model states and 24 GB of activations come down to 14.8 GB.
    { params = { L = 50, S = 8, A = 24 }, answer = "14.8", score = 1 },
    { params = { L = 50, S = 8, A = 24 }, answer = "8 + 24*2*sqrt(50)/50", score = 1 },
    { params = { L = 50, S = 8, A = 24 }, answer = "16", score = 0 },
    { params = { L = 50, S = 8, A = 24 }, answer = "6.79", score = 0 },
    { params = { L = 50, S = 8, A = 24 }, answer = "11.4", score = 0 },
    { "14.8 s", "invalid" },
  },
}

question {
  id = "assessment.checkpoint-overhead",
  kind = "numeric",
  title = "The compute cost of checkpointing (your numbers)",
  prompt = [[
In a training step the backward pass takes {r} times as long as the forward
pass. With gradient checkpointing every segment's forward pass runs once more
during the backward pass. By what percentage does a step get longer?
Give three significant figures.]],
  unit = "%",
  topics = { "checkpointing" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "Count in forward-pass units: a step is 1 + {r} without checkpointing.",
    "Checkpointing adds one forward pass.",
  },
  params = function(rng) return { r = rng:pick({ 1.5, 2, 2.5, 3 }) } end,
  answer = function(p) return 100 / (1 + p.r) end,
  -- Percentage points: +-1 is close enough for an overhead estimate.
  tolerance = { abs = 1 },
  wrong = {
    { value = function(p) return 100 / p.r end,
      feedback = "That compares the extra forward pass with the backward pass alone; the step also contains the original forward pass: 1 / (1 + r)." },
    { value = 100,
      feedback = "Only the forward pass runs twice, not the whole step." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.2f", 100 / (1 + p.r)) end, score = 1 },
    { params = { r = 2 }, answer = "33.3", score = 1 },
    { params = { r = 2 }, answer = "33%", score = 1 },
    { params = { r = 2 }, answer = "100/3", score = 1 },
    { params = { r = 2 }, answer = "50", score = 0 },
    { params = { r = 2 }, answer = "30", score = 0 },
    { params = { r = 2 }, answer = "a third", score = "invalid" },
  },
}

question {
  id = "assessment.mixed-precision-bytes",
  kind = "numeric",
  title = "Bytes of model state per parameter",
  prompt = [[
Adam in mixed precision keeps FP16 weights and gradients, an FP32 master
copy of the weights and two FP32 moment estimates. How many bytes of model
state does it keep per parameter?
Give three significant figures.]],
  unit = "B",
  topics = { "mixed-precision", "training-memory" },
  rubric = { "theory.memory" },
  hints = {
    "FP16 is 2 bytes, FP32 is 4.",
    "2 + 2 + 4 + 4 + 4.",
  },
  answer = 16,
  wrong = {
    { value = 8, feedback = "8 would be the course's '2× memory reduction' from 16, but the FP32 master weights and moments stay: 2 + 2 + 4 + 4 + 4 = 16." },
    { value = 12, feedback = "12 bytes are the FP32 master weights and moments alone; add 2 for the FP16 weights and 2 for the FP16 gradients." },
    { value = 20, feedback = "The gradients are FP16 here (2 bytes), not FP32." },
    { value = 4, feedback = "That counts only the weights. Gradients, the master copy and both Adam moments are kept too." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "16", 1 },
    { "16 B", 1 },
    { "2+2+4+4+4", 1 },
    { "128 bit", 1 },
    { "15", 0 },
    { "8", 0 },
    { "12", 0 },
    { "sixteen", "invalid" },
    { "16 s", "invalid" },
  },
}

question {
  id = "assessment.zero-memory",
  kind = "numeric",
  title = "Model states per GPU under ZeRO (your numbers)",
  prompt = [[
A {n}-billion-parameter model is trained with mixed-precision Adam (16 bytes
of model state per parameter: 2 for FP16 weights, 2 for FP16 gradients, 12
for the FP32 optimizer states) on {N} data-parallel GPUs of 80 GB with
ZeRO stage {stage}. How much model-state memory does each GPU hold?
Give three significant figures.]],
  unit = "GB",
  topics = { "zero", "training-memory" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = {
    "Stage 1 partitions the optimizer states, stage 2 also the gradients, stage 3 also the weights.",
    "Partitioned parts are divided by N; the rest stays whole on every GPU.",
  },
  params = function(rng)
    -- Only set-ups that fit: at most 64 GB of model states on the 80 GB
    -- GPU, the rest left for activations (30 B under ZeRO-1 on 8 GPUs
    -- would need 165 GB: never drawn).
    local p
    repeat
      p = { n = rng:pick({ 1.5, 7.5, 13, 30 }), N = rng:pick({ 8, 16, 64, 256 }),
            stage = rng:int(1, 3) }
    until zero_states(p.n, p.N, p.stage) <= 64
    return p
  end,
  answer = function(p) return zero_states(p.n, p.N, p.stage) end,
  wrong = {
    { value = function(p) return 16 * p.n end,
      feedback = "That is every GPU holding everything (no ZeRO): 16 bytes × parameters." },
    { value = function(p) return p.stage ~= 1 and 4 * p.n + 12 * p.n / p.N or -1 end,
      feedback = "That is stage 1 (optimizer states partitioned only). Stage {stage} partitions more." },
    { value = function(p) return p.stage ~= 2 and 2 * p.n + 14 * p.n / p.N or -1 end,
      feedback = "That is stage 2 (optimizer states and gradients partitioned). Check what stage {stage} partitions." },
    { value = function(p) return p.stage ~= 3 and 16 * p.n / p.N or -1 end,
      feedback = "That is stage 3, where the weights are partitioned too. Stage {stage} keeps a full copy of some states." },
  },
  examples = {
    -- physical limits, checked on every variant of the sweep: at most 64 GB
    { answer = function(p, ctx) return ctx.reference <= 64 and wb.sig(ctx.reference, 6) or "over 64 GB" end, score = 1 },
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p)
        local v = p.stage == 1 and 4 * p.n + 12 * p.n / p.N
               or p.stage == 2 and 2 * p.n + 14 * p.n / p.N or 16 * p.n / p.N
        return string.format("%.5g", v)
      end, score = 1 },
    -- The ZeRO paper's 7.5 B-parameter model on 64 GPUs: 120 GB without ZeRO.
    { params = { n = 7.5, N = 64, stage = 1 }, answer = "31.4", score = 1 },
    { params = { n = 7.5, N = 64, stage = 2 }, answer = "16.6", score = 1 },
    { params = { n = 7.5, N = 64, stage = 3 }, answer = "1.875", score = 1 },
    { params = { n = 7.5, N = 64, stage = 2 }, answer = "31.4", score = 0 },
    { params = { n = 7.5, N = 64, stage = 3 }, answer = "120", score = 0 },
    { params = { n = 7.5, N = 64, stage = 1 }, answer = "30", score = 0 },
    { "lots", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Advanced 1: scheduling a shared GPU cluster

A shared cluster has to answer three questions for every job: *who* goes
next (fairness), *where* it runs (placement), and *how* it is kept from
hurting its neighbours (isolation).

**Fairness with several resources.** Jobs ask for GPUs, CPU cores and
memory in different mixes. **Dominant Resource Fairness** (DRF) looks at each
user's *dominant share*, the largest fraction of any one resource they hold,
and gives the next job to the user whose dominant share is smallest. In
effect it equalises dominant shares. Example: 16 GPUs and 128 cores; team A's
jobs need 2 GPUs + 4 cores (dominant: GPUs, 1/8 of the cluster per job), team
B's need 1 GPU + 16 cores (dominant: cores, also 1/8 per job). DRF gives both
the same number of jobs x, limited by 3x ≤ 16 GPUs: 5 each.

**Gang scheduling.** A distributed job on 64 GPUs is useless on 63: all its
workers must start together or not at all. A scheduler that starts workers
one by one as GPUs free up deadlocks two big jobs that each hold half.

**Placement.** Packing jobs onto GPUs is multi-dimensional bin packing
(NP-hard), solved with heuristics. Put a job's GPUs on as few nodes as
possible (NVLink inside a node is many times faster than the network between
nodes), and leave whole nodes free for big jobs instead of fragmenting them.

**Isolation.** MIG splits an A100/H100 into up to 7 hardware-isolated
instances with their own memory and compute; MPS and time-slicing share a GPU
with weaker isolation. Quotas per team bound how much anyone can hold.

**Preemption.** To meet an SLA for a high-priority job, preempt a
low-priority one, which must therefore checkpoint often enough to lose little
work; backfill idle GPUs with short or preemptible jobs to keep utilisation
high.
]]

question {
  id = "assessment.drf-jobs",
  kind = "numeric",
  title = "Dominant Resource Fairness",
  prompt = [[
A cluster has 16 GPUs and 128 CPU cores. Each of team A's jobs needs
2 GPUs and 4 cores; each of team B's jobs needs 1 GPU and 16 cores. Both
teams have more jobs waiting than fit. With Dominant Resource Fairness, how
many jobs does team A run?
Give a whole number.]],
  topics = { "scheduling", "drf" },
  rubric = { "theory.scheduling" },
  hints = {
    "Team A's dominant resource is GPUs (2/16 per job); team B's is cores (16/128 per job).",
    "Both dominant shares are 1/8 per job, so DRF gives both teams the same number of jobs x. Which resource runs out first?",
  },
  answer = 5,
  -- Jobs are whole: only the exact count is right.
  tolerance = { abs = 0.01 },
  wrong = {
    { value = 8, feedback = "8 jobs would give team A every GPU. DRF equalises the teams' dominant shares." },
    { value = 16 / 3, feedback = "Jobs are whole: 3x ≤ 16 GPUs gives x = 5, not 5.33." },
    { value = 6, feedback = "The cores would allow 6 jobs each (20x ≤ 128), but the GPUs run out first: 3x ≤ 16." },
  },
  examples = {
    { "5", 1 },
    { "5.33", 0 },
    { "6", 0 },
    { "8", 0 },
    { "five", "invalid" },
  },
}

question {
  id = "assessment.scheduler-design",
  kind = "design",
  title = "A multi-tenant GPU scheduler",
  prompt = [[
Design a scheduling policy for a GPU cluster shared by several teams. It
must be fair, keep the cluster busy, run distributed jobs that need many
GPUs at once, isolate tenants from each other and meet the SLAs of
high-priority work. Describe the mechanisms you would use.]],
  points = 6,
  topics = { "scheduling" },
  rubric = { "theory.scheduling", "practice.design", "advanced.integration" },
  hints = {
    "Fairness when jobs ask for different mixes of GPUs, cores and memory has a name.",
    "What must happen to all the workers of a 64-GPU job at start-up?",
  },
  concepts = {
    { name = "fair sharing", points = 2,
      claims = {
        { relation = { "use*", "shar*", "split*", "divid*", "allocat*", "give*", "get*", "enforc*",
                       "apply*", "combin*", "set*", "assign*", "guarantee*" },
          object = { "drf", "dominant resource fairness", "dominant share*", "fair share*", "fair-share",
                     "max-min", "quota*", "fairness", "fairly" } },
        { subject = { "quota*", "drf", "dominant resource fairness", "capacity", "each team", "team*",
                      "fair share*" },
          relation = { "give*", "get*", "ensur*", "guarantee*", "keep*", "split*", "shar*", "divid*",
                       "shared", "prevent*", "stop*" },
          object = { "fair*", "quota*", "drf", "dominant resource fairness", "share*", "starv*" } },
      },
      contradicts = {
        { match = { "first come first served", "first-come first-served", "fcfs" },
          feedback = "You chose first come, first served: one team's queue of big jobs would then starve the others. Fairness needs quotas and DRF." },
      },
      feedback = "Say how resources are shared fairly: per-team quotas and Dominant Resource Fairness over GPUs, cores and memory." },
    { name = "gang scheduling", points = 2,
      claims = {
        { relation = { "use*", "need*", "gang*", "schedul*", "start*", "launch*", "combin*", "requir*",
                       "apply*" },
          object = { "gang", "gang schedul*", "gang-schedul*", "all-or-nothing", "all or nothing",
                     "co-schedul*", "coschedul*", "together", "only when all" } },
        { subject = { "job*", "distributed job*", "worker*", "it", "multi-gpu job*", "64-gpu job" },
          relation = { "gang scheduled", "gang-scheduled", "scheduled", "start*", "launch*", "run*",
                       "is", "are", "begin*", "get*" },
          object = { "together", "gang", "all or none", "or none", "or not at all", "all at once",
                     "only when all", "all-or-nothing", "all or nothing", "are free" } },
        { subject = { "job*", "distributed job*", "worker*", "it" },
          relation = { "gang scheduled", "gang-scheduled", "co-scheduled" } },
        -- "so that a 64-GPU job only starts when all 64 GPUs are free"
        { subject = { "64-gpu job", "distributed job*", "multi-gpu job*", "job*" },
          relation = { "start*", "launch*", "run*", "wait*" },
          object = { "when all", "until all", "all its gpus", "all 64", "are free", "together" } },
        { subject = { "64-gpu job", "64 gpu job" }, relation = { "only starts", "start*", "wait*" } },
      },
      contradicts = {
        { match = { "one at a time", "as gpus free up" },
          feedback = "You started a distributed job's workers one at a time: half-started jobs hold GPUs and can deadlock each other. Start all workers together (gang scheduling)." },
      },
      feedback = "Distributed jobs need gang scheduling: all their workers start together or none do (else two big jobs can deadlock)." },
    { name = "placement", points = 1,
      claims = {
        { relation = { "pack*", "plac*", "put*", "go*", "schedul*", "keep*", "use*", "avoid*", "limit*",
                       "reduc*", "minimi*", "consolidat*", "is", "are" },
          object = { "bin packing", "bin-packing", "packing", "topology*", "nvlink*", "same node",
                     "locality", "fragmentation", "few nodes", "fewest nodes", "as few" } },
        { subject = { "placement", "job's gpus", "gpus", "scheduler", "small jobs", "jobs" },
          relation = { "is", "are", "go*", "pack*", "placed", "packed", "put", "kept", "consider*" },
          object = { "topology*", "bin packing", "nvlink*", "few nodes", "as few", "fragmentation",
                     "locality", "same node", "nodes" } },
      },
      feedback = "Place jobs topology-aware: a job's GPUs on as few NVLink-connected nodes as possible, packing small jobs to avoid fragmentation." },
    { name = "isolation", points = 2,
      claims = {
        { relation = { "isolat*", "separat*", "split*", "slic*", "partition*", "use*", "come*", "give*",
                       "provid*", "keep*" },
          object = { "mig", "multi-instance gpu", "mps", "time-slicing", "time slicing", "cgroups",
                     "namespaces", "isolation", "slices" } },
        { subject = { "mig", "multi-instance gpu", "namespaces", "cgroups", "tenant*", "isolation",
                      "team*" },
          relation = { "isolat*", "separat*", "isolated", "come*", "give*", "provid*", "keep*", "is",
                       "are" },
          object = { "tenant*", "mig", "slices", "namespaces", "cgroups", "apart", "isolat*",
                     "separate*" } },
      },
      feedback = "Isolate tenants: MIG slices for small jobs, separate namespaces/cgroups, and quotas." },
    { name = "preemption with checkpoints", points = 2,
      claims = {
        { relation = { "preempt*", "evict*", "suspend*", "kill*", "checkpoint*", "use*", "allow*" },
          object = { "low-priority*", "low priority", "best-effort", "jobs", "others", "work",
                     "preemption", "checkpoint*", "lower", "the others" } },
        { subject = { "job*", "low-priority job*", "it", "they", "work", "preempted jobs", "which" },
          relation = { "checkpoint", "checkpoints", "checkpointing", "must checkpoint", "lose*", "save*" },
          object = { "regularly", "little", "state", "often", "checkpoint*" } },
        { subject = { "job*", "low-priority job*", "which", "they", "work" },
          relation = { "checkpoint", "checkpoints", "preempted", "evicted" } },
      },
      feedback = "Meet SLAs with preemption of low-priority jobs, which checkpoint regularly so little work is lost." },
    { name = "priorities and SLAs", points = 1,
      claims = {
        { subject = { "priority class*", "priorit*", "high-priority work", "high-priority job*",
                      "sla*", "slo*", "job*" },
          relation = { "map*", "follow*", "tie*", "tied", "get*", "reflect*", "match*", "set*",
                       "preempt*", "decid*" },
          object = { "sla*", "slo*", "priority class*", "deadline*", "priorit*", "what may preempt" } },
        { relation = { "defin*", "us*", "assign*", "give*", "set*", "tie*", "map*", "guarantee*" },
          object = { "priority class*", "priorit*", "sla*", "slo*", "deadline*" } },
      },
      feedback = "Define priority classes tied to SLAs, so the scheduler knows what may preempt what." },
    { name = "utilisation", points = 1,
      claims = {
        { relation = { "backfill*", "fill*", "keep*", "rais*", "improv*", "increas*", "maximi*", "run*",
                       "use*" },
          object = { "backfill*", "utilization", "utilisation", "idle", "gaps", "short jobs",
                     "preemptible jobs" } },
        { subject = { "idle gpus", "gpus", "backfill*", "gaps", "short jobs" },
          relation = { "backfilled", "filled", "keep*", "rais*", "used", "run*", "is", "are" },
          object = { "utilization", "utilisation", "short*", "preemptible", "busy", "high", "up" } },
      },
      contradicts = {
        { match = { "idle gpus are fine", "idle gpus are ok", "idle gpus are acceptable" },
          feedback = "You accepted idle GPUs: they are the budget's main leak. Backfill them with short or preemptible jobs." },
      },
      feedback = "Keep utilisation high: backfill idle GPUs with short or preemptible jobs." },
  },
  model = [[
Each team gets a quota, and capacity above the quotas is shared with
Dominant Resource Fairness over GPUs, CPU cores and memory. Distributed jobs
are gang scheduled: all workers start together or not at all. Placement is
topology-aware bin packing: a job's GPUs on as few NVLink nodes as possible,
small jobs packed to avoid fragmentation. Tenants are isolated with MIG
slices for small work and namespaces with cgroups. Priority classes map to
SLAs; a high-priority job may preempt low-priority ones, which checkpoint
regularly. Idle GPUs are backfilled with short or preemptible jobs to keep
utilization high.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
Each team gets a quota, and capacity beyond the quotas is shared with
Dominant Resource Fairness over GPUs, CPU cores and memory, so a team that
needs mostly GPUs cannot starve one that needs mostly memory. Distributed
jobs are gang scheduled: all their workers start together or none do, which
avoids two large jobs deadlocking on half their GPUs each. Placement is
topology-aware: a job's GPUs go on as few NVLink-connected nodes as
possible, and small jobs are packed to limit fragmentation. Tenants are
isolated with MIG slices for small jobs and with separate namespaces and
cgroups. High-priority work gets a priority class tied to its SLA and may
preempt low-priority jobs, which checkpoint regularly so they lose little.
Idle GPUs are backfilled with short or preemptible jobs to keep utilisation
high.]] },
    { role = "good", score = 1, tol = 0, answer = [[
I would combine per-team quotas with DRF for fairness, and gang scheduling
so that a 64-GPU job only starts when all 64 GPUs are free. The scheduler
packs jobs onto nodes with NVLink locality in mind. MIG and namespaces
isolate the tenants. Priority classes follow the SLAs: a high-priority job
preempts best-effort work, which must checkpoint. Backfilling short jobs
into the gaps keeps the utilization up.]] },
    { role = "partial", score = 4 / 11, tol = 0.2, answer = [[
Use DRF for fairness and gang scheduling for distributed jobs.]] },
    { role = "partial", score = 5 / 11, tol = 0.2, answer = [[
High-priority jobs with an SLA may preempt the others, and the isolation
comes from MIG slices.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
quotas, DRF, fair share, gang scheduling, topology-aware placement, bin
packing, MIG, isolation, preemption, checkpoints, priority classes, SLA,
backfill, utilization]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
First come, first served is the fairest policy, so there are no quotas or
dominant resource fairness. A distributed job can start its workers one at a
time as GPUs free up, without gang scheduling. Placement does not matter,
tenants can share GPUs without any isolation, and jobs are never preempted
because checkpoints are not needed. Priorities are unnecessary and idle GPUs
are fine.]] },
  },
  examples = {
    { answer = [[
Quotas plus DRF for fairness, gang scheduling for multi-GPU jobs, topology-aware
packing on NVLink nodes, MIG for isolation, priority classes for SLAs with
preemption of checkpointed jobs, and backfill to keep utilization up.]],
      -- notes without verbs: the design reader finds one claim in them
      -- (2 of 11); a person would give more
      score = 2 / 11 },
    -- "and gang scheduling for distributed jobs" is read as a verb ("gang")
    -- without an object: fairness only, 2 of 11
    { "Use DRF for fairness and gang scheduling for distributed jobs.", 2 / 11 },
    { "First come, first served.", 0 },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Advanced 2: serving a large language model

The course's challenge: **10,000 queries per second at under 50 ms P99**.
Start from capacity arithmetic, then make each replica as fast as it can be.

**Capacity.** If a replica serves a batch of b requests every t ms, it
handles b / t requests per millisecond. 10,000 QPS needs
⌈10,000 / (1000 b / t)⌉ replicas, plus headroom for bursts and failures.
Little's law says how many requests are in flight: arrival rate × time in
system (10,000/s × 30 ms mean = 300).

**Batching under a deadline.** Batching raises throughput, but a request
waits for its batch. Dynamic batching closes a batch when it is full *or*
when its oldest request has waited a few milliseconds, so the wait plus the
batch's run time stay inside the P99 budget. For LLMs, continuous (in-flight)
batching adds new sequences at every decode step.

**Decode is memory-bound.** At batch 1, producing a token reads every weight
once: a 13 B-parameter model in 8-bit weights reads 13 GB per token, so an
H100 (3350 GB/s) cannot exceed about 258 tokens/s, whatever its FLOP/s.
Quantization (FP16 → INT8 → INT4) cuts those bytes; batching shares each read
of the weights among many sequences; the KV cache (keys and values of every
past token) is the memory that batching then fills.

**The roofline.** A kernel doing I FLOPs per byte of memory traffic reaches
at most min(peak FLOP/s, I × bandwidth). The ridge point, peak / bandwidth,
separates memory-bound from compute-bound kernels: for an A100 80GB SXM,
312 TFLOP/s / 2039 GB/s ≈ 153 FLOP/byte (the 80GB PCIe card has 1935 GB/s,
the 40GB models 1555 GB/s: name the model when you quote a bandwidth).

**Reading the course's GPU table.** It lists "ML performance" of 1979 TFLOPS
(FP16) for the H100 against 312 for the A100. The H100 number assumes 2:4
structured sparsity; its dense FP16 tensor-core peak is about 989 TFLOPS.
The A100 and V100 figures are dense. Compare like with like: dense to dense,
about 3× from A100 to H100, not 6×.
]]

question {
  id = "assessment.roofline",
  kind = "numeric",
  title = "Roofline on an A100 (your numbers)",
  prompt = [[
An A100 80GB SXM peaks at 312 TFLOP/s (FP16 tensor cores) and 2039 GB/s of
memory bandwidth. By the roofline model, what is the most a kernel with an
arithmetic intensity of {ai} FLOP/byte can reach?
Give three significant figures.]],
  unit = "TFLOP/s",
  topics = { "roofline" },
  rubric = { "practice.profiling", "theory.gpu" },
  hints = {
    "Is this kernel limited by compute or by memory? Compare its intensity with the ridge point.",
    "Attainable = min(peak, intensity × bandwidth).",
    "{ai} FLOP/byte × 2039 GB/s = ? TFLOP/s; compare with 312.",
  },
  params = function(rng) return { ai = rng:pick({ 1 / 12, 4, 10, 25, 50, 100, 170.67, 200, 400, 2731 }) } end,
  answer = function(p) return math.min(312, p.ai * 2.039) end,
  wrong = {
    { value = function(p) return p.ai * 2.039 > 312 and p.ai * 2.039 or -1 end,
      feedback = "Past the ridge point (about 153 FLOP/byte) the kernel is compute-bound: it cannot beat the 312 TFLOP/s peak." },
    { value = function(p) return p.ai * 2.039 < 312 and 312 or -1 end,
      feedback = "Below the ridge point the kernel is memory-bound: intensity × bandwidth, not the peak." },
    { value = function(p) return math.min(312, p.ai * 2.039) * 1000 end,
      feedback = "Check the units: {ai} FLOP/byte × 2039 GB/s is {ai} × 2.039 TFLOP/s." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", math.min(312, p.ai * 2.039)) end, score = 1 },
    { params = { ai = 50 }, answer = "102", score = 1 },
    { params = { ai = 50 }, answer = "50*2.039", score = 1 },
    { params = { ai = 50 }, answer = "101950 GFLOP/s", score = 1 },
    { params = { ai = 50 }, answer = "312", score = 0 },
    { params = { ai = 50 }, answer = "110", score = 0 },     -- 8% off
    { params = { ai = 400 }, answer = "312", score = 1 },
    { params = { ai = 400 }, answer = "815.6", score = 0 },
    { "fast", "invalid" },
    { "102 GB/s", "invalid" },
  },
}

question {
  id = "assessment.gpu-table",
  kind = "choice",
  title = "Reading a benchmark table",
  prompt = [[
The course's GPU table lists FP16 "ML performance" of 1979 TFLOPS for the
H100 and 312 TFLOPS for the A100. Why does 1979 / 312 = 6.3 not predict the
H100's speedup on dense FP16 training?]],
  topics = { "benchmarks" },
  rubric = { "advanced.future", "practice.profiling" },
  hints = {
    "Look up what NVIDIA's headline tensor-core figures assume about zeros in the weights.",
  },
  choices = {
    "The A100 figure is for FP32, so the two are in different precisions.",
    "The H100 figure assumes 2:4 structured sparsity; its dense FP16 peak is about half, near 989 TFLOPS.",
    "TFLOPS can never be compared between GPU generations.",
    "The H100 figure includes its memory bandwidth.",
  },
  answer = 2,
  why = {
    [1] = "312 TFLOPS is the A100's dense FP16 tensor-core peak (its FP32 figure is 19.5).",
    [3] = "They can, as long as both are the same kind of peak: dense to dense, same precision.",
    [4] = "FLOP/s and bytes/s are different quantities; a FLOP/s peak never includes bandwidth.",
  },
  examples = {
    { "b", 1 },
    { "B", 1 },
    { "a", 0 },
    { "c", 0 },
    { "f", "invalid" },
  },
}

question {
  id = "assessment.decode-tokens",
  kind = "numeric",
  title = "Memory-bound decoding (your numbers)",
  prompt = [[
At batch size 1, generating each token of a large language model reads every
weight once from GPU memory. A {n}-billion-parameter model stored with
{bits}-bit weights runs on an {gpu} ({bw} GB/s). Ignoring the KV cache and
compute, what is the upper bound on tokens generated per second?
Give three significant figures.]],
  topics = { "inference", "quantization" },
  rubric = { "practice.deployment", "advanced.future" },
  hints = {
    "Generating one token reads every weight once: memory bandwidth, not FLOP/s, sets the pace.",
    "Bytes read per token = {n} × 10^9 × {bits}/8.",
    "Tokens per second = bandwidth / bytes per token.",
  },
  params = function(rng)
    -- Only combinations whose weights fit in 80 GB.
    local combos = {}
    for _, n in ipairs({ 7, 13, 34, 70 }) do
      for _, bits in ipairs({ 16, 8, 4 }) do
        if n * bits / 8 <= 80 and not (n == 13 and bits == 8) then combos[#combos + 1] = { n = n, bits = bits } end
      end
    end
    local c = rng:pick(combos)
    local g = rng:pick({ { name = "H100 80GB SXM", bw = 3350 }, { name = "A100 80GB SXM", bw = 2039 } })
    return { n = c.n, bits = c.bits, gpu = g.name, bw = g.bw }
  end,
  answer = function(p) return p.bw / (p.n * p.bits / 8) end,
  wrong = {
    { value = function(p) return p.bw / (p.n * p.bits) end,
      feedback = "You used bits as bytes: {bits}-bit weights are {bits}/8 bytes each." },
    { value = function(p) return p.bits ~= 16 and p.bw / (p.n * 2) or -1 end,
      feedback = "That is the FP16 figure. The weights here are {bits}-bit: fewer bytes per token, more tokens per second." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.5g", p.bw / (p.n * p.bits / 8)) end, score = 1 },
    -- The page's example: 13 B parameters, INT8, H100.
    { params = { n = 13, bits = 8, gpu = "H100", bw = 3350 }, answer = "257.7", score = 1 },
    { params = { n = 13, bits = 8, gpu = "H100", bw = 3350 }, answer = "3350/13", score = 1 },
    { params = { n = 13, bits = 8, gpu = "H100", bw = 3350 }, answer = "128.8", score = 0 },
    { params = { n = 13, bits = 8, gpu = "H100", bw = 3350 }, answer = "32.2", score = 0 },
    { params = { n = 13, bits = 8, gpu = "H100", bw = 3350 }, answer = "250", score = 0 },
    { "many", "invalid" },
  },
}

question {
  id = "assessment.replicas",
  kind = "numeric",
  title = "Replicas for 10,000 QPS (your numbers)",
  prompt = [[
One replica of a model server runs a batch of {b} requests every {t} ms,
and the batching window plus the batch's run time keep P99 latency under
50 ms. How many replicas are needed to serve 10,000 queries per second
(without headroom)?
Give a whole number.]],
  topics = { "inference", "capacity" },
  rubric = { "practice.deployment", "advanced.cost" },
  hints = {
    "Find how many requests one replica serves per second, then how many replicas the load needs.",
    "One replica serves {b} requests per {t} ms, i.e. {b} × 1000 / {t} per second.",
    "Replicas are whole: round up.",
  },
  params = function(rng)
    -- Pairs whose throughput does not divide 10,000 exactly, so rounding up matters.
    local pairs_ = { { 8, 10 }, { 16, 20 }, { 32, 25 }, { 32, 40 }, { 64, 30 }, { 48, 35 } }
    local c = rng:pick(pairs_)
    return { b = c[1], t = c[2] }
  end,
  answer = function(p) return math.ceil(10000 / (p.b * 1000 / p.t)) end,
  -- A count: only the exact whole number is right.
  tolerance = { abs = 0.01 },
  wrong = {
    { value = function(p) return math.floor(10000 / (p.b * 1000 / p.t)) end,
      feedback = "Rounding down leaves the fleet short of 10,000 QPS: round up." },
    { value = function(p) return 10000 / (p.b * 1000 / p.t) end,
      feedback = "Replicas are whole machines: round up." },
  },
  examples = {
    { answer = function(p) return tostring(math.ceil(10000 / (p.b * 1000 / p.t))) end, score = 1 },
    -- Batches of 32 every 25 ms: 1280 QPS per replica, 7.8 -> 8.
    { params = { b = 32, t = 25 }, answer = "8", score = 1 },
    { params = { b = 32, t = 25 }, answer = "7", score = 0 },
    { params = { b = 32, t = 25 }, answer = "7.8125", score = 0 },
    { params = { b = 32, t = 25 }, answer = "eight", score = "invalid" },
  },
}

question {
  id = "assessment.inference-design",
  kind = "design",
  title = "An LLM serving system",
  prompt = [[
Design an inference service for a large language model that must handle
10,000 queries per second at under 50 ms P99 latency. Cover the
quantization strategy, batching, memory, how many replicas and how they are
balanced and scaled, and how you know the latency target holds.]],
  points = 6,
  topics = { "inference", "quantization", "capacity" },
  rubric = { "practice.deployment", "practice.design", "advanced.cost" },
  hints = {
    "What does a request wait for in a batch, and how do you bound that wait?",
    "What limits a decode step: FLOP/s or bytes?",
  },
  concepts = {
    { name = "batching under a deadline", points = 2,
      -- batching UNDER A DEADLINE: "batch requests" alone does not say it
      claims = {
        { relation = { "use*", "batch*", "combin*", "group*", "run*", "appl*", "adopt*", "do*",
                       "enabl*", "serv*", "handl*" },
          object = { "continuous batching", "dynamic batching", "in-flight batching", "batching window",
                     "max wait", "maximum wait", "batch timeout", "timeout", "deadline", "few ms",
                     "few milliseconds", "short wait", "bounded wait" } },
        { relation = { "clos*", "flush*", "cap*", "bound*", "limit*", "dispatch*", "send*", "ship*" },
          object = { "batch*" , "wait*" } },
        { subject = { "batch*", "continuous batching", "dynamic batching", "in-flight batching",
                      "batching", "requests", "the wait", "a batch" },
          relation = { "clos*", "flush*", "wait*", "keep*", "stay*", "fit*", "bound*", "cap*",
                       "limit*", "meet*", "hold*", "dispatched", "closed", "flushed", "capped",
                       "bounded", "limited" },
          object = { "timeout", "max wait", "maximum wait", "few ms", "few milliseconds",
                     "milliseconds", "budget", "50 ms", "full", "oldest", "latency target",
                     "busy" } },
      },
      contradicts = {
        { match = { "batching only adds latency", "every request runs alone", "no batching" },
          feedback = "You ruled batching out: at 10,000 QPS batching is what makes the GPUs efficient; a short maximum wait keeps it inside the latency budget." },
      },
      feedback = "Batch dynamically with a deadline: close a batch when it is full or its oldest request has waited a few ms (continuous batching for decode)." },
    { name = "quantization", points = 2,
      claims = {
        { relation = { "quantiz*", "quantis*", "convert*", "cast*", "stor*", "us*", "keep*", "go*",
                       "shrink*", "compress*", "reduc*", "serv*", "run*", "load*", "mov*", "choos*" },
          object = { "int8", "int4", "fp8", "8-bit*", "8 bit*", "4-bit*", "4 bit*", "quantiz*",
                     "quantis*" } },
        { subject = { "int8", "int4", "fp8", "quantization", "quantisation", "int8 quantization",
                      "fp8 quantization", "8-bit weights", "quantized weights" },
          relation = { "halv*", "cut*", "reduc*", "shrink*", "rais*", "speed*", "sav*", "give*",
                       "doubl*", "lower*", "fit*", "increas*", "improv*", "boost*", "mak*" },
          object = { "bytes", "memory", "size", "tokens", "throughput", "generation", "bandwidth",
                     "latency", "half", "traffic", "faster", "speed" } },
      },
      contradicts = {
        { match = { "keep fp32", "keep the fp32", "keep fp32 weights" }, patterns = { "quanti%a* always ruins" },
          feedback = "You ruled quantization out: INT8 or FP8 weights, checked against an accuracy budget, are standard for LLM serving." },
      },
      feedback = "Choose a quantization: INT8 (or FP8/INT4) weights, keeping sensitive layers in FP16, checked against an accuracy budget." },
    { name = "memory bandwidth and KV cache", points = 2,
      claims = {
        { subject = { "decod*", "decode step*", "generation", "each step", "every step", "each decode step",
                      "token generation", "inference", "serving", "it" },
          relation = { "memory-bound", "memory bound", "bandwidth-bound", "bandwidth bound" } },
        { subject = { "decod*", "decode step*", "generation", "each step", "every step", "each decode step",
                      "token generation", "inference", "serving", "it" },
          relation = { "limited", "bound", "is", "are", "read*", "stream*", "load*" },
          object = { "memory-bound", "memory bound", "memory bandwidth", "bandwidth", "bandwidth-bound",
                     "every weight", "all the weights", "all weights", "the weights", "weights" } },
        { subject = { "kv cache", "kv-cache", "kv caches", "the cache" },
          relation = { "kept", "managed", "stored", "paged", "lives", "live", "held", "allocated",
                       "split", "is", "are", "sits", "fits", "uses", "takes", "grows", "goes" },
          object = { "pages", "paged", "blocks", "paged attention", "pagedattention", "memory",
                     "paged blocks", "gpu memory", "hbm" } },
        { relation = { "pag*", "manag*", "stor*", "keep*", "alloc*", "us*", "shar*", "reus*", "evict*" },
          object = { "kv cache", "kv-cache", "paged attention", "pagedattention", "kv blocks" } },
      },
      antonyms = { { "memory-bound", "compute-bound" }, { "memory bound", "compute bound" },
                   { "bandwidth", "compute" } },
      contradicts = {
        { match = { "decoding is compute bound", "decode is compute bound", "kv cache is negligible" },
          feedback = "You called decoding compute bound (or the KV cache negligible): each decode step reads every weight, so memory bandwidth limits it, and the KV cache takes much of the memory." },
      },
      feedback = "Say what limits decoding: memory bandwidth (every weight read per step) and the KV cache's memory, managed in pages." },
    { name = "capacity", points = 1,
      claims = {
        { relation = { "add*", "keep*", "leav*", "plan*", "provision*", "reserv*" },
          object = { "headroom", "spare capacity", "30%" } },
        { relation = { "measur*", "divid*", "comput*", "siz*", "calculat*", "estimat*", "round*",
                       "benchmark*", "plan*", "provision*", "deriv*", "work*" },
          object = { "qps per replica", "queries per second", "qps of one replica", "one replica",
                     "per replica", "replica count", "number of replicas", "replicas", "little's law",
                     "littles law", "headroom", "fleet", "capacity" } },
        { subject = { "little's law", "littles law", "qps per replica", "the measured qps",
                      "measured qps", "capacity", "the replica count", "the number of replicas",
                      "10,000 / qps", "each replica", "one replica" },
          relation = { "give*", "determin*", "set*", "is", "are", "tell*", "yield*", "siz*", "serv*",
                       "sustain*", "handl*", "fix*", "decid*" },
          object = { "replica*", "number", "fleet", "capacity", "headroom", "qps", "queries",
                     "ceil", "round*" } },
      },
      contradicts = {
        { match = { "one large replica", "one replica is enough", "a single replica" },
          feedback = "You served 10,000 QPS from one replica: size the fleet from the QPS one replica sustains." },
      },
      feedback = "Size the fleet: QPS per replica from the batch size and batch time, replicas = 10,000 / that, rounded up, plus headroom." },
    { name = "load balancing and autoscaling", points = 2,
      claims = {
        { subject = { "load balancer", "load balancing", "load-balancing", "balancer", "router",
                      "autoscaler", "autoscaling", "auto-scaling", "the autoscaler" },
          relation = { "send*", "rout*", "spread*", "distribut*", "add*", "scal*", "balanc*",
                       "handl*", "pick*", "direct*", "remov*", "grow*", "absorb*", "assign*",
                       "dispatch*" },
          object = { "request*", "replica*", "load", "burst*", "queue*", "traffic", "fewest", "least",
                     "capacity", "spikes", "nodes", "gpus" } },
        { relation = { "balanc*", "rout*", "spread*", "distribut*", "autoscal*", "auto-scal*",
                       "scal*", "add*", "put*", "plac*", "us*" },
          object = { "load balancer", "load balancing", "least outstanding", "fewest outstanding",
                     "autoscal*", "auto-scal*", "queue depth", "behind a load balancer", "replicas out",
                     "horizontal*" } },
        -- the grammar reads "Load balancing ... and autoscaling ... handle bursts"
        -- as the imperative "load" with "balancing ..." its object
        { relation = { "load" }, object = { "balancing", "balanced" } },
        { subject = { "replicas", "requests", "the fleet", "the service" },
          relation = { "autoscal*", "scaled", "balanced", "routed", "spread", "added", "scale*" },
          object = { "queue*", "load", "load balancer", "demand", "latency", "out", "depth" } },
      },
      feedback = "Balance load across replicas (least outstanding requests) and autoscale on queue depth or latency." },
    { name = "tail latency monitoring", points = 1,
      claims = {
        { relation = { "monitor*", "track*", "measur*", "watch*", "alert*", "observ*", "check*",
                       "report*", "graph*", "dashboard*" },
          object = { "p99", "tail latency", "percentile*", "slo", "p99 latency", "tail", "99th" } },
        { subject = { "p99", "the p99", "tail latency", "p99 latency", "percentile*", "99th percentile" },
          relation = { "monitored", "tracked", "measured", "watched", "checked", "alerted", "kept",
                       "graphed", "reported", "compared" },
          object = { "replica", "slo", "dashboard*", "per replica", "target", "50 ms", "alert*" } },
        { subject = { "p99", "the p99", "tail latency", "p99 latency", "percentile*", "99th percentile" },
          relation = { "monitored", "tracked", "measured", "watched", "alerted", "graphed" } },
      },
      feedback = "Measure what you promise: monitor P99 latency per replica and alert on it." },
  },
  model = [[
Quantize the weights to INT8 (FP8 where supported), keeping sensitive layers
in FP16, and check accuracy. Decoding is memory-bound: each step reads every
weight, so fewer bytes per weight and larger batches both raise tokens per
second; the KV cache is managed in pages (paged attention) so many sequences
fit. Use continuous batching with a maximum wait of a few ms so queueing plus
compute stays within the 50 ms budget. Capacity: measure QPS per replica at
that batch size, divide 10,000 by it and round up, plus 30% headroom; a load
balancer sends each request to the replica with the fewest outstanding
requests, and an autoscaler adds replicas on queue depth. Monitoring tracks
P99 latency per replica against the SLO.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
I would quantize the weights to INT8 (FP8 where the GPU supports it), keep
sensitive layers in FP16, and check the accuracy on an evaluation set.
Decoding is memory bound, since every step reads all the weights, so fewer
bytes per weight and larger batches both raise tokens per second; the KV
cache is kept in pages (paged attention) so many sequences fit. Requests are
combined by continuous batching with a maximum wait of a few milliseconds,
so queueing plus compute stays inside the 50 ms budget. For capacity I would
measure the queries per second of one replica at that batch size, divide
10,000 by it, round up and add 30% headroom. A load balancer sends each
request to the replica with the fewest outstanding requests, and an
autoscaler adds replicas when the queue grows. Monitoring tracks the P99
latency of every replica against the SLO.]] },
    -- tol 0.2: the grammar misreads "INT8 quantization halves the bytes each
    -- decode step reads compared with FP16" (decode as its verb), so the
    -- quantization is missed
    { role = "good", score = 1, tol = 0.2, answer = [[
INT8 quantization halves the bytes each decode step reads compared with
FP16, and decode is memory-bound, so it directly speeds up generation; the
KV cache lives in paged blocks. Dynamic batching with a batch timeout of a
few ms keeps the GPUs busy without breaking the deadline. Little's law and
the measured QPS per replica give the number of replicas, plus headroom.
Load balancing on outstanding requests and autoscaling on queue depth handle
bursts, and the P99 is monitored per replica.]] },
    -- terse notes, in the student's own words: at least half
    { role = "terse", score = 1, tol = 0.5, answer = [[
INT8 weights, so decode (memory-bound) reads a quarter of the bytes.
Continuous batching closes each batch after a few ms at most. The KV cache
lives in pages. Replicas: 10,000 QPS over what one replica serves, plus
headroom. A load balancer routes requests to the least busy replica; an
autoscaler adds replicas as the queue grows. We alert on P99.]] },
    { role = "partial", score = 0.2, tol = 0.2, answer = [[
Quantize to INT8 and batch requests.]] },
    { role = "partial", score = 0.5, tol = 0.2, answer = [[
Use continuous batching with a short timeout, and autoscale the replicas
behind a load balancer.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
INT8, FP8, quantization, continuous batching, max wait, KV cache, paged
attention, memory bound, replicas, Little's law, load balancer, autoscaling,
P99, SLO]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Quantization always ruins an LLM, so I would keep FP32 weights. Batching
only adds latency, so every request runs alone. Decoding is compute bound,
not memory bound, and the KV cache is negligible. One large replica is
enough for 10,000 queries per second, so there is no need for a load
balancer or autoscaling, and the average latency is all you need to watch.]] },
  },
  examples = {
    -- Terse notes, each a claim (a comma list of the same terms, with no
    -- verb, reads as a list and earns nothing).
    { answer = [[
Quantize the weights to INT8. Batch continuously with a max wait of a few
ms. Decode is memory-bound, so page the KV cache. Size the replicas from the
measured QPS per replica plus headroom. Balance load across replicas and
autoscale on queue depth. Monitor P99 against the SLO.]], score = 1 },
    -- Quantization only: "batch requests" names no deadline (2 of 10).
    { "Quantize to INT8 and batch requests.", 0.2 },
    { "Buy more GPUs.", 0 },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# The system-design challenge

The course's scenario: a research organisation of **100 researchers in 10
teams**, models from 1 M to 100 B parameters, a mix of training, inference
and experiments, **$2 M a year**, and distributed training on up to **256
GPUs**. Do the arithmetic before drawing boxes.

At $2 per GPU-hour, all costs included, $2 M buys
2,000,000 / (2 × 8760) ≈ **114 GPUs running all year**. So 256 GPUs cannot
be owned or reserved around the clock on this budget: at the same price they
could all run for 2,000,000 / (256 × 2 × 8760) ≈ **45 %** of the year. The
design has to mix a reserved base that stays busy (high utilisation is what
makes owning cheap) with bursts (cloud, spot) for the rare 256-GPU runs, and
it has to schedule well, since idle GPUs are the budget's main leak.

```
 researchers (10 teams)       submit jobs: CLI, notebooks, pipelines
        |
        v
 +-----------------------------+        +----------------------------+
 | scheduler                   |------->| monitoring                 |
 |  quotas per team, DRF       |metrics |  DCGM exporter, Prometheus |
 |  gang scheduling            |        |  dashboards, alerts        |
 |  priorities, preemption     |        |  Nsight for deep dives     |
 +------+---------------+------+        +----------------------------+
        |               |
        v               v
 training pool        shared pool                cloud burst
 8-GPU nodes          MIG slices: notebooks,     spot / on-demand for
 NVLink inside,       small jobs, inference      runs that need 256 GPUs
 InfiniBand between          |                          |
        +--------------------+--------------------------+
                             v
              shared storage: datasets, checkpoints
```

A complete answer covers the five requirements (hardware, scheduling,
multi-tenancy, cost, monitoring) and the deliverables the course asks for: a
diagram like the one above, an allocation policy with its fairness rule, the
cost arithmetic with a utilisation target, and a timeline with its risks
(a pilot first; what if spot capacity is not there on the day of a big run?).
]]

-- The budget arithmetic of the challenge, for any price and fleet size.
calculator {
  id = "assessment.gpu-budget",
  title = "What a compute budget buys",
  inputs = {
    { name = "budget", label = "budget per year", unit = "$", default = 2000000, min = 1, max = 1e12 },
    { name = "price", label = "price per GPU-hour", unit = "$", default = 2, min = 0.01, max = 1000 },
    { name = "gpus", label = "GPUs for the largest run", default = 256, min = 1, max = 1000000, integer = true },
    { name = "util", label = "target utilisation", unit = "%", default = 80, min = 1, max = 100,
      help = "share of the year an owned or reserved GPU is busy" },
  },
  compute = function(v)
    local hours = v.budget / v.price
    local share = hours / (v.gpus * 8760)
    return {
      { label = "GPU-hours per year", value = hours },
      { label = "GPUs busy all year", value = hours / 8760 },
      { label = "GPUs owned at the target utilisation", value = hours / (8760 * v.util / 100) },
      { label = "share of the year the largest run could use", value = 100 * share, unit = "%" },
      { label = "largest run", text = share >= 1 and "affordable all year"
                                       or string.format("%.0f hours of %d GPUs a year", hours / v.gpus, v.gpus) },
    }
  end,
  examples = {
    { inputs = {}, outputs = { 1e6, 1e6 / 8760, 1e6 / (8760 * 0.8), 100 * 1e6 / (256 * 8760),
                               "3906 hours of 256 GPUs a year" } },
  },
}

question {
  id = "assessment.budget-gpus",
  kind = "numeric",
  title = "GPUs a budget keeps busy all year (your numbers)",
  prompt = [[
A research organisation has $2,000,000 a year for compute. A GPU costs
${price} per hour, all costs included. How many GPUs can it run around the
clock for the whole year? (A year has 8760 hours.)
Give three significant figures.]],
  topics = { "cost" },
  rubric = { "advanced.cost" },
  hints = {
    "How many GPU-hours does the budget buy, and how many hours does a year have?",
    "One GPU for a year costs {price} × 8760 dollars.",
  },
  params = function(rng) return { price = rng:pick({ 1, 1.5, 2.5, 3, 4 }) } end,
  answer = function(p) return 2e6 / (p.price * 8760) end,
  wrong = {
    { value = function(p) return 2e6 / (p.price * 24 * 30) end,
      feedback = "You divided by a month's hours; the budget is for a year of 8760 hours." },
    { value = function(p) return 2e6 / (p.price * 365) end,
      feedback = "You divided by days, not hours: a year has 8760 hours." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 2e6 / (p.price * 8760)) end, score = 1 },
    { params = { price = 2 }, answer = "114.2", score = 1 },
    { params = { price = 2 }, answer = "114", score = 1 },    -- whole GPUs: 0.1% off
    { params = { price = 2 }, answer = "2e6/(2*8760)", score = 1 },
    { params = { price = 2 }, answer = "110", score = 0 },
    { params = { price = 2 }, answer = "1389", score = 0 },
    { "many", "invalid" },
    { params = { price = 1 }, answer = "228", score = 1 },   -- the guide's $1 an hour
  },
}

question {
  id = "assessment.budget-burst",
  kind = "numeric",
  title = "How long can 256 GPUs run? (your numbers)",
  prompt = [[
On the same budget of $2,000,000 a year at ${price} per GPU-hour, for what
percentage of the year could all 256 GPUs of the largest training runs be
running at once?
Give three significant figures.]],
  unit = "%",
  topics = { "cost" },
  rubric = { "advanced.cost", "theory.scheduling" },
  hints = {
    "The same budget spread over more GPUs buys fewer hours each.",
    "Hours affordable at 256 GPUs: 2,000,000 / (256 × {price}). Compare with 8760.",
  },
  params = function(rng) return { price = rng:pick({ 1, 1.5, 2, 2.5, 3, 4 }) } end,
  answer = function(p) return 100 * 2e6 / (256 * p.price * 8760) end,
  wrong = {
    { value = function(p) return 2e6 / (256 * p.price * 8760) end,
      feedback = "That is a fraction; the question asks for a percentage (× 100)." },
    { value = function(p) return 2e6 / (256 * p.price) end,
      feedback = "That is the number of hours; as a share of the year divide by 8760." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return string.format("%.4f", 100 * 2e6 / (256 * p.price * 8760)) end, score = 1 },
    { params = { price = 2 }, answer = "44.6", score = 1 },
    { params = { price = 2 }, answer = "44.6%", score = 1 },
    { params = { price = 2 }, answer = "50", score = 0 },
    { params = { price = 2 }, answer = "3906", score = 0 },
    { "half", "invalid" },
  },
}

question {
  id = "assessment.infrastructure-design",
  kind = "design",
  title = "The system-design challenge",
  prompt = [[
Design the ML training infrastructure of the course's scenario: 100
researchers in 10 teams, models from 1 M to 100 B parameters, training,
inference and experiments, $2 M a year, distributed training up to 256 GPUs.
Cover hardware, scheduling and allocation, multi-tenancy and isolation, cost
and utilisation targets, monitoring, and an implementation timeline with its
risks.]],
  points = 8,
  topics = { "system-design", "cost", "scheduling" },
  rubric = { "practice.design", "advanced.integration", "advanced.cost", "theory.scheduling",
             "practice.deployment" },
  hints = {
    "Start with the budget: how many GPUs does $2 M keep busy for a year?",
    "Which of the five requirements have you not written a sentence about?",
  },
  concepts = {
    { name = "hardware", points = 2,
      claims = {
        { relation = { "buy*", "own*", "reserv*", "us*", "choos*", "pick*", "deploy*", "rent*", "get*",
                       "build*", "start*", "run*", "add*", "leas*", "procur*", "install*", "link*",
                       "connect*" },
          object = { "h100*", "a100*", "l40s", "l4", "dgx", "hgx", "8-gpu", "8 gpu", "nvlink",
                     "infiniband" } },
        { subject = { "hardware", "node*", "h100*", "a100*", "cluster", "base", "gpus", "l4*", "l40s",
                      "8-gpu nodes", "each node" },
          relation = { "is", "are", "has", "have", "link*", "connect*", "consist*", "us*", "communicat*",
                       "talk*", "hold*", "carr*", "contain*" },
          object = { "h100*", "a100*", "l40s", "l4", "nvlink", "infiniband", "8-gpu", "dgx", "hgx",
                     "eight" } },
      },
      feedback = "Choose the hardware: e.g. 8-GPU H100/A100 nodes with NVLink inside and InfiniBand between, and cheaper GPUs (L4/L40S) for inference and notebooks." },
    { name = "budget and burst capacity", points = 2,
      claims = {
        { relation = { "burst*", "rent*", "us*", "go*", "spill*", "overflow*", "add*", "buy*", "mix*",
                       "combin*", "turn*" },
          object = { "cloud", "spot", "on-demand", "on demand", "burst*", "rented gpus", "cloud gpus",
                     "reserved base" } },
        { subject = { "$2 m", "$2m", "budget", "2 m", "2m", "the budget", "$2 million", "2 million" },
          relation = { "keep*", "buy*", "pay*", "cover*", "fund*", "afford*", "is", "giv*", "allow*",
                       "run*", "get*", "mean*" },
          object = { "114", "gpu-hours", "gpu hours", "gpus busy", "gpus running", "gpus all year",
                     "roughly", "about", "only" } },
        { subject = { "big runs", "256-gpu runs", "large runs", "256-gpu jobs", "peaks", "bursts",
                      "the big runs", "the rare 256-gpu runs", "big jobs" },
          relation = { "burst*", "go*", "run*", "spill*", "us*", "rent*", "mov*" },
          object = { "cloud", "spot", "on-demand", "on demand" } },
      },
      contradicts = {
        { match = { "buy 256", "budget easily covers", "budget covers 256" },
          feedback = "You had the budget cover 256 GPUs all year: at about $2 per GPU-hour $2 M keeps only ~114 busy, so the big runs must burst." },
      },
      feedback = "Do the cost arithmetic: $2 M keeps only ~114 GPUs busy at $2/GPU-hour, so mix a reserved base with cloud bursts (spot) for 256-GPU runs." },
    { name = "allocation policy", points = 2,
      claims = {
        { relation = { "enforc*", "set*", "giv*", "assign*", "us*", "appl*", "allocat*", "shar*", "split*",
                       "divid*", "impos*", "defin*" },
          object = { "quota*", "per-team quota*", "fair share*", "fair-share", "drf",
                     "dominant resource fairness", "priority class*", "priorities" } },
        { subject = { "every team", "each team", "teams", "quota*", "drf", "capacity above the quotas",
                      "capacity", "the scheduler", "jobs", "slurm", "kubernetes", "kueue",
                      "a slurm cluster" },
          relation = { "has", "have", "shared", "enforc*", "split*", "allocat*", "divid*" },
          object = { "quota*", "drf", "fair share*", "fair-share", "priorit*", "kubernetes", "slurm",
                     "kueue" } },
      },
      feedback = "Give the allocation policy: per-team quotas, fair share (DRF) above them, priorities, on a scheduler such as Slurm or Kubernetes with Kueue." },
    { name = "gang scheduling", points = 1,
      claims = {
        { relation = { "gang*", "schedul*", "start*", "launch*", "us*", "need*", "requir*", "enforc*",
                       "provid*", "support*", "appl*" },
          object = { "gang", "gang schedul*", "gang-schedul*", "all-or-nothing", "all or nothing",
                     "all at once" } },
        { subject = { "job*", "distributed job*", "worker*", "multi-node job*", "256-gpu job*",
                      "all their workers" },
          relation = { "gang scheduled", "gang-scheduled", "start*", "launch*" },
          object = { "together", "all at once", "all-or-nothing", "all or nothing" } },
        { subject = { "job*", "distributed job*", "multi-node job*" },
          relation = { "gang scheduled", "gang-scheduled" } },
      },
      feedback = "Large distributed runs need gang scheduling (all workers at once), with preemption or reservations to free 256 GPUs." },
    { name = "isolation", points = 1,
      claims = {
        { relation = { "isolat*", "separat*", "split*", "slic*", "partition*", "us*", "giv*", "provid*",
                       "keep*", "enforc*" },
          object = { "mig", "mig slices", "namespaces", "isolation", "multi-tenan*", "mps",
                     "time-slicing" } },
        { subject = { "tenants", "teams", "isolation", "multi-tenancy", "each team" },
          relation = { "isolated", "separated", "split", "is", "are", "get*", "run*", "come*", "us*",
                       "keep*", "kept" },
          object = { "namespaces", "mig", "slices", "isolat*", "separate", "apart", "each other" } },
        { subject = { "mig", "mig slices", "namespaces", "slices" },
          relation = { "isolat*", "separat*", "split*", "partition*", "keep*", "fenc*", "protect*" } },
      },
      feedback = "Isolate tenants: MIG slices for notebooks and small jobs, namespaces and quotas per team." },
    { name = "utilisation target", points = 1,
      claims = {
        { relation = { "target*", "aim*", "keep*", "reach*", "rais*", "improv*", "maximi*", "increas*",
                       "hold*", "get*", "push*", "set*" },
          object = { "utilization", "utilisation", "utilized", "utilised", "80%", "80 %" } },
        { subject = { "utilization", "utilisation", "the target", "target", "goal", "the goal" },
          relation = { "is", "stay*", "remain*", "reach*", "exceed*", "sit*" },
          object = { "80%", "80 %", "above", "percent", "utilization", "utilisation" } },
        { relation = { "backfill*", "fill*" },
          object = { "preemptible jobs", "gaps", "idle gpus", "jobs", "idle time" } },
      },
      feedback = "Set a utilisation target (e.g. above 80% of the reserved GPUs) and say how you reach it (backfill, preemptible jobs)." },
    { name = "monitoring", points = 1,
      claims = {
        { relation = { "monitor*", "track*", "collect*", "export*", "scrap*", "watch*", "graph*",
                       "alert*", "feed*", "send*", "profil*", "us*", "measur*" },
          object = { "dcgm", "prometheus", "grafana", "dashboard*", "nsight", "metrics", "monitoring",
                     "idle gpus" } },
        { subject = { "dcgm", "dcgm metrics", "metrics", "monitoring", "prometheus", "grafana",
                      "dashboards", "the exporter" },
          relation = { "go*", "feed*", "flow*", "land*", "show*", "track*", "collect*", "is", "are",
                       "alert*" },
          object = { "prometheus", "grafana", "dashboard*", "team", "alerts", "idle" } },
      },
      feedback = "Monitor the cluster: DCGM metrics into Prometheus/Grafana per team and job, with Nsight profiling for slow jobs." },
    { name = "timeline and risks", points = 1,
      claims = {
        { relation = { "start*", "begin*", "roll*", "pilot*", "phas*", "take*", "finish*", "launch*",
                       "plan*", "mitigat*", "proceed*" },
          object = { "pilot", "phase*", "month*", "timeline", "milestone*", "rollout", "weeks", "risk*" } },
        { subject = { "timeline", "plan", "the plan", "rollout", "risk*", "the main risks", "the risks",
                      "the biggest risk*", "pilot" },
          relation = { "is", "are", "has", "have", "start*", "includ*", "take*", "roll*", "last*" },
          object = { "pilot", "phase*", "month*", "spot capacity", "contention", "overrun*", "capacity",
                     "milestone*", "shortage*", "delay*" } },
      },
      feedback = "Give a timeline (pilot, then phases) and the main risks with their mitigations." },
  },
  model = [[
Budget first: at about $2 per GPU-hour, $2 M keeps only some 114 GPUs busy
all year, so we own or reserve a base of 12 8-GPU H100 nodes, with NVLink
inside and InfiniBand between them, plus a few L40S nodes split with MIG for
notebooks and inference, and burst to cloud spot or on-demand capacity for
the 256-GPU runs. Jobs are scheduled on Kubernetes with Kueue (or Slurm):
every team has a quota, capacity above the quotas is shared by DRF with
priority classes, distributed jobs are gang scheduled, and checkpointed
low-priority work is preempted. Tenants are isolated with namespaces, quotas
and MIG slices. We target utilization above 80% of the reserved GPUs and
backfill preemptible jobs. A DCGM exporter feeds Prometheus and Grafana
dashboards per team, we alert on idle GPUs, and we profile slow jobs with
Nsight. The rollout starts with a pilot for two teams in month 1 and
proceeds in phases to month 4; the main risks are spot capacity on the day
of a big run (we reserve ahead) and queue contention (quotas and
communication).]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
At about $2 per GPU-hour, $2 M keeps only some 114 GPUs busy for a year, so I
would own or reserve a base of 12 nodes with eight H100s each, NVLink inside
and InfiniBand between them, plus a few L40S nodes for inference and
notebooks, and burst to cloud spot capacity for the rare 256-GPU runs. Jobs
go through Kubernetes with Kueue (or Slurm): every team has a quota,
capacity above the quotas is shared by DRF with priority classes, and
distributed jobs are gang scheduled so all their workers start together.
Tenants are isolated with namespaces, quotas and MIG slices. The target is
to keep the reserved GPUs above 80% utilization by backfilling preemptible
jobs. DCGM metrics go into Prometheus and Grafana dashboards per team, with
alerts on idle GPUs. The timeline starts with a pilot for two teams in the
first month and rolls out in phases by month four; the main risks are spot
capacity on the day of a big run and queue contention, handled by
reservations and quotas.]] },
    -- tol 0.2: the grammar reads "..., gang scheduling for multi-node jobs, and
    -- MIG isolation for small experiments" with "gang" as its verb, so gang
    -- scheduling and isolation are missed (2 of 11)
    { role = "good", score = 1, tol = 0.2, answer = [[
The hardware is 8-GPU H100 nodes linked by InfiniBand, with L4 cards for
serving. Since $2M pays for roughly 114 GPUs running all year, the base is
reserved and big runs burst to on-demand cloud GPUs. A Slurm cluster
enforces per-team quotas with fair share, gang scheduling for multi-node
jobs, and MIG isolation for small experiments. We aim for 80% utilisation
and monitor it with DCGM and Prometheus. The plan has three phases with a
pilot first, and the risks are budget overruns and cloud capacity.]] },
    -- terse notes, in the student's own words: at least half
    { role = "terse", score = 1, tol = 0.5, answer = [[
$2M buys about 114 GPUs running all year. Reserve 12 8-GPU H100 nodes with
InfiniBand; burst to cloud spot GPUs for the 256-GPU runs. Kubernetes with
Kueue enforces per-team quotas and DRF. Distributed jobs are gang scheduled.
MIG slices isolate notebooks. We target 80% utilization and backfill idle
GPUs. DCGM feeds Prometheus. Pilot in month 1, then phases; the main risk is
spot capacity.]] },
    { role = "partial", score = 3 / 11, tol = 0.2, answer = [[
Buy H100 GPUs and monitor them with Prometheus.]] },
    { role = "partial", score = 4 / 11, tol = 0.2, answer = [[
Use Kubernetes with per-team quotas and gang scheduling, and isolate the
teams with MIG.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
H100, NVLink, InfiniBand, spot, reserved, cloud burst, quotas, DRF,
Kubernetes, gang scheduling, MIG, utilization, DCGM, Prometheus, timeline,
risks]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
Buy 256 H100 GPUs outright; the budget easily covers them, so there is no
need for cloud bursts. Every team takes GPUs as it needs them with no quotas
or scheduler, and isolation is unnecessary because researchers trust each
other. Utilization does not matter, monitoring is overkill, and the rollout
needs no timeline because nothing can go wrong.]] },
  },
  examples = {
    -- Hardware and monitoring only: 3 of 11.
    { "Buy H100 GPUs and monitor them with Prometheus.", 3 / 11 },
    { "Use the cloud.", 2 / 11 },
    { "Hire more researchers.", 0 },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Where you stand

You have now seen every part of the course's assessment. To see your
standing:

```
warpbench selfassess          # rate yourself, one line per rubric item
warpbench progress            # graded beside self-rated, gap, level,
                              # and which lessons to study next
```

Read the calibration gap item by item. A large positive gap (you rated
yourself above your graded score) on an item is the one to fix first: it is
where you would make confident mistakes. A negative gap means you know more
than you think; answer the questions tagged with that item to prove it.

"What to study next" lists the lessons whose questions hold the most rubric
points you have not earned yet. Going back to a lesson and answering again
counts, within each question's attempt policy (shown with the question):
a question scores its best try times what that try could still earn, so
a later right answer earns less after wrong tries, nothing once the tries
are used up, and nothing after you gave up on the question. An exam
lesson such as this one takes a single answer per question.
]]
