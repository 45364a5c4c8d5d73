-- Homework: graded = true makes this lesson graded work. In the source (this
-- file) it grades at once, so the instructor can try it; in a release it is
-- sealed: answers are recorded ungraded and the instructor's class import
-- grades them with this file.
lesson { id = "homework", title = "Homework 1: scaling", graded = true,
         topics = { "amdahl" }, rubric = { "theory.parallel" } }

page [[
# Homework 1

Answer each question once you are sure: every answer you record is sent to
your instructor with `warpbench submit`, and each further try costs a part of
the points.
]]

-- A helper that computes the references: the release leaves it out, since
-- no kept code (no params function) uses it.
local function speedup(f, p)
  return 1 / (f + (1 - f) / p)
end

-- A helper params uses: the release keeps it.
local function draw(rng)
  return { serial = rng:pick({ 0.05, 0.1, 0.15, 0.2 }), workers = rng:pick({ 8, 16, 32 }) }
end

question {
  id = "hw.speedup",
  kind = "numeric",
  title = "Speedup on many workers",
  unit = "x",
  points = 2,
  prompt = "A job is {serial} serial. What speedup do {workers} workers give? " ..
           "Give three significant figures.",
  params = function(rng) return draw(rng) end,
  answer = function(p) return speedup(p.serial, p.workers) end,
  tolerance = { rel = 0.005 },
  wrong = { { value = function(p) return p.workers end,
              feedback = "That is the ideal speedup: the serial part does not shrink." } },
  hints = {
    { text = "Which part of the job does not get faster with more workers?", public = true },
    "S = 1 / (f + (1 - f) / p)",
  },
  policy = { tries = 2, penalty = 0.5 },
}

question {
  id = "hw.efficiency",
  kind = "choice",
  title = "Efficiency",
  prompt = "As workers are added to a job with a fixed serial part, its parallel efficiency",
  choices = { "stays at 100%", "falls", "rises", "first rises, then stays" },
  answer = 2,
  why = { [1] = "Only with no serial part at all." },
}

question {
  id = "hw.order",
  kind = "ordering",
  title = "From least to most speedup",
  prompt = "Order these jobs on 16 workers from the least to the most speedup.",
  items = { "half serial", "a quarter serial", "a tenth serial", "a hundredth serial" },
}

question {
  id = "hw.law",
  kind = "text",
  title = "The law",
  prompt = "Whose law bounds the speedup of a fixed-size job by its serial part? (one name)",
  answer = { "amdahl", "amdahl's law" },
}

-- A question graded against the student's own lab run (ctx.lab): in a class
-- the run travels with the submission and the instructor's import grades the
-- answer against it, after checking the run holds together (a GPU figure
-- needs a GPU on the machine it recorded; no bandwidth above its own memcpy).
-- In a sealed lesson, compute the reference in `answer`, not in params: the
-- release keeps params, and the student's Lua would hand them the number.
question {
  id = "hw.stride",
  kind = "numeric",
  title = "Stride 2 on your machine",
  lab = "coalescing",
  prompt = "Your latest coalescing run copied at {copy} GB/s and read every 2nd " ..
           "float at {s2} GB/s. What fraction of the copy bandwidth is that? " ..
           "Give three significant figures.{note}",
  params = function(rng, ctx)
    local p = {}
    local copy = wb.lab.figure(ctx, "copy_gbs") or wb.lab.figure(ctx, "cpu_copy_gbs")
    local s2 = wb.lab.figure(ctx, "stride2_gbs") or wb.lab.figure(ctx, "cpu_stride2_gbs")
    if copy and s2 and copy > 0 then
      -- The figures as the prompt shows them, three significant figures.
      p.copy, p.s2 = tonumber(wb.sig(copy, 3)), tonumber(wb.sig(s2, 3))
    else
      p.note = "\n\n(Run `warpbench lab run coalescing` first: this question uses its figures.)"
    end
    return wb.lab.blanks(p, { "copy", "s2" })
  end,
  answer = function(p)
    if type(p.copy) == "number" then return p.s2 / p.copy end
  end,
  examples = {
    { lab = { summary = { cpu_copy_gbs = 10, cpu_stride2_gbs = 5 } }, answer = "0.5", score = 1 },
    { lab = { summary = { cpu_copy_gbs = 10, cpu_stride2_gbs = 5 } }, answer = "2", score = 0 },
  },
}
