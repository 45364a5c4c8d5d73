-- Lab: a parameter server on your machine.
--
-- Sends the student to the `paramserver` lab (labs/lab_paramserver.c and
-- labs/lab_ps*.c): server shards and workers as real processes on Unix
-- sockets, an emulated link per connection, sync / async / ssp / ring
-- all-reduce, stragglers, compression and faults. Facts come from the
-- course material (midterm-crash-course.md hour 4 and its 5-worker example,
-- ml-system-optimization-notes.txt part 2 and question 5, the all-reduce
-- analysis of gpu-ml-training-inference-guide.md); nccl-tests' definition of
-- bus bandwidth is cited as such. The text is ours.
--
-- Lab-linked questions read the run's summary figures (keys on the
-- "Reading the results" page) and its parameters (ctx.lab.params), and grade
-- through grade_own() as lab_amdahl.lua and lab_memory.lua do: a run that
-- lacks what a question needs (another mode, link=off, no straggler) is
-- explained, not graded. Numbers shown in a prompt are rounded first and the
-- reference is computed from the rounded values the student sees.

lesson {
  id = "lab-paramserver",
  title = "Lab: a parameter server on your machine",
  topics = { "parameter-server", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
}

-- A finite number from the run's summary, or nil.
local function fig(ctx, key)
  local lab = ctx and ctx.lab
  local v = lab and lab.summary and lab.summary[key]
  if type(v) == "number" and v == v and v > -math.huge and v < math.huge then
    return v
  end
  return nil
end

-- A parameter the run was started with (number or text), or nil.
local function par(ctx, key)
  local lab = ctx and ctx.lab
  return lab and lab.params and lab.params[key]
end

local function finite(x)
  return type(x) == "number" and x == x and x > -math.huge and x < math.huge
end

-- The run's mode: its parameter, else the summary's text figure.
local function mode_of(ctx)
  local m = par(ctx, "mode")
  if type(m) ~= "string" then
    local lab = ctx and ctx.lab
    m = lab and lab.summary and lab.summary.mode
  end
  return type(m) == "string" and m:lower() or nil
end

-- "1Gbps", "100Mbps", "2.5Gbps", "800Kbps", "off" -> bytes per second (0 for
-- off), as the lab reads its `link` parameter; nil when unreadable.
local LINK_UNITS = { tbps = 1e12, gbps = 1e9, mbps = 1e6, kbps = 1e3, bps = 1 }
local function link_bps(text)
  if type(text) ~= "string" then return nil end
  local t = text:lower()
  if t == "off" then return 0 end
  local n, u = t:match("^(%d+%.?%d*)(%a+)$")
  local v, m = tonumber(n), LINK_UNITS[u or ""]
  if not v or not m or v <= 0 then return nil end
  return v * m / 8
end

-- "W:FACTOR" -> worker, factor; nil for none.
local function straggler_of(text)
  if type(text) ~= "string" then return nil end
  local w, f = text:match("^%s*(%d+)%s*:%s*(%d+%.?%d*)%s*$")
  w, f = tonumber(w), tonumber(f)
  if not w or not f then return nil end
  return w, f
end

local function sig(x, n) return tonumber(wb.sig(x, n or 3)) end

-- Fills every placeholder name the prompt uses that params left unset, so a
-- run lacking a figure still renders (as "?") and note says why.
local function blanks(p, names)
  for _, n in ipairs(names) do
    if p[n] == nil then p[n] = "?" end
  end
  if p.note == nil then p.note = "" end
  return p
end

-- Grades a number read in `unit` against ctx.params.ref, the reference the
-- student's own run gives (see lab_amdahl.lua). o.tol: tolerance (default
-- 1%); o.wrong: common mistakes { value = function(p), feedback = "..." };
-- o.explain(p): the worked answer, always shown.
local function grade_own(answer, ctx, unit, o)
  local p = ctx.params
  if not finite(p.ref) then
    local why = p.note ~= "" and (p.note:gsub("^%s+", ""))
      or "Your latest run lacks the figure this question needs. Run the lab again with its defaults."
    return { valid = false, feedback = why }
  end
  local v, why = wb.number(answer, unit)
  if not v then
    return { valid = false, feedback = "Could not read that: " .. (why or "not a number") .. "." }
  end
  local tol = o.tol or { rel = 0.01 }
  local how = o.explain(p)
  if wb.within(v, p.ref, tol) then
    return 1, "Right. " .. how
  end
  for _, w in ipairs(o.wrong or {}) do
    local wv = w.value(p)
    if finite(wv) and wb.within(v, wv, tol) then
      return 0, w.feedback .. " " .. how
    end
  end
  return 0, "Not quite: the accepted range is " .. wb.interval(p.ref, tol, unit) .. ". " .. how
