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
  version = "0.5.0",
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
