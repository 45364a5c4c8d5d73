-- Fixture: a misspelled optional field (`tolerence`) on line 4.
lesson { id = "amdahl", title = "Amdahl" }

question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5, tolerence = { rel = 0.05 } }
