lesson {
  id = "quiz",
  title = "A short exam",
  exam = true,
  rubric = { "theory.parallel" },
}

page [[
# Exam
One try per question; the results come when you submit.
]]

question {
  id = "quiz.serial",
  kind = "numeric",
  prompt = "A job is 10% serial. Its largest speedup?",
  unit = "x",
  answer = 10,
  hints = { "The ceiling is 1/f." },
  examples = { { "10", 1 } },
}

question {
  id = "quiz.law",
  kind = "choice",
  prompt = "Which law assumes the problem grows with p?",
  choices = { "Amdahl's", "Gustafson's" },
  answer = 2,
  rubric = { "theory.parallel", "advanced.future" },
  examples = { { "b", 1 } },
}
