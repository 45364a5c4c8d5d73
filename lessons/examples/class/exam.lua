-- The exam: exam lessons are always sealed in a release. With minutes set the
-- student starts the clock (warpbench exam start exam) and every answer must
-- come before its deadline; the instructor's import checks the times.
lesson { id = "exam", title = "Exam: scaling", exam = { minutes = 30 },
         topics = { "amdahl" }, rubric = { "theory.parallel" } }

page [[
# The exam

Three questions, 30 minutes, one answer each. Your answers are graded by your
instructor after you submit.
]]

question {
  id = "exam.limit",
  kind = "numeric",
  unit = "x",
  prompt = "A job is {f} serial. What is the largest speedup any number of " ..
           "workers can give it?",
  params = function(rng) return { f = rng:pick({ 0.02, 0.04, 0.05, 0.08 }) } end,
  answer = function(p) return 1 / p.f end,
}

question {
  id = "exam.gustafson",
  kind = "multi",
  prompt = "Which of these are true of Gustafson's law?",
  choices = { "the problem grows with the workers", "the serial time stays fixed",
              "it bounds the speedup by 1/f", "the speedup can grow without bound" },
  answer = { 1, 2, 4 },
}

question {
  id = "exam.design",
  kind = "design",
  -- A rubric of phrases, as before claims: pack check's attacks beat it
  -- (the words in nonsense frames), so they are reported, not counted.
  attacks = "report",
  points = 2,
  prompt = "A job is 10% serial and runs on 64 workers. Explain why adding more " ..
           "workers barely helps, and what you would change.",
  concepts = {
    { name = "serial bound", match = { "serial part", "serial fraction", "amdahl" },
      feedback = "Name the part that does not shrink: the serial part." },
    { name = "shrink the serial part", match = { "parallelize the serial", "reduce the serial",
      "shrink the serial", "overlap" },
      feedback = "Say what would help: make the serial part smaller." },
  },
  model = "The serial part bounds the speedup by Amdahl's law: with 10% serial the " ..
          "speedup can never pass 10. To help, I would reduce the serial part, for example by " ..
          "overlapping it with the parallel work.",
}
