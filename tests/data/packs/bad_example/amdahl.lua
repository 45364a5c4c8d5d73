-- Fixture: the second example expects 1 for "4", which scores 0 (linear
-- speedup, not Amdahl's). pack check reports the question's line, 4.
lesson { id = "amdahl", title = "Amdahl" }
question {
  id = "speedup",
  kind = "numeric",
  prompt = "Speedup for f = 0.2 on 4 processors?",
  answer = 2.5,
  examples = {
    { "2.5", 1 },
    { "4", 1 },
  },
}
