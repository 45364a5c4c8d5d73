-- Fixture: a Lua syntax error. The comma after `kind` is missing; Lua reports
-- it at the next token, on line 7.
lesson { id = "amdahl", title = "Amdahl" }
question {
  id = "speedup",
  kind = "numeric"
  prompt = "Speedup for f = 0.2 on 4 processors?",
  answer = 2.5,
}