end

local PS_MODES = { sync = true, async = true, ssp = true }

------------------------------------------------------------------------------
page [[
# Lab: a parameter server on your machine

The parameter-server lesson computed communication times on paper. This lab
runs the real thing, at a small scale, on your computer, and measures them.

## What runs

- **S server shards** and **W workers**, each a separate process. The
  shards split the parameter vector by key range; every worker holds a
  connection (a Unix-domain socket) to every shard.
- **The model**: logistic regression on synthetic data that the lab
  generates the same way on every machine (dense or sparse features, from
  10 to 10,000,000 parameters). Every step, a worker pulls the current
  weights from the shards, computes the gradient of its own mini-batch,
  adds `compute_ms` of emulated extra compute (to stand in for a big
  model's forward and backward pass), and pushes the gradient back.
- **Consistency**: `sync` (the shards wait for all workers' gradients,
  average them and only then answer the next pull), `async` (a shard
  applies each gradient the moment it arrives), `ssp` (a worker may run at
  most `staleness` steps ahead of the slowest one), and `allreduce` (no
  server: the workers average their gradients with a ring all-reduce over
  the same kind of connection).

## The emulated link

Between processes of one machine a socket moves gigabytes per second, far
faster than a network. So every data connection carries an **emulated
link** of the bandwidth you set (`link`, e.g. `1Gbps`) plus a one-way
latency (`latency_ms`), separately in each direction, as if every worker
had its own cable to every shard. A message of S bytes occupies its link
for S / bandwidth seconds after the messages sent before it; the receiver
gets it only when that time and the latency have passed. Each message
carries a 40-byte header, counted in the bytes on the wire. `link=off`
runs at the raw speed of the socket.

## Knobs and faults

`straggler=2:3` makes worker 2 compute three times as long as the others.
`compress=q8` sends 8-bit gradients, `compress=topk:0.01` the largest 1% of
the entries (the weights still come back dense). `servers` sets the number
of shards. `kill_worker=N@STEP` and `kill_server=N@STEP` kill a process
mid-run: async and ssp carry on without a lost worker, sync notices within
a timeout and continues with the others, and a lost shard stops the run
with a message unless `checkpoint_every` lets it restart from its last
checkpoint.
]]

page [[
# Running it

```
warpbench lab run paramserver                 # the defaults
warpbench lab run paramserver --set mode=sync --set workers=5 \
    --set params=1000000 --set link=1Gbps --set compute_ms=50
warpbench lab run paramserver --set mode=async --set straggler=2:2
warpbench lab run paramserver --set mode=allreduce --set workers=4
warpbench lab run paramserver --json          # one JSON object per line
warpbench lab show RUN                        # a finished run's figures
```

In the terminal UI, open the **Lab** screen, pick *paramserver*, fill in
the form and start it; the charts fill in while it runs, and `q` cancels
(Ctrl-C on the command line). A cancelled run leaves no process behind.

| parameter          | meaning                                          |
|--------------------|--------------------------------------------------|
| `mode`             | sync, async, ssp or allreduce                    |
| `workers`          | W worker processes                               |
| `servers`          | S server shards (not used by allreduce)          |
| `params`           | model size, 10 to 10,000,000 FP32 parameters     |
| `sparsity`         | share of zero features per example               |
| `batch`, `lr`      | mini-batch per worker step, learning rate        |
| `steps`            | steps per worker                                 |
| `staleness`        | ssp: how far ahead a worker may run              |
| `compute_ms`       | emulated extra compute per step                  |
| `link`             | off, or a rate: 100Mbps, 1Gbps, 10Gbps, ...      |
| `latency_ms`       | one-way latency per message                      |
| `straggler`        | none, or WORKER:FACTOR                           |
| `compress`         | none, q8 or topk:F                               |
| `checkpoint_every` | shard checkpoint period in steps (0: never)      |
| `seed`             | the synthetic data                               |

`warpbench lab list` and the form show each parameter's default and range.
A value out of range, or a combination that cannot work (a straggler
numbered above `workers`, more shards than parameters), is refused before
anything starts, with a message naming the parameter.

**Learning rate.** With a sane `lr` the loss falls. Set it far too high and
the loss grows step after step instead, or becomes NaN: the updates
overshoot the minimum further each time. That is divergence, and the lab
reports it rather than hiding it. Asynchronous runs diverge at smaller
learning rates than synchronous ones, because stale gradients push the
weights in directions that were right a few updates ago.

The questions after the next pages use the numbers of **your latest
completed run**; until you have one they tell you to run the lab.
]]

page [[
# The course's example, measured

The crash course asks: 5 workers, 1 M parameters, a 1 Gbps network and
50 ms of computation per step. What fraction of the time is
communication? On paper:

```
pull + push   2 × 1,000,000 × 4 B   =  8 MB
at 1 Gbps     8 MB / 125 MB/s       =  64 ms
one step      50 ms + 64 ms         = 114 ms
fraction      64 / 114              =  0.56
```

Now measure it:

```
warpbench lab run paramserver --set mode=sync --set workers=5 \
    --set params=1000000 --set link=1Gbps --set compute_ms=50
```

and put the run's figures next to the calculation:

```
                      course's model      your run
step time             114 ms              step_ms
compute per step       50 ms              compute_ms_mean
communication          64 ms              comm_ms
fraction             0.56                 comm_fraction
```

The lab prints `predicted_comm_fraction` too: the same model for the
settings you ran. A measured fraction within about 10% of it says the
model captures what happens. Where the two differ, look at what the model
leaves out:

- **compute_ms_mean is more than compute_ms**: the gradient itself takes
  time, and with a large `params` or `batch` it is not negligible.
- **Latency and headers**: every message waits `latency_ms` and carries
  40 bytes more; for small models that is most of the communication.
- **The server's own work**: averaging W gradients and updating 1 M
  weights takes time on a CPU that the workers share.
- **Your machine**: 5 workers and a shard on a laptop compete for a few
  cores, and the operating system decides who runs.

Why does the number of workers not appear in the calculation? Because the
lab gives every worker its own link to every shard, as the course's
example assumes: no shared server link that all five must squeeze
through. The lesson's "server bottleneck" page (320 ms, 86%) is the other
case, one server behind one 1 Gbps link.

## Ring all-reduce, the same way

With `mode=allreduce` the W workers average their gradients in a ring:
reduce-scatter, then all-gather, 2(W − 1) steps each moving 1/W of the
gradient to the next worker. No server, so no pull: each worker sends
2(W − 1)/W × 4·params bytes per step, which is why the ring at W = 5
moves 6.4 MB per step instead of the parameter server's 8 MB.
]]

page [[
# Reading the results

While it runs, the lab draws:

- **loss against wall-clock time and against steps**, side by side. Compare
  two runs on both: async usually wins against the clock (more updates per
  second) and loses against steps (each update is staler).
- **updates per second**, all workers together.
- **compute versus waiting time per worker**: in sync mode with a
  straggler, the fast workers' waiting bars grow to fill the straggler's
  extra compute.
- **a staleness histogram** (async, ssp): how many updates a gradient was
  behind when the shard applied it. In ssp it never goes past `staleness`.
- **bytes on the wire per second, per shard**: how busy each shard's links
  are.

The run ends with these summary figures (what the questions read):

| key                       | meaning                                    |
|---------------------------|--------------------------------------------|
| `mode`                    | the mode that ran                          |
| `step_ms`                 | mean wall time of one worker step          |
| `compute_ms_mean`         | measured compute per step                  |
| `comm_ms`                 | step_ms − compute_ms_mean: pull, push and  |
|                           | waiting                                    |
| `comm_fraction`           | comm_ms / step_ms                          |
| `predicted_comm_fraction` | the course's model for your settings       |
|                           | (absent with link=off)                     |
| `initial_loss`,           | the loss at the start and at the end       |
| `final_loss`              |                                            |
| `updates_per_s`           | gradient updates applied per second        |
| `samples_per_s`           | training examples processed per second     |
| `wire_mb_s`               | MB/s on the wire per shard (mean)          |
| `max_staleness`           | async and ssp: the stalest update applied  |
| `wait_ms_mean`            | waiting per worker step                    |
| `algbw_gbs`, `busbw_gbs`  | allreduce only: algorithm and bus          |
|                           | bandwidth, GB/s                            |

**algbw and busbw** follow nccl-tests. The *algorithm bandwidth* is the
gradient's size divided by the time of one all-reduce. The *bus bandwidth*
multiplies it by 2(W − 1)/W, the share of the data each link really
carries in a ring, so that it can be compared directly with the link's own
speed: a perfect ring reaches busbw = link bandwidth, whatever W is.

Things to try, one change at a time: `servers=1` against `servers=5` with
a slow link; `compress=topk:0.01` on the course's example (what is left of
the 56%?); `mode=async` against `mode=sync` with `straggler=2:2`; `ssp`
with `staleness=1` and `3`; `allreduce` against `sync` at equal settings.
]]

