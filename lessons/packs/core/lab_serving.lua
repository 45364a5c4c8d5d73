-- Lab: serving on your machine.
--
-- Sends the student to the `serving` lab (labs/lab_serving.c): a load
-- generator process sends requests with Poisson arrivals to a front end
-- that batches them dynamically (max batch, max wait) onto worker
-- processes running an MLP. Questions are graded against the student's own
-- latest run (ctx.lab). Facts come from the course material (latency and
-- throughput, Little's law, static / dynamic / continuous batching, the
-- batch-time model t(B) = t0 + c B as the inference lesson writes it, the
-- targets "<10 ms (cloud)" and ">1000 QPS per GPU", the design exercise of
-- 10,000 QPS under a 50 ms P99: gpu-ml-training-inference-guide.md section
-- 9, day5-summary-and-assessment.md, ml-system-optimization-notes.txt);
-- the text is ours.
--
-- Little's law is an average: L = λ W for the time-averaged number in the
-- system of a STABLE system. The lab shows both halves: agreement within a
-- few per cent while the service keeps up, and no steady state (so no
-- law to check) when the arrival rate exceeds what the workers can answer.

lesson {
  id = "lab-serving",
  title = "Lab: serving on your machine",
  topics = { "serving", "batching", "lab" },
  rubric = { "practice.deployment", "theory.scheduling" },
}

local function need(part)
  return "\n\n(Your latest serving run has no " .. part .. ": run "
    .. "`warpbench lab run serving` with its defaults first.)"
end

-- Drops a trailing rate unit the grader does not know ("req/s", "QPS").
local function strip_rate(answer)
  local a = answer:gsub("%s*[rR][eE][qQ][uU]?[eE]?[sS]?[tT]?[sS]?%s*/%s*[sS]%s*$", "")
  return (a:gsub("%s*[qQ][pP][sS]%s*$", ""))
end

