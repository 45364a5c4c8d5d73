-- Fixture: the calculator on line 4 returns 1/f with f = 0 (its default),
-- which is infinite: pack check must name amdahl.lua:4 and say so.
lesson { id = "amdahl", title = "Amdahl" }
calculator {
  id = "limit",
  title = "Speedup limit",
  inputs = { { name = "f", label = "serial fraction", default = 0, min = 0, max = 1 } },
  compute = function(v)
    return { { label = "limit 1/f", value = 1 / v.f, unit = "x" } }
  end,
  examples = { { inputs = { f = 0.25 }, outputs = { 4 } } },
}
