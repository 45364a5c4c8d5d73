-- Lesson: scheduling GPU clusters.
--
-- Facts come from the course material: day5-summary-and-assessment.md
-- ("Resource Scheduling and Autoscaling": multi-dimensional bin packing,
-- gang scheduling, Dominant Resource Fairness, predictive vs reactive
-- autoscaling, cost models, spot instances, isolation by time, space and
-- memory; advanced question 5 on multi-tenant scheduling with MIG, preemption
-- and checkpointing; the 10,000 QPS serving target) and
-- gpu-ml-training-inference-guide.md section 8 (GPUs as whole, typed,
-- topology-bound resources; fragmentation, fair sharing, preemption; temporal
-- and spatial sharing with MPS; gang scheduling; autoscaling on queue length,
-- provisioning delay and cost; the checkpoint-frequency cost model
-- T_total = T_compute + T_checkpoint + T_recovery × P_failure). The text and
-- the worked examples are ours: the material names these methods but works
-- no numbers for them (the assessment lesson's DRF question is the one
-- example elsewhere in the pack).
--
-- Precisions taught here:
--   * DRF as published stops when the user with the lowest dominant share
--     cannot fit another task. Schedulers keep going with the users that
--     still fit (otherwise the leftover sits idle); the calculator and the
--     questions use that rule and the page says so.
--   * The guide's checkpoint formula leaves P_failure and T_recovery open.
--     With failures (or preemptions) at random, a failure loses on average
--     half an interval; minimising checkpoint cost plus lost work gives the
--     interval sqrt(2 × C × M) (C: time to write a checkpoint, M: mean time
--     between failures), Young's approximation.
--   * MIG on an A100 80GB makes at most 7 instances (1g.10gb): memory alone
--     would suggest 8 slices of 10 GB, but the GPU has 7 compute slices.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not; counts (jobs, nodes, replicas, GPUs) are exact (abs = 0.01).
-- Prompts contain no braces except params placeholders.

lesson {
  id = "scheduling",
  title = "Scheduling GPU clusters",
  topics = { "scheduling" },
  rubric = { "theory.scheduling" },
}

local COUNT = { abs = 0.01 }   -- whole jobs, nodes, GPUs, replicas

local function num(x) return string.format("%.6g", x) end