-- The run's load fractions, from its `loads` parameter ("0.1,0.3,..."),
-- in order; empty when the run has none.
local function loads_of(ctx)
  local s = wb.lab.param(ctx, "loads")
  local out = {}
  if type(s) ~= "string" then return out end
  for tok in s:gmatch("[^,]+") do
    local x = tonumber(tok)
    if x then out[#out + 1] = x end
  end
  return out
end

-- The summary key of load x, as the lab writes it: "load70" for 0.7.
local function load_key(stem, x)
  return stem .. "_" .. string.format("load%.0f", 100 * x)
end

------------------------------------------------------------------------------
page [[
# Lab: serving on your machine

The inference lesson separated **latency** (how long one request takes)
from **throughput** (how many are answered per second), and claimed that
batching trades one for the other. This lab builds a small inference
service out of real processes and measures it.

- A **load generator** (its own process) sends requests at random times:
  a Poisson process of rate λ, the usual model of many independent users.
  It does not wait for answers (an *open loop*), so a slow server sees
  the queue grow, as a real one would.
- The **front end** (the lab's own process) receives each request and
  queues it. It hands requests to an idle **worker** in a batch when
  `max_batch` of them wait, or when the oldest has waited `max_wait_ms`:
  *dynamic batching*.
- Each **worker** (a process of its own, the model's weights shared with
  the others) runs the forward pass of an MLP on the whole batch and sends
  the answers back. With a GPU, one worker runs the batches through cuBLAS
  instead; without one, the first log line says why.

Every request's arrival, dispatch and answer is recorded. A request
answered twice, or an answer that does not match the model's own output
for that request's input, stops the run: the numbers you get are about a
service that works.

## What a run does

1. **Calibration**: batches of 1, 2, 4, ... `max_batch` through one
   worker; the time t(B) of each, and the fit t(B) = t0 + c B.
2. **Rate sweep**: λ at each fraction in `loads` of the capacity measured
   at `max_batch`; `duration_s` of arrivals at each, then the queue drains.
3. **Max-batch sweep**: max batch 1, 2, 4, ... at one rate.

## Running it

```
warpbench lab run serving                       # all of it
warpbench lab run serving --set sweep=rate      # only the rate sweep
warpbench lab run serving --set max_wait_ms=0   # never wait for more
warpbench lab run serving --set workers=2 --set max_batch=32
warpbench lab run serving --set sweep=none --set rate=1000
```

| parameter     | default                     | meaning                 |
|---------------|-----------------------------|-------------------------|
| `sweep`       | all                         | all, rate, batch, none  |
| `loads`       | 0.1,0.3,0.5,0.7,0.8,0.9,0.95 | fractions of capacity  |
| `capacity`    | 0 (measured)                | what loads multiply     |
| `rate`        | 0 (chosen)                  | λ of batch sweep / none |
| `workers`     | 1                           | worker processes        |
| `max_batch`   | 16                          | largest batch           |
| `max_wait_ms` | 2                           | longest wait for a batch |
| `d`, `hidden` | 256, 8192                   | the MLP d -> hidden -> d |
| `duration_s`  | 1.5                         | arrivals per point      |
| `seed`        | 1                           | arrivals, inputs, weights |
| `sample_ms`   | 5                           | queue sampling period   |
| `check_every` | 64                          | answers checked         |
| `device`      | auto                        | auto, gpu, cpu          |

The default run takes about half a minute.
]]

page [[
# Reading the charts, and Little's law

**Batch time t(B)**: the forward pass and the round trip for each batch
size, and the fitted line. t0 is what every batch costs whatever its
size (here: reading the weights, the messages); c is what each request
adds. Throughput with batches of B is B / t(B), which grows toward 1/c.

**Live** charts follow the run: requests in the system and in the queue,
answers per second, and the p50 and p99 of the last 100 ms; the batch
sizes of the current point as a histogram.

**Against load**: p50, p95 and p99 latency, throughput (with the offered
λ as a line), mean queue and batch size, and L against λ W. As λ nears
capacity the queue, and with it the tail latency, climbs steeply: the
*knee*. Batches grow with the load, which raises the capacity a little,
so a dynamically batched service bends later than one that always
serves one request at a time.

**Against max batch**: the same λ served with max batch 1, 2, 4, ...: a
batch of 1 may not keep up at all, while larger batches do.

## Little's law, measured

For a system in a steady state, the average number of requests inside
it is the arrival rate times the average time each spends there:

```
L = λ x W
```

The lab measures L as the time average of the number in the system while
requests arrive, and W as the mean time from arrival to answer. They
agree within a few per cent while the service keeps up (`stable` = 1).
When λ exceeds what the workers can answer there is no steady state: the
queue grows for as long as requests arrive, and the law has nothing to
describe. The run marks such points and leaves them out of
`little_err_max`.

## The summary

| key                             | what it is                      |
|---------------------------------|---------------------------------|
| `t0_ms`, `c_ms`                 | the fit t(B) = t0 + c B         |
| `capacity_b1`, `capacity_bmax`  | req/s at batch 1 / max_batch    |
| `batch_gain`                    | the ratio of those two          |
| `rate_loadNN`                   | λ at load NN %                  |
| `throughput_loadNN`             | answered per second             |
| `p50_ms_loadNN` .. `p99_ms_`    | latency percentiles             |
| `w_ms_loadNN`, `wait_ms_loadNN` | mean time in system / in queue  |
| `queue_loadNN`, `batch_loadNN`  | mean queue, mean batch          |
| `little_l_loadNN`               | L, time-averaged                |
| `little_lw_loadNN`              | λ W                             |
| `little_err_loadNN`             | their difference, %             |
| `stable_loadNN`                 | 1 when it kept up               |
| `p99_ms_mbB`, `throughput_mbB`  | the max-batch sweep             |

Also: `device`, `no_gpu`, `workers`, `max_batch`, `max_wait_ms`,
`params`, `service_ms_b1`, `roundtrip_ms_b1`, `capacity_used`,
`little_err_max`, `stable_points`, `little_identity_max`, `requests`,
`answered`, `duplicates`, `outputs_checked`, `latency_min_ms`,
`p99_growth`, `throughput_max`, `batch_rate`.
]]

------------------------------------------------------------------------------
question {
  id = "lab-serving.little",
  kind = "numeric",
  title = "Little's law on your service",
  prompt = [[
At load {pct}% your latest serving run received requests at
λ = {rate} req/s, and each spent W = {w} ms in the system on average.
By Little's law, how many requests were in the system on average? (The
feedback compares it with what the run measured.)
Give three significant figures.{note}]],
  lab = "serving",
  topics = { "littles-law", "serving", "lab" },
  rubric = { "theory.scheduling", "practice.deployment" },
  hints = { "L = λ x W, with W in seconds." },
  params = function(rng, ctx)
    -- The load point closest to 70% among those the run marked stable
    -- (stable_loadNN = 1): at an overloaded point the queue grows for as
    -- long as requests arrive, there is no steady state, and Little's law
    -- describes nothing, so such a point is never used. A run whose every
    -- point was overloaded (or that predates the mark) is explained, not
    -- graded: the student runs again.
    local p = {}
    local best, swept
    for _, x in ipairs(loads_of(ctx)) do
      if wb.lab.figure(ctx, load_key("rate", x)) then
        swept = true
        if wb.lab.figure(ctx, load_key("stable", x)) == 1 and
          (not best or math.abs(x - 0.7) < math.abs(best - 0.7)) then
          best = x
        end
      end
    end
    if ctx.lab and not swept then
      p.note = need("rate sweep")
    elseif ctx.lab and not best then
      p.note = "\n\n(No load point of your latest serving run kept up with its "
        .. "arrivals: the run marked every one overloaded (stable = 0), and "
        .. "an overloaded service has no steady state for Little's law to "
        .. "describe. Run `warpbench lab run serving` again, on a quieter "
        .. "machine or with lower loads, e.g. --set loads=0.3,0.5,0.7.)"
    elseif best then
      p.pct = math.floor(100 * best + 0.5)
      p.rate = wb.round(wb.lab.figure(ctx, load_key("rate", best)), 0)
      p.w = tonumber(wb.sig(wb.lab.figure(ctx, load_key("w_ms", best)) or 0, 3))
      p.ref = p.rate * p.w / 1000
      p.meas = wb.lab.figure(ctx, load_key("little_l", best))
    end
    return wb.lab.blanks(p, { "pct", "rate", "w" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.02 },
      wrong = {
        { value = function(p) return p.rate * p.w end,
          feedback = "W is in milliseconds: convert it to seconds first (divide by 1000)." },
        { value = function(p) return p.rate / (p.w / 1000) end,
          feedback = "Multiply, do not divide: L = λ x W." },
      },
      explain = function(p)
        local s = string.format("%s req/s x %s s = %s requests.", wb.sig(p.rate, 6),
          wb.sig(p.w / 1000, 3), wb.sig(p.ref, 3))
        if wb.finite(p.meas) and p.meas > 0 then
          s = s .. string.format(" Your run measured a time average of %s: %s%% apart.",
            wb.sig(p.meas, 3), wb.sig(100 * math.abs(p.meas / p.ref - 1), 2))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 5.05, little_l_load70 = 18.3,
                          stable_load70 = 1, rate_load10 = 516, w_ms_load10 = 3.48,
                          stable_load10 = 1 } },
      answer = "18.25", score = 1 },
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 5.05, stable_load70 = 1 } },
      answer = "3613*0.00505", score = 1 },
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 5.05, stable_load70 = 1 } },
      answer = "18246", score = 0 },
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 5.05, stable_load70 = 1 } },
      answer = "715446", score = 0 },
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 5.05, stable_load70 = 1 } },
      answer = "12", score = 0 },
    -- the course's example: 10,000 QPS at 50 ms -> 500 in flight
    { lab = { params = { loads = "0.5" }, summary = { rate_load50 = 10000, w_ms_load50 = 50, stable_load50 = 1 } },
      answer = "500", score = 1 },
    { lab = { params = { loads = "0.5" }, summary = { rate_load50 = 10000, w_ms_load50 = 50, stable_load50 = 1 } },
      answer = "500 ms", score = "invalid" },
    { lab = { params = { sweep = "batch", loads = "0.5" }, summary = { batch_rate = 2000 } },
      answer = "10", score = "invalid" },
    -- The 70% point overloaded: the stable 50% point is used instead ...
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load50 = 2580, w_ms_load50 = 4.2, stable_load50 = 1,
                          rate_load70 = 3613, w_ms_load70 = 250, stable_load70 = 0,
                          rate_load90 = 4645, w_ms_load90 = 900, stable_load90 = 0 } },
      answer = "2580*0.0042", score = 1 },
    { lab = { params = { loads = "0.1,0.5,0.7,0.9" },
              summary = { rate_load50 = 2580, w_ms_load50 = 4.2, stable_load50 = 1,
                          rate_load70 = 3613, w_ms_load70 = 250, stable_load70 = 0 } },
      answer = "3613*0.25", score = 0 },
    -- ... and a run with no stable point is explained, not graded.
    { lab = { params = { loads = "0.7,0.9" },
              summary = { rate_load70 = 3613, w_ms_load70 = 250, stable_load70 = 0,
                          rate_load90 = 4645, w_ms_load90 = 900, stable_load90 = 0 } },
      answer = "903", score = "invalid" },
    { lab = { params = { loads = "0.7" }, summary = { rate_load70 = 3613, w_ms_load70 = 5.05 } },
      answer = "18.25", score = "invalid" },   -- no stable mark: run again
  },
}

