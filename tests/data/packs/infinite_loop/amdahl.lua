-- Fixture: the params function loops forever on line 9; the instruction
-- (or time) limit must stop it and name that line.
lesson { id = "amdahl", title = "Amdahl" }
question {
  id = "speedup",
  kind = "numeric",
  prompt = "Speedup for f = {f} on 4 processors?",
  params = function(rng)
    while true do end
  end,
  answer = function(p) return wb.amdahl(p.f, 4) end,
}
