lesson {
  id = "timed",
  title = "A timed exam",
  exam = { minutes = 0.02 },
}

page [[
# Timed
You have a little more than a second.
]]

question {
  id = "timed.one",
  kind = "numeric",
  prompt = "1 + 1?",
  answer = 2,
  examples = { { "2", 1 } },
}
