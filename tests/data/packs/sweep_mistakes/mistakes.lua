lesson { id = "mistakes", title = "Mistakes", rubric = { "theory.parallel" } }

-- k = 4 has no variant: params fails there.
question {
  id = "params-fails",
  kind = "numeric",
  prompt = "What is {k} + 1?",
  params = function(rng)
    local k = rng:int(1, 6)
    if k == 4 then error("no variant with k = 4") end
    return { k = k }
  end,
  answer = function(p) return p.k + 1 end,
}

-- k = 2 divides by zero: the reference is infinite.
question {
  id = "not-finite",
  kind = "numeric",
  prompt = "What is 1 / ({k} - 2)?",
  params = function(rng) return { k = rng:int(3, 9) == 9 and 2 or rng:int(3, 9) } end,
  answer = function(p) return 1 / (p.k - 2) end,
}

-- The mistake's function forgets to return a value for large k.
question {
  id = "wrong-nil",
  kind = "numeric",
  prompt = "What is 3 times {k}?",
  params = function(rng) return { k = rng:int(1, 10) } end,
  answer = function(p) return 3 * p.k end,
  wrong = {
    { value = function(p) if p.k < 8 then return 2 * p.k end end,
      feedback = "That is twice k." },
  },
}

-- 20% tolerance: adding 1 (the mistake) lands inside it for large k.
question {
  id = "loose-tolerance",
  kind = "numeric",
  prompt = "What is 2 times {k}?",
  params = function(rng) return { k = rng:int(1, 12) } end,
  answer = function(p) return 2 * p.k end,
  tolerance = { rel = 0.2 },
  wrong = {
    { value = function(p) return 2 * p.k + 1 end, feedback = "One too many." },
  },
}

-- For k = 2, k squared (the mistake) is 2 k, the answer.
question {
  id = "wrong-equal",
  kind = "numeric",
  prompt = "What is 2 times {k}?",
  params = function(rng) return { k = rng:int(1, 6) } end,
  answer = function(p) return 2 * p.k end,
  wrong = {
    { value = function(p) return p.k * p.k end, feedback = "That is k squared." },
  },
}

-- A typo in a rubric item: its points would go to an item nobody sees.
question {
  id = "rubric-typo",
  kind = "numeric",
  prompt = "What is 1 + 1?",
  rubric = { "practice.profilng" },
  answer = 2,
}

-- The feedback names {q}, which params never sets.
question {
  id = "feedback-placeholder",
  kind = "numeric",
  prompt = "What is {k} squared?",
  params = function(rng) return { k = rng:int(2, 9) } end,
  answer = function(p) return p.k * p.k end,
  wrong = {
    { value = function(p) return 2 * p.k end, feedback = "At q = {q} that is twice k, not k squared." },
  },
}
