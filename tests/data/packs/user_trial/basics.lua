lesson {
  id = "basics",
  title = "Basics of speedup",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
}

page [[
# Amdahl's law
A job whose serial fraction is f runs at most 1/(f + (1-f)/p) times faster on p workers.
]]

question {
  id = "basics.speedup",
  kind = "numeric",
  title = "Speedup",
  unit = "x",
  prompt = "A job is {f} serial. What speedup do {p} workers give? Three significant figures.",
  params = function(rng) return { f = rng:pick({ 0.05, 0.1, 0.2, 0.25 }), p = rng:pick({ 4, 8, 16 }) } end,
  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end,
  wrong = {
    { value = function(p) return p.p end, feedback = "That is the ideal speedup: the serial part does not shrink." },
  },
  hints = { "Which part does not shrink?", "S = 1/(f + (1-f)/p)" },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "2.5", score = 1 },
    { params = { f = 0.2, p = 4 }, answer = "4", score = 0 },
    { "abc", "invalid" },
  },
}

question {
  id = "basics.law",
  kind = "text",
  title = "Name the law",
  prompt = "Whose law bounds the speedup of a fixed-size job by its serial part?",
  answer = { "Amdahl", "Amdahl's law" },
  patterns = { "^amdahl" },
  examples = { { "Amdahl", 1 }, { "amdahls law", 1 }, { "Gustafson", 0 } },
}

question {
  id = "basics.ceiling",
  kind = "choice",
  title = "The ceiling",
  prompt = "As p grows without bound, the speedup tends to:",
  choices = { "p", "1/f", "f", "infinity" },
  answer = 2,
  why = { [1] = "Only when f = 0.", [4] = "The serial part stays." },
  examples = { { "b", 1 }, { "a", 0 }, { "1/f", 1 } },
}

question {
  id = "basics.gpu-design",
  kind = "design",
  title = "Why GPUs",
  points = 2,
  prompt = "Explain in two or three sentences why a GPU runs a data-parallel kernel faster than a CPU.",
  concepts = {
    { name = "throughput", points = 1,
      claims = { { subject = { "gpu*" }, relation = { "design*", "built", "optimi*", "target*" }, object = { "throughput" } } },
      feedback = "Say what a GPU is built for." },
    { name = "latency hiding", points = 1,
      claims = { { subject = { "gpu*", "it" }, relation = { "hide*" }, object = { "latency" } } },
      feedback = "Say how a GPU copes with slow memory." },
  },
  model = "A GPU is built for throughput: it runs thousands of threads at once. The GPU hides memory latency by switching to another warp that is ready.",
  samples = {
    { answer = "GPUs are designed for throughput with many simple cores. A GPU hides latency by switching between warps when one waits for memory.", score = 1, tol = 0.25, role = "good" },
    { answer = "The GPU is optimised for throughput, not for the latency of one thread. It hides latency by switching warps.", score = 1, tol = 0.25, role = "good" },
    { answer = "GPUs are built for throughput because they have many cores.", score = 0.5, tol = 0.25, role = "partial" },
    { answer = "throughput latency warps switching GPU", score = 0, role = "keywords" },
    { answer = "GPUs are not built for throughput and cannot hide latency.", score = 0, role = "reversed" },
  },
}

question {
  id = "basics.lab-efficiency",
  kind = "numeric",
  title = "Your efficiency",
  prompt = [[
With p = {P} workers your latest amdahl run measured a speedup
of {sP}. What parallel efficiency is that, in per cent?{note}]],
  lab = "amdahl",
  unit = "%",
  params = function(rng, ctx)
    local p = {}
    local P = wb.lab.figure(ctx, "P")
    local s = wb.lab.figure(ctx, "speedup_pmax")
    if ctx.lab and not (P and P >= 2 and s) then
      p.note = "\n\n(Your latest run used one worker. Run `warpbench lab run amdahl --set P=2` first.)"
    elseif P and s then
      p.P, p.sP = math.floor(P + 0.5), wb.round(s, 3)
      p.ref = 100 * p.sP / p.P
    end
    return wb.lab.blanks(p, { "P", "sP" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "%",
      wrong = { { value = function(p) return p.sP / p.P end, feedback = "That is a fraction; the question asks per cent." } },
      explain = function(p) return string.format("%s / %d = %s%%.", wb.sig(p.sP, 4), p.P, wb.sig(p.ref, 3)) end,
    })
  end,
  examples = {
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "89", score = 1 },
    { lab = { summary = { P = 2, speedup_pmax = 1.78 } }, answer = "0.89", score = 0 },
    { lab = { summary = { P = 1, speedup_pmax = 1 } }, answer = "100", score = "invalid" },
    { "89", "invalid" },
  },
}

calculator {
  id = "basics.amdahl",
  title = "Amdahl speedup",
  inputs = {
    { name = "f", label = "serial fraction f", default = 0.1, min = 0, max = 1 },
    { name = "p", label = "workers p", default = 8, min = 1, max = 100000, integer = true },
  },
  compute = function(v)
    return { { label = "speedup S(p)", value = 1 / (v.f + (1 - v.f) / v.p), unit = "x" } }
  end,
  examples = { { inputs = { f = 0.2, p = 4 }, outputs = { 2.5 } } },
}