------------------------------------------------------------------------------
question {
  id = "lab-paramserver.comm-fraction",
  kind = "numeric",
  title = "Your communication fraction",
  prompt = [[
In your latest paramserver run ({mode}), a worker step took {step} ms on
average, of which {comp} ms were compute. What fraction of a step went to
communication (pulling, pushing and waiting)? (A fraction like 0.3, or a
percentage like 30%.){note}]],
  lab = "paramserver",
  topics = { "communication", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Communication = step time - compute time.",
    "Fraction = communication / step time.",
  },
  params = function(rng, ctx)
    local p = { mode = mode_of(ctx) }
    local step, comp = fig(ctx, "step_ms"), fig(ctx, "compute_ms_mean")
    if ctx.lab and not (step and comp and step > 0 and comp >= 0 and comp < step) then
      p.note = "\n\n(Your latest run does not report both step_ms and compute_ms_mean. "
        .. "Run `warpbench lab run paramserver` again.)"
    elseif step and comp then
      p.step, p.comp = sig(step), sig(comp)
      p.ref = (p.step - p.comp) / p.step
      p.measured = fig(ctx, "comm_fraction")
      p.predicted = fig(ctx, "predicted_comm_fraction")
    end
    return blanks(p, { "mode", "step", "comp" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return grade_own(answer, ctx, "", {
      tol = { rel = 0.01, abs = 0.002 },
      wrong = {
        { value = function(p) return p.comp / p.step end,
          feedback = "That is the compute share; the question asks for communication." },
        { value = function(p) return (p.step - p.comp) / p.comp end,
          feedback = "Divide by the whole step, not by the compute time." },
      },
      explain = function(p)
        local s = string.format("(%s - %s) / %s = %s.", wb.sig(p.step, 3), wb.sig(p.comp, 3),
          wb.sig(p.step, 3), wb.sig(p.ref, 3))
        if finite(p.predicted) then
          s = s .. string.format(" The course's model predicted %s for your settings", wb.sig(p.predicted, 3))
          s = s .. " (the worked example, 1 M parameters on 1 Gbps with 50 ms of compute: 64/114 = 0.56)."
        else
          s = s .. " The course's worked example (1 M parameters, 1 Gbps, 50 ms) predicts 64/114 = 0.56."
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { mode = "sync" }, summary = { mode = "sync", step_ms = 117, compute_ms_mean = 51.2,
        comm_fraction = 0.5624, predicted_comm_fraction = 0.561 } }, answer = "0.5624", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 117, compute_ms_mean = 51.2 } },
      answer = "56.2%", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 117, compute_ms_mean = 51.2 } },
      answer = "(117-51.2)/117", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 117, compute_ms_mean = 51.2 } },
      answer = "0.4376", score = 0 },   -- the compute share
    { lab = { params = { mode = "sync" }, summary = { step_ms = 117, compute_ms_mean = 51.2 } },
      answer = "1.285", score = 0 },    -- over compute
    { lab = { params = { mode = "sync" }, summary = { step_ms = 117, compute_ms_mean = 51.2 } },
      answer = "56 ms", score = "invalid" },
    { lab = { params = { mode = "sync" }, summary = { final_loss = 0.3 } }, answer = "0.5", score = "invalid" },
  },
}

