-- Fixture: kind "numerical" on line 4 is not a kind (it is "numeric").
lesson { id = "amdahl", title = "Amdahl" }

question { id = "speedup", kind = "numerical", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5 }
