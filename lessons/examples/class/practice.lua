-- Practice: graded at once on the student's machine, for learning. It is
-- not sealed, so a student may read all of it; the release keeps it whole.
lesson { id = "practice", title = "Practice: speedup", topics = { "amdahl" },
         rubric = { "theory.parallel" } }

page [[
# Amdahl's law

A program whose serial fraction is f runs on p processors at most
1 / (f + (1 - f) / p) times as fast as on one.
]]

question {
  id = "practice.speedup",
  kind = "numeric",
  unit = "x",
  prompt = "A program is {f} serial. What speedup can p = {p} processors give?",
  params = function(rng) return { f = rng:pick({ 0.1, 0.2, 0.25 }), p = rng:pick({ 4, 8 }) } end,
  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end,
  hints = { "Which part does not get faster?", "1 / (f + (1 - f) / p)" },
  examples = { { params = { f = 0.2, p = 4 }, answer = "2.5", score = 1 } },
}

-- This calculator computes what the homework asks from the same numbers:
-- `pack release` leaves it out of the release (it says so), and
-- `pack check --release` would refuse a release that kept it.
calculator {
  id = "practice.speedup-calc",
  title = "Amdahl speedup",
  inputs = {
    { name = "serial", label = "serial fraction", default = 0.1, min = 0, max = 1 },
    { name = "workers", label = "processors", default = 4, min = 1, max = 4096, integer = true },
  },
  compute = function(v)
    return { { label = "speedup", value = 1 / (v.serial + (1 - v.serial) / v.workers), unit = "x" } }
  end,
}
