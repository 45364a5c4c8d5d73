-- Fixture: the question on line 5 reuses the id of the one on line 4.
lesson { id = "amdahl", title = "Amdahl" }

question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5 }
question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.1 on 4 processors?", answer = 1 / 0.325 }
