lesson { id = "l", title = "L", topics = { "t" } }
question { id = "c", kind = "choice", prompt = "?", choices = { "a", "b" }, answer = 2 }
question { id = "m", kind = "multi", prompt = "?", choices = { "a", "b", "c" }, answer = { 1, 3 } }
question { id = "o", kind = "ordering", prompt = "?", items = { "x", "y", "z" } }
question { id = "t", kind = "text", prompt = "?", answer = { "amdahl", "Amdahl's law" } }
question { id = "d", kind = "design", prompt = "Design?", rubric = {
  { concept = "locality", points = 1, patterns = { "cache", "locality" }, feedback = "Locality." } } }
