-- The built-in course pack: ML systems performance.
--
-- It is compiled into the binary and imported on first run; `warpbench pack
-- check lessons/packs/core` runs every question's self-tests.
--
-- Rubric items. Every question names the rubric item(s) it is evidence for, so
-- graded scores roll up to the course's 100-point self-assessment rubric
-- (day5-summary-and-assessment.md). The scheme is "<area>.<item>", one name
-- per line of that rubric, and it is the same in every lesson of this pack:
--
--   theory.gpu            GPU architecture and programming models        /10
--   theory.parallel       distributed training and parallelization       /10
--   theory.memory         memory management and optimization             /10
--   theory.scheduling     resource scheduling and autoscaling            /10
--   practice.profiling    performance profiling and bottleneck analysis  /10
--   practice.optimization optimization technique implementation          /10
--   practice.design       system design and architecture decisions       /10
--   practice.deployment   production deployment considerations           /10
--   advanced.novel        novel optimization strategies                  /5
--   advanced.integration  cross-system integration                       /5
--   advanced.cost         cost-performance trade-off analysis            /5
--   advanced.future       future technology adaptation                   /5
--
-- Numbers in answers: one rule in every lesson (stated on the first page of
-- amdahl.lua and in every numeric prompt as "Give three significant
-- figures."): an answer is right within the question's margin, 1% unless a
-- comment says why not, and a correctly rounded three-figure answer is
-- always inside it. Each numeric question has the self-test "the reference
-- rounded to three significant figures scores 1", run on every variant of
-- the sweep. Whole counts are exact, and a question needing more precision
-- says so in its prompt (paramserver.sgd-step). Graders of several numbers
-- (the Amdahl table, amdahl.limit-pair, inference's dB grader) use the same
-- rule, { rel = 0.01, sig = 3 }.
--
-- Topics are finer and free-form (e.g. "amdahl", "gustafson", "karp-flatt");
-- they group questions inside a lesson, while rubric items group them across
-- the course.

pack {
  id = "warpbench.core",
  title = "ML Systems Performance",
  version = "0.5.2",
  description = [[
The built-in course: how fast parallel and distributed ML systems can go, and
why they do not. Starts with Amdahl's law and scalability; later lessons cover
the memory hierarchy, GPU memory coalescing, MapReduce k-means, parameter
servers and all-reduce.]],
  lessons = {
    "amdahl.lua",
    "lab_amdahl.lua",
    "parallelism.lua",
    "memory.lua",
    "lab_memory.lua",
    "gpu.lua",
    "lab_coalescing.lua",
    "mapreduce.lua",
    "lab_kmeans.lua",
    "paramserver.lua",
    "lab_paramserver.lua",
    "lab_allreduce.lua",
    "lab_cluster.lua",
    "distributed.lua",
    "inference.lua",
    "lab_quantize.lua",
    "lab_serving.lua",
    "frontiers.lua",
    "scheduling.lua",
    "assessment.lua",
  },
}

-- The formula sheet: `warpbench formulas` and F in the terminal UI. Each
-- formula names the lesson page that teaches it and the calculator that
-- computes it (FORMAT.md, "The formula sheet").
formulas {
  { id = "amdahl", name = "Amdahl's law (strong scaling)",
    formula = "S(p) = 1 / (f + (1 - f)/p)        ceiling: 1/f as p grows",
    symbols = "f: serial fraction of the one-processor time; p: processors",
    lesson = "amdahl", page = "Amdahl's law", calculator = "amdahl.laws" },
  { id = "efficiency", name = "Speedup and efficiency",
    formula = "S(p) = T(1) / T(p)        E(p) = S(p) / p",
    symbols = "T(p): time on p processors",
    lesson = "amdahl", page = "Speedup and efficiency", calculator = "amdahl.from-times" },
  { id = "gustafson", name = "Gustafson's law (weak scaling)",
    formula = "S_scaled(p) = p - s (p - 1)",
    symbols = "s: serial share of the parallel run's time; p: processors",
    lesson = "amdahl", page = "Gustafson's law: scaled speedup", calculator = "amdahl.laws" },
  { id = "karp-flatt", name = "Karp-Flatt metric",
    formula = "e(p) = (1/S - 1/p) / (1 - 1/p)",
    symbols = "S: measured speedup on p processors; e: the serial fraction it implies",
    lesson = "amdahl", page = "From a measured speedup back to f", calculator = "amdahl.from-times" },
  { id = "message", name = "Time to send a message",
    formula = "T = alpha + n / B",
    symbols = "alpha: latency per message; n: bytes; B: bandwidth",
    lesson = "parallelism", page = "Shared and distributed memory", calculator = "parallelism.message" },
  { id = "littles-law", name = "Little's law",
    formula = "L = lambda x W",
    symbols = "L: requests in the system; lambda: arrival rate; W: time each spends in it",
    lesson = "inference", page = "Latency and throughput" },
  { id = "roofline", name = "Roofline",
    formula = "attainable FLOP/s = min(peak FLOP/s, AI x bandwidth)     ridge: AI = peak / bandwidth",
    symbols = "AI: arithmetic intensity, FLOP per byte moved from memory",
    lesson = "memory", page = "The roofline model", calculator = "memory.roofline" },
  { id = "coalescing", name = "Coalescing: bytes moved per warp load",
    formula = "moved = 32 B x sectors touched     efficiency = bytes used / bytes moved",
    symbols = "a warp of 32 threads; memory moves 32-byte sectors (4 per 128-byte line)",
    lesson = "gpu", page = "Memory coalescing", calculator = "gpu.coalescing" },
  { id = "occupancy", name = "Occupancy",
    formula = "occupancy = active warps per SM / maximum warps per SM",
    symbols = "active warps: limited by threads, registers and shared memory per block",
    lesson = "gpu", page = "Occupancy", calculator = "gpu.occupancy" },
  { id = "sync-time", name = "Parameter-server sync time",
    formula = "T_comm = 2 x bytes per parameter x parameters / link bandwidth",
    symbols = "push the gradients, pull the weights: twice the model over the link",
    lesson = "paramserver", page = "How long does a sync take?", calculator = "paramserver.sync-time" },
  { id = "ring-allreduce", name = "Ring all-reduce",
    formula = "T_ring = 2 (p - 1) x (alpha + M / (p B))  ~  2 (p - 1)/p x M / B",
    symbols = "p: GPUs; M: message bytes; B: link bandwidth per GPU; alpha: latency per step",
    lesson = "paramserver", page = "All-reduce: ring and tree" },
  { id = "tree-allreduce", name = "Tree all-reduce",
    formula = "T_tree = 2 log2(p) x (alpha + M / B)",
    symbols = "p: GPUs; M: message bytes; B: link bandwidth; alpha: latency per step",
    lesson = "paramserver", page = "All-reduce: ring and tree" },
  { id = "pipeline-bubble", name = "Pipeline bubble",
    formula = "bubble = (p - 1) / (m + p - 1) of the step",
    symbols = "p: pipeline stages; m: micro-batches",
    lesson = "distributed", page = "Pipeline bubbles", calculator = "distributed.pipeline" },
  { id = "training-memory", name = "Training memory (mixed-precision Adam)",
    formula = "model states = 16 bytes x parameters   (ZeRO-3 over N GPUs: 16/N)",
    symbols = "2 (FP16 weights) + 2 (gradients) + 4 (FP32 master) + 8 (Adam moments)",
    lesson = "distributed", page = "ZeRO: stop storing everything N times",
    calculator = "distributed.train-memory" },
  { id = "kv-cache", name = "KV cache",
    formula = "bytes = 2 x layers x KV heads x head_dim x bytes per element x tokens x batch",
    symbols = "2: a key and a value per token and layer",
    lesson = "distributed", page = "The KV cache", calculator = "distributed.kv-cache" },
  { id = "decode", name = "LLM decoding at batch 1",
    formula = "tokens/s <= memory bandwidth / bytes of weights",
    symbols = "every weight is read once per token",
    lesson = "inference", page = "Batching", calculator = "inference.decode" },
  { id = "drf", name = "Dominant Resource Fairness",
    formula = "dominant share = max over resources of (used / capacity)",
    symbols = "DRF gives the next task to the user with the smallest dominant share",
    lesson = "scheduling", page = "Fair shares of several resources: DRF", calculator = "scheduling.drf" },
}