question {
  id = "lab-serving.batch-throughput",
  kind = "numeric",
  title = "Throughput from your batch-time fit",
  prompt = [[
Your latest serving run fitted the batch time as t(B) = t0 + c B with
t0 = {t0} ms and c = {c} ms. By that model, how many requests per second
can one worker answer with batches of {b}?
Give three significant figures.{note}]],
  lab = "serving",
  topics = { "batching", "throughput", "lab" },
  rubric = { "practice.deployment", "practice.profiling" },
  hints = { "One batch of B requests takes t0 + c B; throughput is B / t(B).", "Mind the milliseconds." },
  params = function(rng, ctx)
    local p = {}
    local t0, c, b = wb.lab.figure(ctx, "t0_ms"), wb.lab.figure(ctx, "c_ms"),
      wb.lab.figure(ctx, "max_batch")
    if ctx.lab and not (t0 and c and b) then
      p.note = need("calibration")
    elseif t0 and c and b then
      p.t0, p.c, p.b = tonumber(wb.sig(t0, 3)), tonumber(wb.sig(c, 3)), math.floor(b + 0.5)
      if p.t0 + p.c * p.b <= 0 then
        p.note = "\n\n(Your fit gives no positive batch time: the calibration was too noisy. "
          .. "Run the lab again on a quieter machine.)"
      else
        p.ref = 1000 * p.b / (p.t0 + p.c * p.b)
        p.cap = wb.lab.figure(ctx, "capacity_bmax")
        p.workers = wb.lab.figure(ctx, "workers")
      end
    end
    return wb.lab.blanks(p, { "t0", "c", "b" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(strip_rate(answer), ctx, {
      tol = { rel = 0.01 },
      wrong = {
        { value = function(p) return 1000 / (p.t0 + p.c * p.b) end,
          feedback = "That counts batches per second; each batch carries {b} requests." },
        { value = function(p) return 1000 / p.c end,
          feedback = "1/c is the limit for very large batches; at B = {b} the fixed cost t0 still counts." },
        { value = function(p) return p.b / (p.t0 + p.c * p.b) end,
          feedback = "The times are in milliseconds: multiply by 1000 for requests per second." },
      },
      explain = function(p)
        local s = string.format("%d / (%s + %s x %d) ms = %s req/s (the limit 1/c is %s).",
          p.b, wb.sig(p.t0, 3), wb.sig(p.c, 3), p.b, wb.sig(p.ref, 4), wb.sig(1000 / p.c, 4))
        if wb.finite(p.cap) and wb.finite(p.workers) and p.workers >= 1 then
          s = s .. string.format(" The calibration measured %s req/s per worker at that size.",
            wb.sig(p.cap / p.workers, 4))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16, capacity_bmax = 4591, workers = 1 } },
      answer = "4687", score = 1 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16 } }, answer = "4687 req/s", score = 1 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16 } }, answer = "4687 QPS", score = 1 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16 } }, answer = "293", score = 0 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16 } }, answer = "4878", score = 0 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_batch = 16 } }, answer = "4.687", score = 0 },
    -- the inference lesson's example: t0 = 8 ms, c = 0.5 ms, B = 32 -> 1333 per second
    { lab = { summary = { t0_ms = 8, c_ms = 0.5, max_batch = 32 } }, answer = "1333", score = 1 },
    { lab = { summary = { t0_ms = 8, c_ms = 0.5, max_batch = 32 } }, answer = "fast", score = "invalid" },
    { lab = { summary = { requests = 100 } }, answer = "1000", score = "invalid" },
  },
}

