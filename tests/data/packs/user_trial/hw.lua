lesson { id = "hw", title = "Homework 1", graded = true, topics = { "amdahl" }, rubric = { "theory.parallel" } }

page [[
# Homework
Answer each question once you have read the basics lesson.
]]

question {
  id = "hw.speedup", kind = "numeric", unit = "x", points = 2,
  prompt = "A job is {f} serial. What speedup do {p} workers give? Three significant figures.",
  params = function(rng) return { f = rng:pick({ 0.05, 0.1, 0.15 }), p = rng:pick({ 8, 16, 32 }) } end,
  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end,
  hints = { { text = "Which part does not shrink?", public = true }, "S = 1/(f + (1-f)/p)" },
  policy = { tries = 2, penalty = 0.5 },
  examples = { { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 } },
}

question {
  id = "hw.gustafson", kind = "text",
  prompt = "Whose law describes scaled speedup, where the problem grows with p?",
  answer = { "Gustafson", "Gustafson's law" },
  examples = { { "Gustafson", 1 }, { "Amdahl", 0 } },
}

question {
  id = "hw.karp", kind = "choice",
  prompt = "Which metric estimates the serial fraction from a measured speedup?",
  choices = { "Karp-Flatt", "Little's law", "Roofline", "Bisection bandwidth" },
  answer = 1,
  examples = { { "a", 1 }, { "c", 0 } },
}

question {
  id = "hw.overlap-design", kind = "design", points = 2,
  prompt = "Explain how overlapping communication with computation speeds up data-parallel training.",
  concepts = {
    { name = "overlap", points = 1,
      claims = { { subject = { "communication", "all-reduce" }, relation = { "overlap*", "run*", "proceed*" }, object = { "computation", "backward*", "compute" } } },
      feedback = "Say what runs at the same time as what." },
    { name = "hidden time", points = 1,
      claims = { { subject = { "overlap*", "it", "this" }, relation = { "hide*", "remov*", "reduc*" }, object = { "communication time", "communication", "wait*", "idle" } } },
      feedback = "Say what the overlap saves." },
  },
  model = "Gradient communication of one layer overlaps the backward computation of the layers before it. This overlap hides the communication time behind the computation.",
  samples = {
    { answer = "Gradient communication overlaps with the backward computation of earlier layers. This hides communication time, so workers do not wait.", score = 1, role = "good" },
    { answer = "Communication runs during the backward pass. The overlap hides most of the communication.", score = 1, role = "good" },
    { answer = "Communication overlaps with computation.", score = 0.5, role = "partial" },
    { answer = "overlap communication computation hide time", score = 0, role = "keywords" },
    { answer = "Communication never overlaps computation, and the overlap cannot hide any communication time.", score = 0, role = "reversed" },
  },
}
