lesson { id = "heavy", title = "Heavy", rubric = { "theory.parallel" } }

-- About 0.7 s of CPU in one library call (a pattern that backtracks over
-- 14,000 characters): under the old 1 s wall-clock limit a busy core made
-- this fail; the time limit is now a CPU-time backstop far above it.
question {
  id = "pattern",
  kind = "text",
  prompt = "Type 'go'.",
  answer = "ok",
  grade = function(answer)
    if answer ~= "go" then return 1, "Nothing to do." end
    local s = ("a"):rep(14000)
    return s:find(".-b") and 0 or 1, "Searched."
  end,
}

-- Many big copies in C: charged to the instruction budget, so it ends at
-- the instruction limit on every machine, busy or not.
question {
  id = "charged",
  kind = "text",
  prompt = "Type 'go'.",
  answer = "ok",
  grade = function(answer)
    if answer ~= "go" then return 1, "Nothing to do." end
    for i = 1, 1e6 do local s = ("x"):rep(1e5) end
    return 1
  end,
}

-- Lua work close to the instruction budget (about 15 of 20 million).
question {
  id = "lua",
  kind = "text",
  prompt = "Type 'go'.",
  answer = "ok",
  grade = function(answer)
    if answer ~= "go" then return 1, "Nothing to do." end
    local x = 0
    for i = 1, 7000000 do x = x + i end
    return 1, "Counted " .. x .. "."
  end,
}
