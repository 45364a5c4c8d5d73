-- Fixture: this lesson is fine; pack.lua also lists a file that is missing.
lesson { id = "amdahl", title = "Amdahl" }

question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5 }
