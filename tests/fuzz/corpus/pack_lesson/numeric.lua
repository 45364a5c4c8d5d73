lesson { id = "l", title = "L" }
page [[
# A page
Some *markdown*.
]]
question { id = "q", kind = "numeric", prompt = "f = {f}: speedup on 4?", unit = "x",
  params = function(rng) return { f = rng:uniform(0.1, 0.3) } end,
  answer = function(p) return 1 / (p.f + (1 - p.f) / 4) end,
  tolerance = { rel = 0.02 }, examples = { { "1", 0 } } }
