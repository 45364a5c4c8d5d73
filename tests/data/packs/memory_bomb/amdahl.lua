-- Fixture: the params function doubles a string forever on line 10; the
-- memory limit must stop it and name that line.
lesson { id = "amdahl", title = "Amdahl" }
question {
  id = "speedup",
  kind = "numeric",
  prompt = "Speedup for f = {f} on 4 processors?",
  params = function(rng)
    local s = "x"
    while true do s = s .. s end
  end,
  answer = function(p) return wb.amdahl(p.f, 4) end,
}