-- Dominant Resource Fairness by progressive filling. cap: the cluster's
-- amount of each resource; dem[i]: user i's demand per task (same order).
-- Each step gives one task to the user with the lowest dominant share whose
-- next task still fits (ties: the user listed first); a user whose task no
-- longer fits is skipped, and filling stops when no task fits. A user whose
-- demand is all zero takes no part. Returns tasks, dominant shares, the
-- amount used of each resource and the order of the allocations.
local function drf(cap, dem)
  local n, m = #dem, #cap
  local used, tasks, share, per, order = {}, {}, {}, {}, {}
  for r = 1, m do used[r] = 0 end
  for i = 1, n do
    tasks[i], share[i] = 0, 0
    local s = 0
    for r = 1, m do
      if dem[i][r] > 0 then
        s = math.max(s, cap[r] > 0 and dem[i][r] / cap[r] or math.huge)
      end
    end
    per[i] = s
  end
  for _ = 1, 100000 do
    local best
    for i = 1, n do
      if per[i] > 0 and per[i] < math.huge then
        local fits = true
        for r = 1, m do
          if used[r] + dem[i][r] > cap[r] + 1e-9 then fits = false break end
        end
        if fits and (not best or share[i] < share[best] - 1e-12) then best = i end
      end
    end
    if not best then break end
    for r = 1, m do used[r] = used[r] + dem[best][r] end
    tasks[best] = tasks[best] + 1
    share[best] = tasks[best] * per[best]
    order[#order + 1] = best
  end
  return tasks, share, used, order
end

-- The tasks each user gets when every user receives 1/n of every resource
-- (a static partition): what DRF is compared with.
local function static_split(cap, dem)
  local n, out = #dem, {}
  for i = 1, n do
    local t = math.huge
    for r = 1, #cap do
      if dem[i][r] > 0 then t = math.min(t, math.floor(cap[r] / n / dem[i][r] + 1e-9)) end
    end
    out[i] = t == math.huge and 0 or t
  end
  return out
end

------------------------------------------------------------------------------
page [[
# What a cluster scheduler decides

A shared GPU cluster runs many teams' jobs on a few hundred GPUs. For every
job waiting in the queue the scheduler answers three questions:

- **who goes next**: fairness between teams, priorities, deadlines;
- **where it runs**: which nodes and which GPUs (placement);
- **how neighbours are kept apart**: isolation and quotas.

GPUs make all three harder than CPUs do:

- A GPU is handed out **whole** (a pod asks for 1, 2, 8 GPUs, not 0.3 of
  one) unless the cluster splits it on purpose (MIG, later).
- GPUs come in **types** (A100, H100, a gaming card) and a job may need one.
- A GPU's **memory and compute come together**: a job that needs 60 GB of
  memory takes the whole 80 GB card even if it computes little.
- **Topology** matters: eight GPUs in one node talk over NVLink at hundreds
  of GB/s, two nodes over the network at a few tens. A tensor-parallel job
  split across nodes runs many times slower.

A job asks for a *vector* of resources, for example 4 GPUs, 16 CPU cores and
128 GB of host memory. Packing such vectors onto nodes is
**multi-dimensional bin packing**, an NP-hard problem: real schedulers use
quick heuristics and accept a near-best packing. Fairness has to be defined
over vectors too: next page.
]]

------------------------------------------------------------------------------
page [[
# Fair shares of several resources: DRF

With one resource, fairness is simple: **max-min fairness** gives every user
an equal share, and what one user does not need goes to the others. With
several resources, which share should be equal? Users need them in different
mixes: a training team is GPU-hungry, a data team CPU-hungry.

**Dominant Resource Fairness** (DRF) answers: a user's **dominant share** is
the largest fraction of any one resource they hold. DRF equalises dominant
shares: it keeps giving the next task to the user whose dominant share is
lowest. When that user's next task does not fit, schedulers move on to the
next user whose task still fits (the leftover would otherwise sit idle) and
stop when no task fits.

## Worked example

A cluster of 24 GPUs, 192 CPU cores and 1536 GB of memory. Each of team A's
jobs needs 4 GPUs, 16 cores and 128 GB; each of team B's needs 1 GPU,
32 cores and 64 GB.

| per job | GPUs       | cores         | memory          | dominant   |
|---------|------------|---------------|-----------------|------------|
| team A  | 4/24 = 1/6 | 16/192 = 1/12 | 128/1536 = 1/12 | GPUs, 1/6  |
| team B  | 1/24       | 32/192 = 1/6  | 64/1536 = 1/24  | cores, 1/6 |

Both dominant shares grow by 1/6 per job, so DRF alternates A, B, A, B, ...
and both teams get the same number of jobs x. Which resource runs out first?

- GPUs: 4x + 1x = 5x ≤ 24, so x ≤ 4.8;
- cores: 16x + 32x = 48x ≤ 192, so x ≤ 4;
- memory: 128x + 64x = 192x ≤ 1536, so x ≤ 8.

The cores decide: **4 jobs each**, both dominant shares 4/6 = 2/3. The cores
are all in use, and **4 of the 24 GPUs stay idle**: no job of either team
fits without cores. (A static split, half of every resource to each team,
would give A min(12/4, 96/16, 768/128) = 3 jobs and B
min(12/1, 96/32, 768/64) = 3 jobs: DRF does better for both.)

DRF has the properties that make teams accept it: no team does worse than
with its 1/n slice of everything (*sharing incentive*), no team gains by
asking for more than it needs (*strategy-proofness*), and no team would
rather have another's allocation (*envy-freeness*). What it does not promise
is full use of every resource: the idle GPUs above are the price of a fair
split of the cores.
]]

calculator {
  id = "scheduling.drf",
  title = "Dominant Resource Fairness",
  inputs = {
    { name = "gpus", label = "cluster GPUs", default = 24, min = 0, max = 100000, integer = true },
    { name = "cores", label = "cluster CPU cores", default = 192, min = 0, max = 10000000, integer = true },
    { name = "mem", label = "cluster memory", default = 1536, min = 0, max = 1e9, unit = "GB" },
    { name = "ag", label = "team A: GPUs per job", default = 4, min = 0, max = 1024, integer = true },
    { name = "ac", label = "team A: cores per job", default = 16, min = 0, max = 100000, integer = true },
    { name = "am", label = "team A: memory per job", default = 128, min = 0, max = 1e6, unit = "GB" },
    { name = "bg", label = "team B: GPUs per job", default = 1, min = 0, max = 1024, integer = true },
    { name = "bc", label = "team B: cores per job", default = 32, min = 0, max = 100000, integer = true },
    { name = "bm", label = "team B: memory per job", default = 64, min = 0, max = 1e6, unit = "GB" },
    { name = "cg", label = "team C: GPUs per job", default = 0, min = 0, max = 1024, integer = true,
      help = "leave team C at 0, 0, 0 for two teams" },
    { name = "cc", label = "team C: cores per job", default = 0, min = 0, max = 100000, integer = true },
    { name = "cm", label = "team C: memory per job", default = 0, min = 0, max = 1e6, unit = "GB" },
  },
  compute = function(v)
    local cap = { v.gpus, v.cores, v.mem }
    local dem = { { v.ag, v.ac, v.am }, { v.bg, v.bc, v.bm }, { v.cg, v.cc, v.cm } }
    local names = { "A", "B", "C" }
    local rnames = { "GPUs", "cores", "memory" }
    local tasks, share, used, order = drf(cap, dem)
    local out = {}
    for i = 1, 3 do
      local absent = dem[i][1] == 0 and dem[i][2] == 0 and dem[i][3] == 0
      if absent then
        if i < 3 then out[#out + 1] = { label = "team " .. names[i], text = "no demand: takes no part" } end
      else
        local dom, dr = 0, "none"
        for r = 1, 3 do
          if dem[i][r] > 0 and cap[r] > 0 and dem[i][r] / cap[r] > dom then
            dom, dr = dem[i][r] / cap[r], rnames[r]
          end
        end
        out[#out + 1] = { label = "team " .. names[i] .. ": jobs", value = tasks[i] }
        out[#out + 1] = { label = "team " .. names[i] .. ": dominant share (" .. dr .. ")",
                          value = 100 * share[i], unit = "%" }
      end
    end
    out[#out + 1] = { label = "idle GPUs", value = v.gpus - used[1] }
    out[#out + 1] = { label = "idle cores", value = v.cores - used[2] }
    out[#out + 1] = { label = "idle memory", value = v.mem - used[3], unit = "GB" }
    -- The order of the allocations, 60 at most.
    local seq = {}
    for k = 1, math.min(#order, 60) do seq[k] = names[order[k]] end
    local text = #order == 0 and "no job fits" or table.concat(seq, " ")
    if #order > 60 then text = text .. string.format(" ... (%d jobs in all)", #order) end
    out[#out + 1] = { label = "order of allocation", text = text }
    return out
  end,
  examples = {
    -- The page's worked example: 4 jobs each, dominant shares 2/3, 4 idle
    -- GPUs, every core taken.
    { inputs = {}, outputs = { 4, 200 / 3, 4, 200 / 3, 4, 0, 768, "A B A B A B A B" } },
    -- The assessment's example (16 GPUs, 128 cores; A 2 + 4, B 1 + 16): A
    -- stops at 5, and B fits a sixth job into the leftover.
    { inputs = { gpus = 16, cores = 128, mem = 0, ag = 2, ac = 4, am = 0, bg = 1, bc = 16, bm = 0 },
      outputs = { 5, 62.5, 6, 75, 0, 12, 0, "A B A B A B A B A B B" } },
    -- Three teams: C's jobs (2 GPUs, 8 cores, 256 GB) are memory-bound; all
    -- three get 3 jobs, then no fourth job of anyone fits.
    { inputs = { cg = 2, cc = 8, cm = 256 },
      outputs = { 3, 50, 3, 50, 3, 50, 3, 24, 192, "A B C A B C A B C" } },
  },
}

question {
  id = "scheduling.drf-worked",
  kind = "numeric",
  title = "DRF: jobs per team (the worked example)",
  prompt = [[
A cluster has 24 GPUs, 192 CPU cores and 1536 GB of memory. Each of team A's
jobs needs 4 GPUs, 16 cores and 128 GB; each of team B's jobs needs 1 GPU,
32 cores and 64 GB. Both teams have more jobs waiting than fit. Under
Dominant Resource Fairness, how many jobs does team A run?
Give a whole number.]],
  topics = { "scheduling", "drf" },
  hints = {
    "Team A's dominant resource is GPUs (4/24 per job); team B's is cores (32/192 per job).",
    "Both dominant shares grow by 1/6 per job, so both teams get the same number of jobs x.",
    "Check each resource: 5x ≤ 24 GPUs, 48x ≤ 192 cores, 192x ≤ 1536 GB. The smallest bound wins.",
  },
  answer = 4,
  tolerance = COUNT,
  wrong = {
    { value = 4.8, feedback = "4.8 is the GPU bound (5x ≤ 24), but jobs are whole and the cores run out first: 48x ≤ 192." },
    { value = 3, feedback = "3 is what a static split (half of every resource per team) gives. DRF lets team A use GPUs team B does not need." },
    { value = 6, feedback = "6 jobs would give team A every GPU it can use while B still waits. DRF equalises the dominant shares." },
    { value = 8, feedback = "8 is the memory bound. Check the cores: 16 per A job plus 32 per B job." },
  },
  examples = {
    { "4", 1 },
    { "4.0", 1 },
    { "4.8", 0 },
    { "3", 0 },
    { "5", 0 },
    { "four", "invalid" },
  },
}

question {
  id = "scheduling.drf-idle-worked",
  kind = "numeric",
  title = "DRF: what stays idle (the worked example)",
  prompt = [[
In the same cluster (24 GPUs, 192 cores, 1536 GB), DRF has given team A
(4 GPUs, 16 cores, 128 GB per job) and team B (1 GPU, 32 cores, 64 GB per
job) all the jobs that fit. How many GPUs stay idle?
Give a whole number.]],
  topics = { "scheduling", "drf", "utilization" },
  rubric = { "theory.scheduling", "advanced.cost" },
  hints = {
    "Both teams run 4 jobs: the cores are then all taken.",
    "GPUs in use: 4 × 4 + 4 × 1.",
  },
  answer = 4,
  tolerance = COUNT,
  wrong = {
    { value = 0, feedback = "Every core is taken after 4 jobs each (4 × 16 + 4 × 32 = 192), so no further job starts: count the GPUs in use, 4 × 4 + 4 × 1." },
    { value = 20, feedback = "20 GPUs are in use; the question asks how many of the 24 are idle." },
    { value = 8, feedback = "Team A's 4 jobs hold 16 GPUs and team B's 4 jobs hold 4: 20 in use." },
  },
  examples = {
    { "4", 1 },
    { "4 GPUs", "invalid" },   -- a count has no unit
    { "0", 0 },
    { "20", 0 },
  },
}

question {
  id = "scheduling.dominant-share",
  kind = "numeric",
  title = "A team's dominant share (your numbers)",
  prompt = [[
A cluster has {G} GPUs, {C} CPU cores and {M} GB of memory. A team runs {n}
jobs, each using {g} GPU(s), {c} cores and {m} GB. What is the team's
dominant share, in per cent?
Give three significant figures.]],
  unit = "%",
  topics = { "scheduling", "drf" },
  hints = {
    "Compute the team's share of each resource: n × per-job amount / cluster amount.",
    "The dominant share is the largest of the three shares.",
  },
  params = function(rng)
    -- Shares are drawn so that the three differ by at least 5 points: the
    -- dominant one is never within the tolerance of another (a wrong value).
    local G = rng:pick({ 16, 24, 32, 64, 128 })
    local C, M = G * rng:pick({ 8, 12, 16 }), G * rng:pick({ 64, 128 })
    for _ = 1, 200 do
      local n = rng:int(2, 6)
      local g, c, m = rng:pick({ 1, 2, 4 }), rng:pick({ 4, 8, 16, 32 }), rng:pick({ 16, 32, 64, 128, 256 })
      local sg, sc, sm = n * g / G, n * c / C, n * m / M
      local top = math.max(sg, sc, sm)
      local lo = math.min(sg, sc, sm)
      local mid = sg + sc + sm - top - lo
      if top <= 1 and top - mid >= 0.05 and mid - lo >= 0.05 and lo >= 0.01 then
        return { G = G, C = C, M = M, n = n, g = g, c = c, m = m }
      end
    end
    return { G = 24, C = 192, M = 1536, n = 3, g = 4, c = 32, m = 64 }
  end,
  answer = function(p)
    return 100 * math.max(p.n * p.g / p.G, p.n * p.c / p.C, p.n * p.m / p.M)
  end,
  wrong = {
    { value = function(p)
        local s = { p.n * p.g / p.G, p.n * p.c / p.C, p.n * p.m / p.M }
        table.sort(s)
        return 100 * s[1]
      end,
      feedback = "That is the team's smallest share. The dominant share is the LARGEST share of any one resource." },
    { value = function(p) return math.max(p.n * p.g / p.G, p.n * p.c / p.C, p.n * p.m / p.M) end,
      feedback = "That is a fraction; the question asks per cent (a fraction times a hundred)." },
    { value = function(p) return 100 * math.max(p.g / p.G, p.c / p.C, p.m / p.M) end,
      feedback = "That is one job's dominant share. The team runs {n} jobs." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    -- Team A of the worked example with 3 jobs: GPUs 12/24 = 50%.
    { params = { G = 24, C = 192, M = 1536, n = 3, g = 4, c = 16, m = 128 }, answer = "50", score = 1 },
    { params = { G = 24, C = 192, M = 1536, n = 3, g = 4, c = 16, m = 128 }, answer = "0.5", score = 0 },
    { params = { G = 24, C = 192, M = 1536, n = 3, g = 4, c = 16, m = 128 }, answer = "25", score = 0 },
    { "half", "invalid" },
  },
}

question {
  id = "scheduling.drf-jobs",
  kind = "numeric",
  title = "DRF with two teams (your numbers)",
  prompt = [[
A cluster has {G} GPUs and {C} CPU cores. Each of team A's jobs needs {ag}
GPU(s) and {ac} cores; each of team B's jobs needs {bg} GPU(s) and {bc}
cores. Both teams have more jobs waiting than fit. DRF gives the next job to
the team with the lower dominant share (team A on a tie) and, when that
team's job does not fit, to the other team if its job fits. How many jobs
does team {who} end up running?
Give a whole number.]],
  points = 2,
  topics = { "scheduling", "drf" },
  hints = {
    "Per job, team A's dominant share is max({ag}/{G}, {ac}/{C}); team B's is max({bg}/{G}, {bc}/{C}).",
    "Allocate one job at a time to the team with the lower dominant share, checking that GPUs and cores still suffice; the calculator on the DRF page does the same.",
  },
  params = function(rng)
    -- Drawn until the answer differs from every wrong value below, so each
    -- mistake gets its own feedback.
    for _ = 1, 200 do
      local G = rng:pick({ 16, 24, 32, 48, 64 })
      local C = G * rng:pick({ 8, 12, 16 })
      local p = { G = G, C = C, ag = rng:pick({ 2, 4, 8 }), ac = rng:pick({ 2, 4, 8 }),
                  bg = rng:pick({ 1, 2 }), bc = rng:pick({ 16, 24, 32, 48 }),
                  who = rng:pick({ "A", "B" }) }
      local cap, dem = { p.G, p.C }, { { p.ag, p.ac }, { p.bg, p.bc } }
      local tasks = drf(cap, dem)
      local split = static_split(cap, dem)
      local i = p.who == "A" and 1 or 2
      local other = 3 - i
      local ref = tasks[i]
      if ref >= 1 and ref ~= split[i] and ref ~= tasks[other]
         and ref ~= math.floor(p.G / dem[i][1]) then
        return p
      end
    end
    return { G = 24, C = 192, ag = 4, ac = 4, bg = 1, bc = 32, who = "A" }
  end,
  answer = function(p)
    local tasks = drf({ p.G, p.C }, { { p.ag, p.ac }, { p.bg, p.bc } })
    return p.who == "A" and tasks[1] or tasks[2]
  end,
  tolerance = COUNT,
  wrong = {
    { value = function(p)
        local s = static_split({ p.G, p.C }, { { p.ag, p.ac }, { p.bg, p.bc } })
        return p.who == "A" and s[1] or s[2]
      end,
      feedback = "That is a static split: half of every resource to each team. DRF lets a team use what the other team does not need." },
    { value = function(p)
        local t = drf({ p.G, p.C }, { { p.ag, p.ac }, { p.bg, p.bc } })
        return p.who == "A" and t[2] or t[1]
      end,
      feedback = "That is the OTHER team's count. The question asks about team {who}." },
    { value = function(p) return p.who == "A" and p.G // p.ag or p.G // p.bg end,
      feedback = "That gives team {who} every GPU. DRF shares the cluster by dominant share, and the cores can run out too." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 1) end, score = 0 },
    -- The assessment's example (16 GPUs, 128 cores; A 2+4, B 1+16):
    -- 5 jobs for A; B then fits a sixth in the leftover.
    { params = { G = 16, C = 128, ag = 2, ac = 4, bg = 1, bc = 16, who = "A" }, answer = "5", score = 1 },
    { params = { G = 16, C = 128, ag = 2, ac = 4, bg = 1, bc = 16, who = "B" }, answer = "6", score = 1 },
    { params = { G = 16, C = 128, ag = 2, ac = 4, bg = 1, bc = 16, who = "B" }, answer = "5", score = 0 },
    { "5.5 jobs", "invalid" },
  },
}

question {
  id = "scheduling.drf-properties",
  kind = "multi",
  title = "What DRF promises",
  prompt = "Which statements about Dominant Resource Fairness are true? Pick all that apply.",
  points = 2,
  topics = { "scheduling", "drf", "fairness" },
  hints = { "Think of the idle GPUs in the worked example." },
  choices = {
    "No team gets fewer jobs than it would with 1/n of every resource.",
    "A team cannot get more by overstating what its jobs need.",
    "DRF keeps every GPU of the cluster busy when jobs are waiting.",
    "Every team gets the same number of GPUs.",
    "No team would rather have another team's allocation.",
    "DRF needs to know how long each job will run.",
  },
  answer = { 1, 2, 5 },
  why = {
    [3] = "No: in the worked example 4 GPUs stay idle because the cores ran out. Fairness can cost utilisation.",
    [4] = "No: DRF equalises DOMINANT shares. A CPU-hungry team may hold few GPUs and many cores.",
    [6] = "No: DRF looks only at what each job asks for, not at how long it runs.",
  },
  examples = { { "a b e", 1 }, { "abe", 1 }, { "a b", 2 / 3 }, { "a b c e", 2 / 3 }, { "c d", 0 } },
}

------------------------------------------------------------------------------
page [[
# Placement: packing jobs onto nodes

Say the cluster is built of **8-GPU nodes** and every job must stay inside
one node (its GPUs talk over NVLink). Placing jobs is bin packing: the
nodes are bins of size 8, the jobs' GPU counts are the items.

A good quick heuristic is **first-fit decreasing** (FFD): sort the jobs from
largest to smallest, then put each on the first node that still has room,
opening a new node when none has.

## Worked example

Jobs needing 4, 2, 6, 3, 5 and 2 GPUs (22 GPUs in all). Sorted: 6, 5, 4,
3, 2, 2.

| job | node 1 | node 2 | node 3 | note                        |
|-----|--------|--------|--------|-----------------------------|
| 6   | 6      |        |        | new node                    |
| 5   | 6      | 5      |        | 5 does not fit on node 1    |
| 4   | 6      | 5      | 4      | fits nowhere: new node      |
| 3   | 6      | 8      | 4      | first fit: node 2           |
| 2   | 8      | 8      | 4      | node 1                      |
| 2   | 8      | 8      | 6      | node 3                      |

Three nodes, and no placement can use fewer: 22 GPUs need at least
⌈22/8⌉ = 3. The lower bound ⌈total/8⌉ is not always reachable: jobs of 5,
5 and 5 GPUs (15 in all, bound 2) need three nodes, because no two fit
together.

**Fragmentation** is the other face of packing. A cluster with 2 free GPUs
on each of 8 nodes has 16 free GPUs, yet cannot start a single 8-GPU job.
Schedulers fight it by packing small jobs tightly onto already busy nodes
(keeping whole nodes free for big jobs), by **backfilling** short jobs into
gaps, and sometimes by migrating or preempting jobs to defragment.
]]

question {
  id = "scheduling.ffd-nodes",
  kind = "numeric",
  title = "First-fit decreasing (your numbers)",
  prompt = [[
Jobs arrive needing {jobs} GPUs. Every job must run inside one node, and a
node has 8 GPUs. Placing the jobs with first-fit decreasing (largest job
first; each job on the first node with room), how many nodes are used?
Give a whole number.]],
  topics = { "scheduling", "bin-packing", "placement" },
  rubric = { "theory.scheduling", "practice.design" },
  hints = {
    "Sort the jobs from largest to smallest first.",
    "Keep a list of the nodes' free GPUs; put each job on the first node with enough free GPUs, else open a new node.",
  },
  params = function(rng)
    -- Drawn until FFD needs more nodes than the bound ceil(total/8), so the
    -- bound is a mistake here, not a coincidence.
    for _ = 1, 300 do
      local n = rng:int(5, 8)
      local jobs, total = {}, 0
      for i = 1, n do jobs[i] = rng:pick({ 1, 2, 3, 4, 5, 6, 7 }); total = total + jobs[i] end
      local sorted = {}
      for i = 1, n do sorted[i] = jobs[i] end
      table.sort(sorted, function(a, b) return a > b end)
      local nodes = {}
      for _, j in ipairs(sorted) do
        local placed = false
        for k = 1, #nodes do
          if nodes[k] + j <= 8 then nodes[k] = nodes[k] + j; placed = true; break end
        end
        if not placed then nodes[#nodes + 1] = j end
      end
      local bound = (total + 7) // 8
      if #nodes > bound and #nodes ~= n then
        local text = {}
        for i = 1, n do text[i] = tostring(jobs[i]) end
        return { jobs = table.concat(text, ", "), ref = #nodes, bound = bound, total = total, n = n }
      end
    end
    return { jobs = "5, 5, 5, 2", ref = 3, bound = 2, total = 17, n = 4 }
  end,
  answer = function(p) return p.ref end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return p.bound end,
      feedback = "⌈{total}/8⌉ = {bound} is only a lower bound: jobs cannot be split across nodes, so the GPUs left on each node may not fit the next job." },
    { value = function(p) return p.n end,
      feedback = "That is one node per job. Several small jobs share a node when their GPUs add up to 8 or fewer." },
  },
  examples = {
    { answer = function(p) return tostring(p.ref) end, score = 1 },
    { params = { jobs = "5, 5, 5, 2", ref = 3, bound = 2, total = 17, n = 4 }, answer = "3", score = 1 },
    { params = { jobs = "5, 5, 5, 2", ref = 3, bound = 2, total = 17, n = 4 }, answer = "2", score = 0 },
    { "3 nodes", "invalid" },
  },
}

question {
  id = "scheduling.fragmentation",
  kind = "numeric",
  title = "Free GPUs that cannot be used (your numbers)",
  prompt = [[
A cluster has {nodes} nodes of 8 GPUs. The free GPUs per node are: {free}.
A queue of 8-GPU jobs waits, and each job needs one whole node. How many of
these jobs can start now?
Give a whole number.]],
  topics = { "scheduling", "fragmentation", "placement" },
  rubric = { "theory.scheduling", "advanced.cost" },
  hints = {
    "An 8-GPU job needs a node with all 8 GPUs free.",
    "Count the nodes whose free count is 8; the total of free GPUs does not matter.",
  },
  params = function(rng)
    for _ = 1, 200 do
      local nodes = rng:pick({ 6, 8, 10, 12 })
      local free, total, whole = {}, 0, 0
      for i = 1, nodes do
        free[i] = rng:pick({ 0, 1, 2, 3, 4, 5, 6, 8, 8 })
        total = total + free[i]
        if free[i] == 8 then whole = whole + 1 end
      end
      if total // 8 ~= whole then
        local text = {}
        for i = 1, nodes do text[i] = tostring(free[i]) end
        return { nodes = nodes, free = table.concat(text, ", "), whole = whole, total = total }
      end
    end
    return { nodes = 8, free = "2, 2, 2, 2, 2, 2, 2, 2", whole = 0, total = 16 }
  end,
  answer = function(p) return p.whole end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return p.total // 8 end,
      feedback = "{total} free GPUs make {total}/8 jobs' worth only if they were on whole nodes. A job cannot take 2 GPUs here and 6 there." },
    { value = function(p) return p.total end,
      feedback = "That is the number of free GPUs. The question asks how many 8-GPU jobs can start." },
  },
  examples = {
    { answer = function(p) return tostring(p.whole) end, score = 1 },
    -- The page's example: 2 free GPUs on each of 8 nodes.
    { params = { nodes = 8, free = "2, 2, 2, 2, 2, 2, 2, 2", whole = 0, total = 16 }, answer = "0", score = 1 },
    { params = { nodes = 8, free = "2, 2, 2, 2, 2, 2, 2, 2", whole = 0, total = 16 }, answer = "2", score = 0 },
    { "none", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Gang scheduling

A data-parallel job on 64 GPUs runs 64 workers that meet at every all-reduce.
With 63 of them started, the job does nothing at all: each step waits for
the missing worker. Distributed training needs **gang scheduling**: all of a
job's workers start together, or none does.

Without it, a scheduler that starts workers as GPUs free up can
**deadlock**: two 16-GPU jobs on a cluster with 24 free GPUs may get 12 each,
and both wait forever for GPUs the other holds.

Gangs have a cost too. While a big job waits for enough GPUs, the scheduler
must **reserve** the GPUs that free up, or small jobs keep taking them and
the big job starves. Reserved GPUs sit idle. If GPUs free up one at a time,
every t minutes, a gang of n GPUs holds the first one idle for (n − 1)·t
minutes, the second for (n − 2)·t, and so on:

```
idle GPU-minutes = t × (0 + 1 + ... + (n - 1)) = t × n(n - 1)/2
```

For n = 64 and t = 1 minute that is 2016 GPU-minutes, about 34 GPU-hours,
before the job computes anything. **Backfilling** recovers much of it: a
short job whose run ends before the gang can start may use the reserved GPUs
(it needs a runtime limit, so the scheduler knows it will be gone in time).
]]

question {
  id = "scheduling.gang-deadlock",
  kind = "choice",
  title = "Two jobs, half the GPUs each",
  prompt = [[
24 GPUs are free. Two distributed training jobs of 16 GPUs each arrive, and
the scheduler hands out GPUs worker by worker, in the order workers ask,
until it runs out. What happens?]],
  topics = { "scheduling", "gang-scheduling" },
  rubric = { "theory.scheduling", "advanced.integration" },
  hints = { "A data-parallel job cannot take a step until every one of its workers is running." },
  choices = {
    "Both jobs can end up holding some GPUs and waiting forever for the rest.",
    "The first job finishes, then the second starts.",
    "Both jobs run, each at three quarters of its speed.",
    "The scheduler splits the GPUs 12 and 12 and both jobs run with fewer workers.",
  },
  answer = 1,
  why = {
    [2] = "Only if the first job's workers happened to get all 16 GPUs. Interleaved requests can leave each job short.",
    [3] = "A synchronous job does not run slower with fewer workers: it does not run at all until all workers have joined the all-reduce.",
    [4] = "The job was started for 16 workers; its collective operations wait for all 16. Elastic training can shrink a job, but only if the framework restarts it with fewer workers.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 } },
}

question {
  id = "scheduling.gang-reserve",
  kind = "numeric",
  title = "GPU-hours held for a gang (your numbers)",
  prompt = [[
A {n}-GPU training job waits at the head of the queue. GPUs free up one at a
time, one every {t} minutes, and the scheduler reserves each one for the job
(nothing else may use it) until all {n} are free. How many GPU-hours sit
reserved and idle before the job can start?
Give three significant figures.]],
  points = 2,
  topics = { "scheduling", "gang-scheduling", "utilization" },
  rubric = { "theory.scheduling", "advanced.cost" },
  hints = {
    "The first GPU waits for the other {n} − 1 to free up; the last one waits not at all.",
    "Idle GPU-minutes = t × n(n − 1)/2. Divide by 60 for GPU-hours.",
  },
  params = function(rng)
    return { n = rng:pick({ 16, 32, 48, 64, 128 }), t = rng:pick({ 0.5, 1, 2, 3, 5 }) }
  end,
  answer = function(p) return p.t * p.n * (p.n - 1) / 2 / 60 end,
  wrong = {
    { value = function(p) return p.t * p.n * (p.n - 1) / 2 end,
      feedback = "That is in GPU-minutes. Divide by 60." },
    { value = function(p) return p.t * p.n * p.n / 60 end,
      feedback = "Not every GPU waits the whole {n} × {t} minutes: the first waits longest, the last not at all. Sum (n − 1) + (n − 2) + ... + 0." },
    { value = function(p) return p.t * (p.n - 1) / 60 end,
      feedback = "That is how long the job waits. Multiply by the GPUs held idle meanwhile (on average half of them)." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    -- The page's example: 64 GPUs, one per minute: 2016 GPU-minutes.
    { params = { n = 64, t = 1 }, answer = "33.6", score = 1 },
    { params = { n = 64, t = 1 }, answer = "2016/60", score = 1 },
    { params = { n = 64, t = 1 }, answer = "2016", score = 0 },
    { params = { n = 64, t = 1 }, answer = "68.27", score = 0 },
    { "34 GPU-hours", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Sharing one GPU

Many jobs do not need a whole GPU: a small model's inference service, a
notebook, a hyper-parameter trial. Three ways to share one, from weakest to
strongest isolation:

| way            | how                                | isolation       |
|----------------|------------------------------------|-----------------|
| time slicing   | jobs take turns on the whole GPU   | none: memory    |
|                | (temporal sharing)                 | shared, turns   |
| MPS            | kernels of several processes run   | compute and     |
|                | at the same time (spatial sharing) | memory capacity |
|                |                                    | shared          |
| MIG            | the GPU (A100, H100) is cut into   | own memory, own |
|                | instances with their own memory    | SMs, own faults |
|                | and compute                        |                 |

With time slicing and MPS, one job can use up the memory and crash its
neighbours, and a busy neighbour changes your latency. **MIG**
(Multi-Instance GPU) gives hardware partitions: an A100 80GB splits into at most
**7 instances** of the smallest size (1g.10gb: one seventh of the compute
and 10 GB of memory), or fewer, larger ones. Note the 7: memory alone would
suggest 80/10 = 8 slices, but the compute divides into 7.

## Worked example

Twenty small inference services each need under 10 GB and a small share of
compute. One service per GPU takes 20 GPUs, mostly idle. With 1g.10gb MIG
instances, seven fit on a GPU: ⌈20/7⌉ = **3 GPUs**, with guaranteed memory
and latency that a neighbour cannot disturb.
]]

question {
  id = "scheduling.mig-gpus",
  kind = "numeric",
  title = "Services on MIG instances (your numbers)",
  prompt = [[
{s} small inference services each fit in a 1g.10gb MIG instance (10 GB, the
smallest slice of an A100 80GB). With MIG, how many A100 80GB GPUs do they
need?
Give a whole number.]],
  topics = { "scheduling", "mig", "isolation" },
  rubric = { "theory.scheduling", "advanced.cost" },
  hints = {
    "An A100 80GB makes at most 7 instances of the smallest size.",
    "Round up: a part of a GPU still takes a GPU.",
  },
  params = function(rng)
    -- s is drawn so that ceil(s/7) and ceil(s/8) differ: the 80/10 = 8
    -- mistake then has its own feedback (and s/7 is never whole).
    local s
    repeat s = rng:int(9, 60) until (s + 6) // 7 ~= (s + 7) // 8 and s % 7 ~= 0
    return { s = s }
  end,
  answer = function(p) return (p.s + 6) // 7 end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return (p.s + 7) // 8 end,
      feedback = "80 GB / 10 GB = 8, but an A100 makes at most 7 MIG instances: its compute divides into 7 slices." },
    { value = function(p) return p.s end,
      feedback = "That is one whole GPU per service, without MIG." },
    { value = function(p) return p.s / 7 end,
      feedback = "GPUs are whole: round up." },
  },
  examples = {
    { answer = function(p) return tostring((p.s + 6) // 7) end, score = 1 },
    -- The page's example: 20 services.
    { params = { s = 20 }, answer = "3", score = 1 },
    { params = { s = 15 }, answer = "3", score = 1 },
    { params = { s = 15 }, answer = "2", score = 0 },
    { "3 GPUs", "invalid" },
  },
}

question {
  id = "scheduling.sharing-isolation",
  kind = "multi",
  title = "Which sharing isolates what",
  prompt = [[
Several jobs share GPUs. Which statements are true? Pick all that apply.]],
  points = 2,
  topics = { "scheduling", "mig", "isolation" },
  rubric = { "theory.scheduling", "practice.deployment" },
  hints = { "Ask of each mechanism: does a job get memory no neighbour can touch?" },
  choices = {
    "With MIG, a job that runs out of memory cannot take memory from another instance.",
    "With time slicing, jobs take turns on the whole GPU and share its memory.",
    "MPS gives each process a hardware-isolated slice of memory.",
    "A 1g.10gb MIG instance has one seventh of an A100's compute.",
    "Time slicing keeps each job's latency independent of its neighbours.",
  },
  answer = { 1, 2, 4 },
  why = {
    [3] = "No: MPS lets kernels of several processes run together, but they draw on one pool of memory; one process can exhaust it for all.",
    [5] = "No: a job waits for its turn, so its latency depends on what its neighbours run.",
  },
  examples = { { "a b d", 1 }, { "abd", 1 }, { "a b", 2 / 3 }, { "c e", 0 } },
}

------------------------------------------------------------------------------
page [[
# Preemption and checkpoints

To keep a promise to a high-priority job (a deadline, a serving SLA) the
scheduler may **preempt** a low-priority one: stop it and give its GPUs away.
GPU jobs are slow to stop and start (load the model, warm up, rebuild
communicators), so preemption is expensive, and the work since the last
checkpoint is lost.

The guide's cost model for a long job is

```
T_total = T_compute + T_checkpoint + T_recovery × P_failure
```

Write a checkpoint every τ minutes. Each checkpoint costs C. A failure or a
preemption at a random moment loses on average **τ/2** of work, plus the
restart time R. With failures every M minutes on average:

- checkpoint cost per minute of work: C / τ,
- expected loss per minute of work: (τ/2 + R) / M.

Frequent checkpoints cost writes, rare ones cost lost work. The sum is
smallest at

```
tau* = sqrt(2 × C × M)          (Young's approximation)
```

## Worked example

A checkpoint takes C = 2 minutes to write, and the job is interrupted on
average every M = 8 hours = 480 minutes. τ* = √(2 × 2 × 480) ≈ **44
minutes**. At that interval it spends 2/44 ≈ 4.5 % of its time writing
checkpoints and loses about 22/480 ≈ 4.6 % to recomputation.

In a cluster, the scheduler and the training framework must agree: the
scheduler warns before it preempts (a signal, a grace period), the job
writes a checkpoint then, and it restarts from it on whatever GPUs it gets
next. That coordination is why preemptible jobs must be checkpoint-aware.
]]

question {
  id = "scheduling.preempt-lost",
  kind = "numeric",
  title = "What a preemption costs (your numbers)",
  prompt = [[
A job on {g} GPUs writes a checkpoint every {tau} minutes. It is preempted
at a random moment and needs {r} minutes to restart (load, warm up) before
it computes again. On average, how many GPU-hours of work does the
preemption cost?
Give three significant figures.]],
  topics = { "scheduling", "preemption", "checkpointing" },
  rubric = { "theory.scheduling", "advanced.integration" },
  hints = {
    "At a random moment, the time since the last checkpoint is on average half the interval.",
    "Lost time = {tau}/2 + {r} minutes, on each of {g} GPUs.",
  },
  params = function(rng)
    return { g = rng:pick({ 8, 16, 32, 64, 256 }), tau = rng:pick({ 20, 30, 60, 90, 120 }),
             r = rng:pick({ 3, 5, 10, 15 }) }
  end,
  answer = function(p) return p.g * (p.tau / 2 + p.r) / 60 end,
  wrong = {
    { value = function(p) return p.g * (p.tau + p.r) / 60 end,
      feedback = "A preemption at a random moment loses on average half an interval, not a whole one." },
    { value = function(p) return (p.tau / 2 + p.r) / 60 end,
      feedback = "That is the time lost on one GPU. All {g} GPUs lose it." },
    { value = function(p) return p.g * p.tau / 2 / 60 end,
      feedback = "Add the restart: the GPUs are held for {r} minutes before the job computes again." },
    { value = function(p) return p.g * (p.tau / 2 + p.r) end,
      feedback = "That is in GPU-minutes. Divide by 60." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { g = 64, tau = 60, r = 10 }, answer = "42.67", score = 1 },
    { params = { g = 64, tau = 60, r = 10 }, answer = "74.67", score = 0 },
    { "lots", "invalid" },
  },
}

question {
  id = "scheduling.ckpt-interval",
  kind = "numeric",
  title = "How often to checkpoint (your numbers)",
  prompt = [[
Writing a checkpoint takes {c} minutes, and the job is interrupted
(failure or preemption) on average every {mh} hours. Using τ* = √(2 × C ×
M), how many minutes apart should checkpoints be?
Give three significant figures.]],
  unit = "min",
  topics = { "scheduling", "checkpointing", "fault-tolerance" },
  rubric = { "theory.scheduling", "advanced.integration" },
  hints = {
    "Put C and M in the same unit: M = {mh} hours = {mh} × 60 minutes.",
    "τ* = √(2 × {c} × M).",
  },
  params = function(rng)
    return { c = rng:pick({ 0.5, 1, 2, 5 }), mh = rng:pick({ 2, 4, 8, 12, 24, 48 }) }
  end,
  answer = function(p) return math.sqrt(2 * p.c * p.mh * 60) end,
  wrong = {
    { value = function(p) return math.sqrt(p.c * p.mh * 60) end,
      feedback = "Keep the factor 2: τ* = √(2 × C × M)." },
    { value = function(p) return math.sqrt(2 * p.c * p.mh) end,
      feedback = "Mixed units: M is in hours. Convert it to minutes (× 60) before taking the root." },
    { value = function(p) return math.sqrt(2 * p.c * p.mh * 60) * 60 end,
      feedback = "That is in seconds; the question asks minutes." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 60) .. " s" end, score = 1 },
    -- The page's example: C = 2 min, M = 8 h: 43.8 minutes.
    { params = { c = 2, mh = 8 }, answer = "43.8", score = 1 },
    { params = { c = 2, mh = 8 }, answer = "sqrt(2*2*480)", score = 1 },
    { params = { c = 2, mh = 8 }, answer = "31", score = 0 },
    { params = { c = 2, mh = 8 }, answer = "5.66", score = 0 },
    { "44 GB", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# Autoscaling

A serving cluster's load changes by the hour. **Autoscaling** adds replicas
when load rises and removes them when it falls, so that latency holds and no
GPU is paid for idle.

**How many replicas?** If one replica serves at most μ requests per second
and the load is λ, it needs λ/μ replicas at full utilisation. Queues grow
without bound as utilisation nears 1 (latency explodes), so plan for a target
utilisation u below 1:

```
replicas = ceil( lambda / (u × mu) )
```

The course's serving target, 10,000 QPS, with replicas that serve 800 QPS
each at most and a 70 % target: ⌈10000 / 560⌉ = **18 replicas** (13 would
do at 100 %, with no room for a burst).

**Reactive** scaling acts on what it measures (utilisation, queue length,
latency) and acts late: a GPU node takes minutes to provision and a model
takes time to load. While a new replica boots for s minutes, load keeps
rising by g requests per second every minute, so the spare capacity in place
when the scaler triggers must cover g × s. **Predictive** scaling forecasts
the load (daily and weekly patterns) and adds capacity ahead of time; it
needs a pattern to learn and still needs a reactive fallback for surprises.

**Cost.** GPU instances are expensive, so the floor matters as much as the
peak. **Spot** (preemptible) instances cost a fraction of the on-demand
price but can be taken back at short notice: fine for checkpointed training
and for stateless serving replicas above a guaranteed on-demand floor, risky
for a job that cannot lose its state.
]]

question {
  id = "scheduling.replicas",
  kind = "numeric",
  title = "Replicas for a load (your numbers)",
  prompt = [[
A service must handle {qps} queries per second. One replica serves at most
{mu} queries per second, and the team runs replicas at no more than {u}%
utilisation to keep latency low. How many replicas does it need?
Give a whole number.]],
  topics = { "scheduling", "autoscaling", "serving" },
  rubric = { "theory.scheduling", "practice.deployment" },
  hints = {
    "Each replica may carry {u}% of {mu} queries per second.",
    "Divide the load by that and round up.",
  },
  params = function(rng)
    -- Drawn so that no headroom (qps/mu rounded up) needs fewer replicas,
    -- and the division is never whole.
    for _ = 1, 200 do
      local p = { qps = rng:pick({ 2000, 5000, 10000, 25000, 40000 }),
                  mu = rng:pick({ 150, 300, 450, 800, 1200 }), u = rng:pick({ 60, 70, 75, 80 }) }
      local need = p.qps / (p.u / 100 * p.mu)
      if math.abs(need - math.floor(need + 0.5)) > 0.05
         and math.ceil(need) ~= math.ceil(p.qps / p.mu) then
        return p
      end
    end
    return { qps = 10000, mu = 800, u = 70 }
  end,
  answer = function(p) return math.ceil(p.qps / (p.u / 100 * p.mu)) end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return math.ceil(p.qps / p.mu) end,
      feedback = "That runs every replica at 100%: queues and latency blow up. Divide by {u}% of {mu}." },
    { value = function(p) return p.qps / (p.u / 100 * p.mu) end,
      feedback = "Replicas are whole: round up." },
    { value = function(p) return math.floor(p.qps / (p.u / 100 * p.mu)) end,
      feedback = "Rounded down: then the replicas run above {u}%. Round up." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    -- The page's example: 10,000 QPS, 800 per replica, 70%: 18 replicas.
    { params = { qps = 10000, mu = 800, u = 70 }, answer = "18", score = 1 },
    { params = { qps = 10000, mu = 800, u = 70 }, answer = "13", score = 0 },
    { params = { qps = 10000, mu = 800, u = 70 }, answer = "17", score = 0 },
    { "18 replicas", "invalid" },
  },
}

question {
  id = "scheduling.scale-ahead",
  kind = "numeric",
  title = "Headroom for a slow scale-up (your numbers)",
  prompt = [[
Morning load rises steadily by {g} queries per second every minute. A new
replica takes {s} minutes from the autoscaler's decision until it serves
(provision the GPU node, start the container, load the model), and one
replica serves {mu} queries per second. How many replicas' worth of spare
capacity must already be running when the autoscaler triggers, so that the
load never exceeds capacity while the new replicas boot?
Give a whole number.]],
  topics = { "scheduling", "autoscaling", "provisioning" },
  rubric = { "theory.scheduling", "advanced.integration", "practice.deployment" },
  hints = {
    "During the {s} minutes of boot, the load grows by {g} × {s} queries per second.",
    "Divide by one replica's {mu} queries per second and round up.",
  },
  params = function(rng)
    for _ = 1, 200 do
      local p = { g = rng:pick({ 20, 50, 100, 200 }), s = rng:pick({ 3, 5, 8, 10, 15 }),
                  mu = rng:pick({ 150, 300, 500, 800 }) }
      local need = p.g * p.s / p.mu
      if need > 1 and math.abs(need - math.floor(need + 0.5)) > 0.05 and math.ceil(need) ~= p.s then
        return p
      end
    end
    return { g = 100, s = 8, mu = 300 }
  end,
  answer = function(p) return math.ceil(p.g * p.s / p.mu) end,
  tolerance = COUNT,
  wrong = {
    { value = function(p) return p.g * p.s / p.mu end,
      feedback = "Replicas are whole: round up." },
    { value = function(p) return p.g * p.s end,
      feedback = "That is the extra load in queries per second. Convert it to replicas: divide by {mu}." },
    { value = function(p) return p.s end,
      feedback = "One replica per minute of boot time is a guess, not the load's growth: {g} × {s} / {mu}." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { params = { g = 100, s = 8, mu = 300 }, answer = "3", score = 1 },
    { params = { g = 100, s = 8, mu = 300 }, answer = "2.67", score = 0 },
    { params = { g = 100, s = 8, mu = 300 }, answer = "800", score = 0 },
    { "three", "invalid" },
  },
}

question {
  id = "scheduling.spot-savings",
  kind = "numeric",
  title = "Is spot worth it? (your numbers)",
  prompt = [[
A checkpointed training job can run on spot instances at {d}% of the
on-demand price. Preemptions make it redo work and restart, so it needs
{w}% more GPU-hours than on on-demand instances. By what percentage does
spot lower the job's cost?
Give three significant figures.]],
  unit = "%",
  topics = { "scheduling", "autoscaling", "cost", "spot" },
  rubric = { "theory.scheduling", "advanced.cost" },
  hints = {
    "Cost on spot relative to on-demand = ({d}/100) × (1 + {w}/100).",
    "The saving is 1 minus that, in per cent.",
  },
  params = function(rng)
    return { d = rng:pick({ 30, 35, 40, 50, 60 }), w = rng:pick({ 5, 10, 15, 25, 40 }) }
  end,
  answer = function(p) return 100 * (1 - p.d / 100 * (1 + p.w / 100)) end,
  wrong = {
    { value = function(p) return 100 - p.d end,
      feedback = "That ignores the extra {w}% of GPU-hours that preemptions cost." },
    { value = function(p) return 100 - p.d - p.w end,
      feedback = "The extra work is {w}% of the spot hours, which cost {d}% each: multiply, do not subtract." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { params = { d = 40, w = 25 }, answer = "50", score = 1 },
    { params = { d = 40, w = 25 }, answer = "60", score = 0 },
    { params = { d = 40, w = 25 }, answer = "35", score = 0 },
    { "cheaper", "invalid" },
  },
}

question {
  id = "scheduling.predictive",
  kind = "choice",
  title = "When does predictive scaling pay?",
  prompt = [[
Which service gains most from predictive autoscaling over a purely
reactive one?]],
  topics = { "scheduling", "autoscaling" },
  rubric = { "theory.scheduling", "practice.deployment" },
  hints = { "Predictive scaling needs a pattern it can learn and pays off when reacting is slow." },
  choices = {
    "A chat service with a strong daily peak, whose GPU nodes take 10 minutes to start.",
    "A batch job queue that is drained once a night, with no deadline.",
    "A service with random, unpredictable bursts and replicas that start in a second.",
    "A service whose load never changes.",
  },
  answer = 1,
  why = {
    [2] = "A nightly batch with no deadline can simply wait for capacity; there is no latency to protect.",
    [3] = "With nothing to predict and fast starts, reacting is enough.",
    [4] = "Constant load needs a constant number of replicas, no scaling at all.",
  },
  examples = { { "a", 1 }, { "c", 0 } },
}
