lesson { id = "exam", title = "Exam", exam = { minutes = 30 }, topics = { "amdahl" }, rubric = { "theory.parallel" } }

page [[
# Exam
Thirty minutes. One answer per question.
]]

question {
  id = "exam.ceiling", kind = "numeric", unit = "x",
  prompt = "A job is {f} serial. What is its largest possible speedup? Three significant figures.",
  params = function(rng) return { f = rng:pick({ 0.02, 0.04, 0.08, 0.125 }) } end,
  answer = function(p) return 1 / p.f end,
  hints = { "The parallel part vanishes as p grows." },
  examples = { { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 } },
}

question {
  id = "exam.order", kind = "ordering",
  prompt = "Order from fastest to slowest access:",
  items = { "registers", "L1 cache", "L2 cache", "DRAM" },
  examples = { { order = { 1, 2, 3, 4 }, score = 1 }, { order = { 2, 1, 3, 4 }, score = 2/3 } },
}

calculator {
  id = "exam.ceiling-calc",
  title = "Ceiling",
  inputs = { { name = "f", default = 0.1, min = 0.001, max = 1 } },
  compute = function(v) return { { label = "1/f", value = 1 / v.f, unit = "x" } } end,
}
