lesson {
  id = "basics",
  title = "Basics for the tests",
  topics = { "amdahl" },
  rubric = { "theory.parallel" },
}

page [[
# Speedup
Speedup is the old time divided by the new time.
]]

question {
  id = "speedup",
  kind = "numeric",
  title = "Speedup with f = 0.2, p = 4",
  prompt = "A job is 20% serial. What is its speedup on 4 processors?",
  answer = function() return 1 / (0.2 + 0.8 / 4) end,
  unit = "x",
  wrong = { { value = function() return 1 / (0.8 + 0.2 / 4) end,
              feedback = "You used the parallel fraction where the serial one belongs." } },
  examples = { { "2.5", 1 }, { "1/(0.2+0.8/4)", 1 }, { "3", 0 }, { "abc", "invalid" } },
}

question {
  id = "runtime",
  kind = "numeric",
  prompt = "A 100 s job is 20% serial. How long does it take on 4 processors?",
  answer = 40,
  unit = "s",
  examples = { { "40", 1 }, { "40000 ms", 1 }, { "4 MB", "invalid" } },
}

question {
  id = "variant",
  kind = "numeric",
  prompt = "A job is {f_pct}% serial. What is its speedup on {p} processors?",
  params = function(rng)
    local f = rng:pick({ 0.1, 0.2, 0.25, 0.3 })
    return { f = f, f_pct = f * 100, p = rng:int(2, 16) }
  end,
  answer = function(p) return wb.amdahl(p.f, p.p) end,
  unit = "x",
  examples = {
    { params = { f = 0.2, f_pct = 20, p = 4 }, answer = "2.5", score = 1 },
    { answer = function(p) return string.format("%.4f", wb.amdahl(p.f, p.p)) end, score = 1 },
  },
}

page [[
# Limits
The serial part bounds the speedup.
]]

question {
  id = "bound",
  kind = "choice",
  prompt = "What bounds the speedup of a program with serial fraction f?",
  choices = { "p", "1/f", "f/p" },
  answer = 2,
  examples = { { "b", 1 }, { "a", 0 }, { "z", "invalid" } },
}

question {
  id = "design",
  kind = "design",
  -- A rubric of phrases, as before claims: pack check's attacks beat it
  -- (the words in nonsense frames), so they are reported, not counted.
  attacks = "report",
  prompt = "How would you make a parameter server scale?",
  concepts = {
    { name = "sharding", points = 1, match = { "shard", "partition" },
      feedback = "Split the parameters across several servers." },
    { name = "asynchrony", points = 1, match = { "asynchronous", "async" },
      feedback = "Let workers proceed without a global barrier." },
  },
  examples = { { "shard the keys and go async", 1 }, { "shard the keys", 0.5 }, { "buy a bigger box", 0 } },
}

question {
  id = "order",
  kind = "ordering",
  prompt = "Order these from fastest to slowest access.",
  items = { "register", "L1 cache", "main memory" },
  examples = {
    { order = { 1, 2, 3 }, score = 1 },
    { order = { 3, 2, 1 }, score = 0 },
    { order = { 2, 1, 3 }, score = 1 / 3 },
    { "a a b", "invalid" },
  },
}