question {
  id = "lab-serving.slo-batch",
  kind = "numeric",
  title = "The largest batch within 10 ms",
  prompt = [[
The course's latency target for cloud serving is under 10 ms. Your
latest serving run's front end waits up to {wait} ms for a batch to fill,
and your fit says a batch of B takes t0 + c B with t0 = {t0} ms and
c = {c} ms. What is the largest batch size B for which the wait plus the
batch time stays within 10 ms? (0 if not even one request fits.)
Give a whole number.{note}]],
  lab = "serving",
  topics = { "batching", "latency", "slo", "lab" },
  rubric = { "practice.deployment", "theory.scheduling" },
  hints = { "Solve wait + t0 + c B <= 10 for B.", "Round DOWN to a whole batch." },
  params = function(rng, ctx)
    local p = {}
    local t0, c, wait = wb.lab.figure(ctx, "t0_ms"), wb.lab.figure(ctx, "c_ms"),
      wb.lab.figure(ctx, "max_wait_ms")
    if ctx.lab and not (t0 and c and wait) then
      p.note = need("calibration")
    elseif t0 and c and wait then
      p.t0, p.c, p.wait = tonumber(wb.sig(t0, 3)), tonumber(wb.sig(c, 3)), tonumber(wb.sig(wait, 3))
      if p.c <= 0 then
        p.note = "\n\n(Your fit has no positive cost per request: the calibration was too "
          .. "noisy. Run the lab again on a quieter machine.)"
      else
        p.exact = (10 - p.wait - p.t0) / p.c
        p.ref = math.max(0, math.floor(p.exact + 1e-9))
      end
    end
    return wb.lab.blanks(p, { "wait", "t0", "c" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { abs = 0.01 },
      wrong = {
        { value = function(p)
            if p.exact > 0 and math.ceil(p.exact) ~= p.ref then return math.ceil(p.exact) end
          end,
          feedback = "That batch would take longer than 10 ms: round DOWN." },
        { value = function(p)
            local b = math.floor((10 - p.t0) / p.c)
            if b ~= p.ref and b > 0 then return b end
          end,
          feedback = "Include the wait: a request may wait {wait} ms for its batch before the batch starts." },
      },
      explain = function(p)
        return string.format("(10 - %s - %s) / %s = %s: B = %d.", wb.sig(p.wait, 3),
          wb.sig(p.t0, 3), wb.sig(p.c, 3), wb.sig(p.exact, 4), p.ref)
      end,
    })
  end,
  examples = {
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_wait_ms = 2 } }, answer = "38", score = 1 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_wait_ms = 2 } }, answer = "39", score = 0 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_wait_ms = 2 } }, answer = "48", score = 0 },
    { lab = { summary = { t0_ms = 0.132, c_ms = 0.205, max_wait_ms = 2 } }, answer = "38.4", score = 0 },
    -- the inference lesson's numbers: 8 ms + 0.5 ms B, no wait -> 4
    { lab = { summary = { t0_ms = 8, c_ms = 0.5, max_wait_ms = 0 } }, answer = "4", score = 1 },
    { lab = { summary = { t0_ms = 12, c_ms = 0.5, max_wait_ms = 2 } }, answer = "0", score = 1 },
    { lab = { summary = { t0_ms = 8 } }, answer = "4", score = "invalid" },
  },
}

