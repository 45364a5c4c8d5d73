lesson {
  id = "lab",
  title = "Reading your self-test run",
  topics = { "labs" },
  rubric = { "practice.measure" },
}

page [[
# Your run
Run `warpbench lab run selftest --set workers=2 --set steps=4 --set interval_ms=0`.
]]

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
  },
}