question {
  id = "lab-paramserver.predict",
  kind = "numeric",
  title = "Predict your run's communication fraction",
  prompt = [[
Your latest paramserver run used params = {params}, link = {link} and
compute_ms = {cms}. Using the course's model (every step pulls the FP32
weights and pushes an FP32 gradient of the same size over the worker's own
link, one after the other, and computes for compute_ms), predict the
fraction of a step spent communicating.{note}]],
  lab = "paramserver",
  topics = { "communication", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Communication: 2 × {params} × 4 bytes at the link's rate in BYTES per second (bits / 8).",
    "Fraction = communication / (communication + compute_ms).",
  },
  params = function(rng, ctx)
    local p = {}
    local P, link, cms = par(ctx, "params"), par(ctx, "link"), par(ctx, "compute_ms")
    local mode = mode_of(ctx)
    local bps = link_bps(link)
    p.params = finite(P) and math.floor(P + 0.5) or nil
    p.link = type(link) == "string" and link or nil
    p.cms = finite(cms) and cms or nil
    if ctx.lab then
      if mode and not PS_MODES[mode] then
        p.note = "\n\n(Your latest run used mode=" .. mode .. ": this question is about the "
          .. "parameter server. Run with --set mode=sync.)"
      elseif bps == 0 then
        p.note = "\n\n(Your latest run had link=off: without an emulated link the model predicts "
          .. "no communication time. Run with --set link=1Gbps.)"
      elseif not (p.params and bps and p.cms) then
        p.note = "\n\n(Your latest run does not show params, link and compute_ms. "
          .. "Run `warpbench lab run paramserver` again.)"
      else
        p.comm_ms = 1000 * 2 * 4 * p.params / bps
        p.bps = bps
        p.ref = p.comm_ms / (p.comm_ms + p.cms)
        p.measured = fig(ctx, "comm_fraction")
      end
    end
    return blanks(p, { "params", "link", "cms" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return grade_own(answer, ctx, "", {
      tol = { rel = 0.01, abs = 0.002 },
      wrong = {
        { value = function(p)
            local c = p.comm_ms / 2
            return c / (c + p.cms)
          end,
          feedback = "You counted one transfer; each step pulls the weights AND pushes a gradient." },
        { value = function(p)
            local c = p.comm_ms / 8
            return c / (c + p.cms)
          end,
          feedback = "The link is quoted in bits per second: divide by 8 for bytes (1 Gbps = 125 MB/s)." },
        { value = function(p) return p.cms / (p.comm_ms + p.cms) end,
          feedback = "That is the compute share; the question asks for communication." },
        { value = function(p) return p.comm_ms / p.cms end,
          feedback = "Divide by the whole step (communication + compute), not by the compute alone." },
      },
      explain = function(p)
        local s = string.format("2 × %d × 4 B = %s MB at %s MB/s = %s ms; %s / (%s + %s) = %s.",
          p.params, wb.sig(8 * p.params / 1e6, 3), wb.sig(p.bps / 1e6, 4), wb.sig(p.comm_ms, 3),
          wb.sig(p.comm_ms, 3), wb.sig(p.comm_ms, 3), wb.sig(p.cms, 3), wb.sig(p.ref, 3))
        if finite(p.measured) then
          local r = p.measured / p.ref
          s = s .. string.format(" Your run measured comm_fraction = %s, %s the prediction.",
            wb.sig(p.measured, 3),
            math.abs(r - 1) <= 0.1 and "within 10% of" or (r > 1 and "above" or "below"))
          if math.abs(r - 1) > 0.1 then
            s = s .. " The model leaves out latency, headers, the gradient's own compute and the server's work."
          end
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 },
        summary = { comm_fraction = 0.57 } }, answer = "0.5614", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "64/114", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "56.1%", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.39", score = 0 },     -- one transfer
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.138", score = 0 },    -- bits as bytes
    { lab = { params = { mode = "async", params = 100000, link = "100Mbps", compute_ms = 20 } },
      answer = "64/84", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "off", compute_ms = 50 } },
      answer = "0", score = "invalid" },
    { lab = { params = { mode = "allreduce", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.56", score = "invalid" },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "64 ms", score = "invalid" },
  },
}

question {
  id = "lab-paramserver.busbw",
  kind = "numeric",
  title = "Bus bandwidth from your all-reduce run",
  prompt = [[
Your latest paramserver run ran mode = allreduce with {w} workers and
measured an algorithm bandwidth of {alg} GB/s. What is its bus bandwidth,
as nccl-tests defines it?{note}]],
  lab = "paramserver",
  unit = "GB/s",
  topics = { "all-reduce", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "In a ring each link carries 2(W - 1)/W of the data, not all of it.",
    "busbw = algbw × 2(W - 1)/W.",
  },
  params = function(rng, ctx)
    local p = {}
    local mode = mode_of(ctx)
    local W, alg = par(ctx, "workers"), fig(ctx, "algbw_gbs")
    if ctx.lab then
      if mode ~= "allreduce" then
        p.note = "\n\n(Your latest run used mode=" .. (mode or "?") .. "; bus bandwidth is "
          .. "measured in allreduce mode. Run with --set mode=allreduce --set workers=4.)"
      elseif not (finite(W) and W >= 2 and alg and alg > 0) then
        p.note = "\n\n(Your latest allreduce run does not report algbw_gbs with at least 2 "
          .. "workers. Run with --set mode=allreduce --set workers=4.)"
      else
        p.w = math.floor(W + 0.5)
        p.alg = sig(alg, 3)
        p.ref = p.alg * 2 * (p.w - 1) / p.w
        p.bus = fig(ctx, "busbw_gbs")
        local bps = link_bps(par(ctx, "link"))
        p.link_gbs = bps and bps > 0 and bps / 1e9 or nil
      end
    end
    return blanks(p, { "w", "alg" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return grade_own(answer, ctx, "GB/s", {
      wrong = {
        { value = function(p) return p.alg end,
          feedback = "That is the algorithm bandwidth itself; bus bandwidth scales it by 2(W - 1)/W." },
        { value = function(p) return 2 * p.alg end,
          feedback = "The factor is 2(W - 1)/W, not 2: each worker sends W - 1 of W chunks, twice." },
        { value = function(p) return p.alg * (p.w - 1) / p.w end,
          feedback = "Count both halves of the ring: reduce-scatter AND all-gather, 2(W - 1)/W." },
        { value = function(p) return p.alg * p.w / (2 * (p.w - 1)) end,
          feedback = "That divides by the factor; bus bandwidth multiplies by 2(W - 1)/W." },
      },
      explain = function(p)
        local s = string.format("%s × 2 × %d/%d = %s GB/s.", wb.sig(p.alg, 3), p.w - 1, p.w,
          wb.sig(p.ref, 3))
        if finite(p.link_gbs) then
          s = s .. string.format(" Your link was %s GB/s: a perfect ring's bus bandwidth equals it,"
            .. " so yours reached %s%% of it.", wb.sig(p.link_gbs, 3), wb.sig(100 * p.ref / p.link_gbs, 3))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { mode = "allreduce", workers = 4, link = "1Gbps" },
        summary = { mode = "allreduce", algbw_gbs = 0.0781, busbw_gbs = 0.117 } }, answer = "0.117", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0781 } },
      answer = "117 MB/s", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0781 } },
      answer = "0.0781*2*3/4", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0781 } },
      answer = "0.0781", score = 0 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0781 } },
      answer = "0.1562", score = 0 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0781 } },
      answer = "0.117 s", score = "invalid" },
    { lab = { params = { mode = "sync", workers = 5 }, summary = { step_ms = 114 } },
      answer = "0.1", score = "invalid" },
  },
}

