lesson {
  id = "basics",
  title = "Tries and penalties",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
}

page [[
# Tries
Each question says how many tries it allows and what a wrong try costs.
]]

-- The default for a choice question: 2 tries, only the first earns points.
question {
  id = "pick",
  kind = "choice",
  prompt = "Which law bounds the speedup of a fixed-size job?",
  choices = { "Gustafson's", "Amdahl's", "Moore's" },
  answer = 2,
  examples = { { "b", 1 }, { "a", 0 } },
}

-- Numeric default: 5 tries, 0.1 lost per wrong try; per-student numbers.
question {
  id = "speedup",
  kind = "numeric",
  prompt = "A job is {f} serial. Its speedup on {p} processors?",
  unit = "x",
  params = function(rng) return { f = rng:pick({ 0.1, 0.2, 0.25 }), p = rng:pick({ 2, 4, 8 }) } end,
  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end,
  examples = { { params = { f = 0.2, p = 4 }, answer = "2.5", score = 1 } },
}

-- Its own policy: 3 tries, a third lost per wrong try.
question {
  id = "ceiling",
  kind = "numeric",
  prompt = "A job is 20% serial. Its largest speedup on any number of processors?",
  unit = "x",
  answer = 5,
  policy = { tries = 3, penalty = 1/3 },
  examples = { { "5", 1 }, { "4", 0 } },
}

-- A points list per try.
question {
  id = "efficiency",
  kind = "numeric",
  prompt = "A speedup of 3 on 4 processors: what efficiency, in per cent?",
  unit = "%",
  answer = 75,
  policy = { per_try = { 1, 0.5, 0.25 } },
  examples = { { "75", 1 }, { "0.75", 0 } },
}
