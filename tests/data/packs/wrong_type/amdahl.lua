-- Fixture: `points` is a string on line 4; it must be a number.
lesson { id = "amdahl", title = "Amdahl" }

question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5, points = "two" }
