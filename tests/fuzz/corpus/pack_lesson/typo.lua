lesson { id = "l", title = "L" }
question { id = "q", kind = "numeric", prompt = "?", answer = 1, tolerence = { rel = 0.1 } }
question { id = "q", kind = "numeric", prompt = "?", answer = 2 }