question {
  id = "lab-paramserver.straggler-step",
  kind = "numeric",
  title = "Predict a synchronous step with a straggler",
  prompt = [[
Your latest paramserver run was synchronous with straggler = {strag}:
worker {sw} computes {sf} times as long as the others. Its settings:
compute_ms = {cms}, params = {params}, link = {link}. Using the course's
model (pull and push of 4 bytes per parameter each, over each worker's own
link, not overlapped with compute), how long does one synchronous step
take, in ms?{note}]],
  lab = "paramserver",
  unit = "ms",
  topics = { "stragglers", "sync-async", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "At the barrier everyone waits for the slowest worker's compute.",
    "Step = factor × compute_ms + 2 × 4 × params / (link in bytes per second).",
  },
  params = function(rng, ctx)
    local p = {}
    local mode = mode_of(ctx)
    local sw, sf = straggler_of(par(ctx, "straggler"))
    local P, cms = par(ctx, "params"), par(ctx, "compute_ms")
    local bps = link_bps(par(ctx, "link"))
    p.strag = type(par(ctx, "straggler")) == "string" and par(ctx, "straggler") or nil
    p.sw, p.sf = sw, sf
    p.params = finite(P) and math.floor(P + 0.5) or nil
    p.cms = finite(cms) and cms or nil
    p.link = type(par(ctx, "link")) == "string" and par(ctx, "link") or nil
    if ctx.lab then
      if mode ~= "sync" or not (sf and sf > 1) then
        p.note = "\n\n(This question needs a synchronous run with a straggler; your latest run "
          .. "was mode=" .. (mode or "?") .. ", straggler=" .. tostring(p.strag or "none")
          .. ". Run with --set mode=sync --set straggler=2:2.)"
      elseif not (p.params and p.cms and bps) then
        p.note = "\n\n(Your latest run does not show params, link and compute_ms. "
          .. "Run `warpbench lab run paramserver` again.)"
      else
        p.comm_ms = bps > 0 and 1000 * 8 * p.params / bps or 0
        p.ref = sf * p.cms + p.comm_ms
        p.measured = fig(ctx, "step_ms")
        p.wait = fig(ctx, "wait_ms_mean")
      end
    end
    return blanks(p, { "strag", "sw", "sf", "cms", "params", "link" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return grade_own(answer, ctx, "ms", {
      tol = { rel = 0.01, abs = 0.05 },
      wrong = {
        { value = function(p) return p.cms + p.comm_ms end,
          feedback = "That is a step without the straggler. In sync mode every step waits at the barrier for the slowest worker." },
        { value = function(p) return p.sf * p.cms end,
          feedback = "Add the communication: the pull and the push still take their time after the slow compute." },
        { value = function(p) return p.sf * (p.cms + p.comm_ms) end,
          feedback = "Only the straggler's compute is slower; its link is as fast as the others'." },
      },
      explain = function(p)
        local s = string.format("%s × %s ms + %s ms of pull and push = %s ms.", wb.sig(p.sf, 3),
          wb.sig(p.cms, 3), wb.sig(p.comm_ms, 3), wb.sig(p.ref, 4))
        if finite(p.measured) then
          s = s .. string.format(" Your run measured step_ms = %s", wb.sig(p.measured, 3))
          if finite(p.wait) then
            s = s .. string.format(", with %s ms of waiting per step", wb.sig(p.wait, 3))
          end
          s = s .. ". The fast workers spend the straggler's extra compute idle at the barrier;"
            .. " in async mode they would not wait, but the straggler's gradients would arrive stale."
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 },
        summary = { step_ms = 168, wait_ms_mean = 45 } }, answer = "164", score = 1 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "2*50 + 64", score = 1 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "114", score = 0 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "100", score = 0 },
    { lab = { params = { mode = "sync", straggler = "3:1.5", params = 100000, link = "off", compute_ms = 40 } },
      answer = "60", score = 1 },
    { lab = { params = { mode = "async", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "164", score = "invalid" },
    { lab = { params = { mode = "sync", straggler = "none", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "114", score = "invalid" },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "164 MB", score = "invalid" },
  },
}

question {
  id = "lab-paramserver.async-straggler",
  kind = "choice",
  title = "Sync or async with a slow worker",
  prompt = [[
Your latest paramserver run: mode = {mode}, straggler = {strag},
{ups} updates per second, largest staleness {stale}. Run the same settings
in both modes with one worker twice as slow (--set straggler=2:2). Which
statement describes what you should see?]],
  lab = "paramserver",
  topics = { "stragglers", "sync-async", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = { "Where does a synchronous step wait? What does an asynchronous shard do with a late gradient?" },
  params = function(rng, ctx)
    local p = { mode = mode_of(ctx) }
    local s = par(ctx, "straggler")
    p.strag = type(s) == "string" and s or nil
    local u, m = fig(ctx, "updates_per_s"), fig(ctx, "max_staleness")
    p.ups = u and wb.sig(u, 3) or nil
    if m then
      p.stale = wb.sig(m, 3)
    elseif ctx.lab then
      p.stale = "not measured (" .. (p.mode or "?") .. ")"
    end
    return blanks(p, { "mode", "strag", "ups", "stale" })
  end,
  choices = {
    "Sync: every step takes as long as the straggler's, the other workers wait at the barrier. Async: more updates per second, but the straggler's gradients arrive computed on older weights (higher staleness).",
    "Both modes slow down equally: one slow worker is one slow worker.",
    "Async runs at the straggler's pace, sync does not notice it.",
    "Sync is faster, because the barrier keeps the workers in step.",
  },
  answer = 1,
  why = {
    [2] = "Only sync has a barrier; async shards apply each gradient when it arrives, so the fast workers do not wait.",
    [3] = "It is the other way round: the barrier is what makes sync wait for the slowest.",
    [4] = "The barrier makes every sync step last as long as the slowest worker's step.",
  },
  examples = {
    { lab = { params = { mode = "async", straggler = "2:2" },
        summary = { mode = "async", updates_per_s = 61.2, max_staleness = 6 } }, answer = "a", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 35 } }, answer = "b", score = 0 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 35 } }, answer = "c", score = 0 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 35 } }, answer = "z", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}
