lesson {
  id = "speedup",
  title = "Speedup",
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
  prompt = "A job is 20% serial. What is its speedup on 4 processors?",
  answer = function() return 1 / (0.2 + 0.8 / 4) end,
  unit = "x",
  wrong = { { value = function() return 1 / (0.8 + 0.2 / 4) end,
              feedback = "You used the parallel fraction where the serial one belongs." } },
  examples = { { "2.5", 1 }, { "1.18", 0 } },
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
  },
}

question {
  id = "bound",
  kind = "choice",
  prompt = "What bounds the speedup of a program with serial fraction f?",
  choices = { "p", "1/f", "f/p" },
  answer = 2,
  why = { [3] = "f/p shrinks as p grows: it cannot be a bound on speedup." },
  examples = { { "b", 1 }, { "a", 0 } },
}

question {
  id = "design",
  kind = "design",
  -- A rubric of phrases, as before claims: pack check's attacks beat it
  -- (the words in nonsense frames), so they are reported, not counted.
  attacks = "report",
  points = 2,
  prompt = "How would you make a parameter server scale?",
  concepts = {
    { name = "sharding", points = 1, match = { "shard", "partition" },
      feedback = "Split the parameters across several servers." },
    { name = "asynchrony", points = 1, match = { "asynchronous", "async" },
      feedback = "Let workers proceed without a global barrier." },
  },
  examples = { { "We shard the keys across servers and let workers go async.", 1 },
               { "We shard the keys across servers.", 0.5 } },
}
