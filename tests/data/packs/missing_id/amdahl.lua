-- Fixture: the question on line 4 has no id.
lesson { id = "amdahl", title = "Amdahl" }

question { kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5 }
