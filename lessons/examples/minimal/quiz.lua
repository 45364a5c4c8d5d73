-- quiz.lua: a lesson in exam mode. Each question takes one answer (the
-- pack's policy does not apply: an exam allows one try), and the student
-- sees no score, feedback, hint or solution until they submit the lesson:
--   warpbench exam start quiz     (starts the 10-minute clock)
--   warpbench answer quiz.ceiling 5
--   warpbench exam submit quiz    (score, rubric items, level)
lesson {
  id = "quiz",
  title = "Quiz: speedup",
  rubric = { "theory.parallel" },
  -- exam = true for no time limit; minutes = 10 gives ten minutes from
  -- `exam start`, after which answers are refused and the quiz counts as
  -- submitted.
  exam = { minutes = 10 },
}

page [[
# Quiz

Two questions, one answer each. Your results come when you submit the quiz.
]]

question {
  id = "quiz.ceiling",
  kind = "numeric",
  prompt = "A job is 20% serial. What is the largest speedup any number of processors gives?",
  unit = "x",
  answer = 5,
  examples = { { "5", 1 }, { "1.25", 0 } },
}

question {
  id = "quiz.law",
  kind = "choice",
  prompt = "Which law keeps the run time fixed and lets the problem grow with p?",
  choices = { "Amdahl's law", "Gustafson's law" },
  answer = 2,
  -- In a pack without an exam, this is how one question would ask for a
  -- policy of its own; in an exam it is one try anyway.
  policy = { tries = 1 },
  examples = { { "b", 1 }, { "a", 0 } },
}
