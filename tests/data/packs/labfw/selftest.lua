lesson {
  id = "selftest",
  title = "Reading a run of the self-test lab",
  topics = { "labs" },
  rubric = { "practice.measure" },
}

page [[
# Your run
Run `warpbench lab run selftest --set workers=2 --set steps=4`, then answer from
your own numbers.
]]

-- Worker w answers w * step at every step, so the total over a complete run
-- is workers*(workers+1)/2 * steps*(steps+1)/2: graded against the run's own
-- figures, so two students with different runs have different answers.
question {
  id = "worker_total",
  kind = "numeric",
  lab = "selftest",
  prompt = "Your run had {workers} workers and completed {steps} steps. "
        .. "What total did the workers report?",
  params = function(rng, ctx)
    if not ctx.lab then return {} end
    return { workers = ctx.lab.params.workers, steps = ctx.lab.summary.steps }
  end,
  answer = function(p, ctx)
    local w, s = ctx.lab.params.workers, ctx.lab.summary.steps
    return w * (w + 1) / 2 * s * (s + 1) / 2
  end,
  tolerance = { abs = 0.5 },
  examples = {
    { lab = { params = { workers = 2 }, summary = { steps = 4 } }, answer = "30", score = 1 },
    { lab = { params = { workers = 2 }, summary = { steps = 4 } }, answer = "18", score = 0 },
  },
}

question {
  id = "samples",
  kind = "numeric",
  lab = "selftest",
  prompt = "How many samples did your run emit in all?",
  answer = function(p, ctx) return ctx.lab.summary.samples end,
  tolerance = { abs = 0.5 },
  examples = {
    { lab = { summary = { samples = 12 } }, answer = "12", score = 1 },
  },
}
