lesson {
  id = "xp",
  title = "Scale a vector",
  topics = { "labs" },
  rubric = { "practice.measure" },
}

page [[
# Scale a vector
Write `void scale(int n, const float *x, float *y)`: y[i] = 2 x[i].
]]

local naive = [[
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
]]

question {
  id = "xp.scale",
  kind = "code",
  title = "Scale a vector",
  points = 4,
  prompt = "Write `void scale(int n, const float *x, float *y)`: y[i] = 2 x[i], n = 262144.",
  code = {
    signature = "void scale(int n, const float *x, float *y)",
    sizes = { n = 262144 },
    inputs = { x = { count = "n", min = -4, max = 4 } },
    outputs = { y = { count = "n" } },
    tolerance = { rel = 1e-6 },
    work = { flops = "n", bytes = "8*n" },
    correct = 0.5,
    bands = { { fraction = 0.05, score = 0.5 }, { fraction = 0.5, score = 1 } },
    reps = 3,
    timeout = 3,
    memory = 64,
    starter = naive,
    reference = naive,
  },
}

-- The same with two threads allowed, for the tricks that need a thread.
question {
  id = "xp.scale-mt",
  kind = "code",
  title = "Scale a vector on two threads",
  points = 4,
  prompt = "As xp.scale, on up to two threads (compiled with -pthread).",
  code = {
    signature = "void scale(int n, const float *x, float *y)",
    sizes = { n = 262144 },
    inputs = { x = { count = "n", min = -4, max = 4 } },
    outputs = { y = { count = "n" } },
    tolerance = { rel = 1e-6 },
    work = { flops = "n", bytes = "8*n" },
    correct = 0.5,
    bands = { { fraction = 0.05, score = 0.5 }, { fraction = 0.5, score = 1 } },
    threads = 2,
    flags = "-pthread",
    reps = 3,
    timeout = 3,
    memory = 64,
    starter = naive,
    reference = naive,
  },
}