question {
  id = "lab-serving.workers-for-qps",
  kind = "numeric",
  title = "Workers for the course's 10,000 QPS",
  prompt = [[
The course's design exercise serves 10,000 queries per second. The best
throughput your latest serving run measured was {thr} req/s with
{workers} worker(s). If every worker delivered that rate's share, how many
workers would 10,000 QPS need? (Compare with the course's target of more
than 1000 QPS per GPU.)
Give a whole number.{note}]],
  lab = "serving",
  topics = { "capacity-planning", "throughput", "lab" },
  rubric = { "advanced.cost", "practice.deployment" },
  hints = { "Rate per worker = best throughput / workers.", "Round UP: a fraction of a worker is a whole one." },
  params = function(rng, ctx)
    local p = {}
    local thr, w = wb.lab.figure(ctx, "throughput_max"), wb.lab.figure(ctx, "workers")
    if ctx.lab and not (thr and w and thr > 0) then
      p.note = need("measured point")
    elseif thr and w then
      p.thr, p.workers = wb.round(thr, 0), math.floor(w + 0.5)
      p.per = p.thr / p.workers
      p.ref = math.ceil(10000 / p.per - 1e-9)
    end
    return wb.lab.blanks(p, { "thr", "workers" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { abs = 0.01 },
      wrong = {
        { value = function(p)
            local v = 10000 / p.per
            if math.abs(v - p.ref) > 0.02 then return v end
          end,
          feedback = "Workers come whole: round up." },
        { value = function(p)
            if p.workers > 1 then return math.ceil(10000 / p.thr) end
          end,
          feedback = "That treats the run's total as one worker's rate; divide it by the {workers} workers first." },
      },
      explain = function(p)
        local s = string.format("%s / %d = %s req/s per worker; 10000 / %s = %s: %d workers.",
          wb.sig(p.thr, 6), p.workers, wb.sig(p.per, 4), wb.sig(p.per, 4),
          wb.sig(10000 / p.per, 4), p.ref)
        s = s .. (p.per >= 1000 and " Each worker beats the course's 1000 QPS per GPU target."
          or " Each worker stays below the course's 1000 QPS per GPU target.")
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { throughput_max = 4843, workers = 1 } }, answer = "3", score = 1 },
    { lab = { summary = { throughput_max = 4843, workers = 1 } }, answer = "2.065", score = 0 },
    { lab = { summary = { throughput_max = 4843, workers = 1 } }, answer = "2", score = 0 },
    { lab = { summary = { throughput_max = 3000, workers = 2 } }, answer = "7", score = 1 },
    { lab = { summary = { throughput_max = 3000, workers = 2 } }, answer = "4", score = 0 },
    { lab = { summary = { throughput_max = 500, workers = 1 } }, answer = "20", score = 1 },
    { lab = { summary = { workers = 1 } }, answer = "3", score = "invalid" },
  },
}

