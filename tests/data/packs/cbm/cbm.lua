lesson {
  id = "cbm",
  title = "Marked by certainty",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
}

page [[
# Certainty
State how sure you are with each answer: 1 (unsure), 2 (fairly sure) or
3 (quite sure). Right answers score 1, 2 or 3 times the points; wrong ones
0, -2 or -6 times.
]]

question {
  id = "ceiling",
  kind = "numeric",
  title = "Amdahl's ceiling",
  prompt = "A job is 20% serial. What is the largest speedup any number of processors gives?",
  points = 2,
  unit = "x",
  answer = 5,
  examples = { { "5", 1 }, { "4", 0 }, { "five", "invalid" } },
}

question {
  id = "pick",
  kind = "multi",
  title = "Which are true?",
  prompt = "Which statements are true?",
  rubric = { "theory.parallel", "advanced.future" },
  choices = { "Speedup is T(1)/T(p).", "Efficiency is T(p)/T(1).", "Amdahl's law is an upper bound." },
  answer = { 1, 3 },
  examples = { { "a c", 1 }, { "a", 0.5 }, { "b", 0 }, { "z", "invalid" } },
}
