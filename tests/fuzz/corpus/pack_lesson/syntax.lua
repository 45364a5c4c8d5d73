lesson { id = "l", title = "L" }
question { id = "q", kind = "numeric", prompt = "?", answer = 1