------------------------------------------------------------------------------
question {
  id = "lab-serving.overload",
  kind = "choice",
  title = "When Little's law has nothing to say",
  prompt = [[
In your serving run's max-batch sweep, the point with max batch 1 had a
throughput below the arrival rate, a p99 of hundreds of milliseconds, and
an L far from λ x W; the lab marked it "overloaded". Why does Little's
law not hold there?]],
  topics = { "littles-law", "queueing", "lab" },
  rubric = { "theory.scheduling" },
  hints = { "What does the law assume about the system, and what does the queue do here?" },
  choices = {
    "The law needs a steady state; with λ above what batches of one can serve, the queue grows for as long as requests arrive, so there is no stable average to relate.",
    "Little's law only holds for batches larger than one.",
    "The load generator sent fewer requests than λ says.",
    "Little's law only holds when the service time is constant.",
  },
  answer = 1,
  why = {
    [2] = "The law says nothing about batching; it holds for any stable system.",
    [3] = "The generator keeps its schedule (an open loop); the books count every request it sent.",
    [4] = "It holds for any distribution of times, as long as the system is stable.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "?", "invalid" } },
}

question {
  id = "lab-serving.low-load-batching",
  kind = "choice",
  title = "Batching at low load",
  prompt = [[
At 10% load your serving run's median latency was a few milliseconds,
several times the forward pass of a single request (well under one
millisecond), though the worker was idle most of the time. What adds
most of that latency?]],
  topics = { "batching", "latency", "lab" },
  rubric = { "practice.deployment", "theory.scheduling" },
  hints = { "What does the front end do with a request when fewer than max_batch are waiting?" },
  choices = {
    "The queue: at 10% load requests wait behind many others.",
    "The batch wait: with few requests arriving, batches rarely fill, so most requests wait up to max_wait_ms for company before their batch runs.",
    "The load generator's sleeping.",
    "Shared memory: the workers copy the weights for each request.",
  },
  answer = 2,
  why = {
    [1] = "At 10% load there is rarely anyone ahead; the mean queue length is about one.",
    [3] = "The generator's timing happens before a request arrives; time in the system starts at arrival.",
    [4] = "The weights are mapped once and shared; nothing is copied per request.",
  },
  examples = { { "b", 1 }, { "a", 0 }, { "d", 0 }, { "e", "invalid" } },
}

question {
  id = "lab-serving.knee",
  kind = "choice",
  title = "The knee",
  prompt = [[
In your serving run's rate sweep the p99 latency stayed nearly flat up to
about half the capacity, then climbed steeply near 90-95%. Which
statement explains the shape?]],
  topics = { "queueing", "latency", "lab" },
  rubric = { "theory.scheduling", "practice.deployment" },
  hints = { "With random arrivals, how often does a burst exceed what the workers can clear when they are busy 95% of the time?" },
  choices = {
    "The worker runs slower at high load because the CPU gets hot.",
    "With random arrivals, queueing delay grows like 1 / (1 - utilisation): at 50% busy a burst clears quickly, at 95% each burst leaves a backlog the workers barely catch up with, so waits, and the tail most of all, explode.",
    "The load generator sends bursts only at high rates.",
    "Latency grows linearly with λ; the chart's scale makes it look steep.",
  },
  answer = 2,
  why = {
    [1] = "The forward pass per batch changes little; the time goes to waiting in the queue.",
    [3] = "Poisson arrivals are bursty at every rate; what changes is the spare capacity to absorb them.",
    [4] = "The growth is far from linear: the same step in λ costs much more near capacity.",
  },
  examples = { { "b", 1 }, { "a", 0 }, { "d", 0 }, { "", "invalid" } },
}

------------------------------------------------------------------------------
page [[
# Next step: serving engines for language models

Your service answers a request with one forward pass, so a batch
finishes together. A language model answers with one forward pass per
generated token, and requests differ widely: one wants 20 tokens,
another 2,000. Two ideas make LLM serving engines (vLLM, TensorRT-LLM,
TGI, SGLang) far faster than a dynamic batcher like this lab's.

**Continuous batching** (iteration-level scheduling, from Orca, 2022).
The batch is formed anew at every decoding step: a sequence that
finishes leaves at once, and a waiting request takes its slot at the
next step. Static batching instead holds every slot until the batch's
longest member ends. Your fit carries over step by step: a decoding step
with B active sequences takes about t(B) = t0 + c B and yields B tokens,
so while the slots stay full the engine makes B / (t0 + c B) tokens per
second, growing toward 1/c as B grows.

**Paged KV cache** (PagedAttention, from vLLM, 2023). Each sequence's
keys and values grow by one token per step. Reserving room for the
longest allowed output wastes most of the memory on tokens never
generated. vLLM stores the cache in blocks of a fixed size (16 tokens,
say), given out as a sequence grows and found through a per-sequence
block table, like pages of virtual memory: less than one block per
sequence is wasted, and sequences sharing a prompt can share its blocks.
More sequences in memory mean larger batches, and by your own t(B) fit,
more tokens per second.

What stays the same: Little's law (L = λ W, now counting sequences in
the engine), the knee as the load nears capacity, and the trade between
batch size and each request's latency. The frontiers lesson works out
the memory the two schemes waste.
]]

question {
  id = "lab-serving.decode-tokens",
  kind = "numeric",
  title = "Tokens per second with continuous batching (your numbers)",
  prompt = [[
A language model's decoding step takes t(B) = {t0} ms + {c} ms × B for B
active sequences, and produces one token per sequence. Continuous
batching keeps all {b} slots full. How many tokens per second does the
engine generate?
Give three significant figures.]],
  topics = { "serving", "continuous-batching", "batching" },
  rubric = { "practice.deployment", "theory.scheduling" },
  hints = {
    "One step: {b} tokens in t({b}) milliseconds.",
    "{b} / (({t0} + {c} × {b}) / 1000).",
  },
  params = function(rng)
    return { t0 = rng:pick({ 8, 12, 20, 30 }), c = rng:pick({ 0.05, 0.1, 0.2, 0.4 }),
             b = rng:pick({ 8, 16, 32, 64, 128 }) }
  end,
  answer = function(p) return p.b / ((p.t0 + p.c * p.b) / 1000) end,
  wrong = {
    { value = function(p) return 1000 / (p.t0 + p.c * p.b) end,
      feedback = "That is one sequence's tokens per second; every step yields one token for each of the {b} sequences." },
    { value = function(p) return p.b / (p.t0 / 1000) end,
      feedback = "The step grows with the batch: add c × B to t0." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { t0 = 20, c = 0.2, b = 64 }, answer = "1950", score = 1 },   -- 64 / 32.8 ms
    { params = { t0 = 20, c = 0.2, b = 64 }, answer = "30.5", score = 0 },
    { params = { t0 = 20, c = 0.2, b = 64 }, answer = "3200", score = 0 },
    { "fast", "invalid" },
  },
}

question {
  id = "lab-serving.paged-fit",
  kind = "numeric",
  title = "How many more sequences a paged cache holds (your numbers)",
  prompt = [[
A server reserves KV-cache room for {lmax} tokens per sequence, the most
a request may generate, but sequences end up {lavg} tokens long on
average. A paged cache instead gives out blocks of {blk} tokens as a
sequence grows. With the same memory, how many times as many sequences
fit at once with the paged cache? (Count each sequence at the average
length, rounded up to whole blocks.)
Give three significant figures.]],
  unit = "x",
  topics = { "serving", "kv-cache", "paged-attention" },
  rubric = { "practice.deployment", "theory.memory" },
  hints = {
    "Memory per sequence: {lmax} tokens reserved, against the blocks it really uses.",
    "{lmax} / (ceil({lavg} / {blk}) × {blk}).",
  },
  params = function(rng)
    local p
    repeat
      p = { lmax = rng:pick({ 2048, 4096, 8192 }), lavg = rng:pick({ 150, 300, 700, 1000, 1500 }),
            blk = rng:pick({ 16, 32 }) }
    until p.lavg % p.blk ~= 0   -- the rounding to whole blocks must show
    return p
  end,
  answer = function(p) return p.lmax / (math.ceil(p.lavg / p.blk) * p.blk) end,
  -- Leaving out the block rounding is off by at most a block: it is named
  -- when it leaves the accepted range.
  wrong = {
    { value = function(p) return p.lavg / p.lmax end,
      feedback = "Upside down: the reservation divided by what a sequence really uses." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { lmax = 4096, lavg = 300, blk = 16 }, answer = "13.5", score = 1 },   -- 4096 / 304
    { params = { lmax = 4096, lavg = 300, blk = 16 }, answer = "0.0732", score = 0 },
    { "many", "invalid" },
  },
}

question {
  id = "lab-serving.continuous",
  kind = "choice",
  title = "What continuous batching changes",
  prompt = [[
A language-model server batches requests statically: a batch of 32 runs
until its longest answer is complete. What does continuous batching
change?]],
  topics = { "serving", "continuous-batching" },
  rubric = { "practice.deployment", "theory.scheduling" },
  hints = { "When can a new request start?" },
  choices = {
    "The batch is re-formed at every decoding step: finished sequences leave and waiting ones join, so no slot idles until the longest answer ends.",
    "Each request runs alone, as soon as it arrives, with no batching.",
    "The server waits until 32 requests of the same length have arrived.",
    "Each decoding step becomes cheaper because the batch is smaller.",
  },
  answer = 1,
  why = {
    [2] = "Continuous batching still batches: it changes when sequences join and leave the batch.",
    [3] = "Grouping by length is a different idea (bucketing), and would make requests wait longer.",
    [4] = "A step with more active sequences costs a little more; the gain is that the slots stay full.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "k", "invalid" } },
}
