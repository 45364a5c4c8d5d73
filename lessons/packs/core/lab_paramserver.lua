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
-- Everything said here about the lab was checked against the lab's code
-- and real runs: the parameters (names, defaults, ranges) are those of
-- `warpbench lab list`; the figure keys and their meanings those of
-- psm_summary() in labs/lab_ps_summary.c. In ctx.lab.params the lab's
-- text parameters (mode, link, straggler, compress, kill_*, model,
-- server_nic) are strings exactly as the student typed them ("1Gbps",
-- "2:2", "none"), numbers are numbers, and on/off parameters (recover,
-- trace) are 1/0. Only completed runs reach the questions: a run that
-- failed (a killed shard without recover, a diverged loss, a killed ring
-- rank) is not used.
--
-- Lab-linked questions read the run's summary figures and parameters and
-- grade through wb.lab.grade(), as the other lab lessons do: a run
-- that lacks what a question needs (another mode, link=off, no straggler)
-- is explained, not graded. Numbers shown in a prompt are rounded first and
-- the reference is computed from the rounded values the student sees.

lesson {
  id = "lab-paramserver",
  title = "Lab: a parameter server on your machine",
  topics = { "parameter-server", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
}

-- The run's mode: its parameter, else the summary's text figure.
local function mode_of(ctx)
  local m = wb.lab.param(ctx, "mode")
  if type(m) ~= "string" then m = wb.lab.text(ctx, "mode") end
  return m and m:lower() or nil
end

-- The run's `link` text -> bytes per second (0 for off), read as the lab
-- reads it (ps_link_parse): "off" in any case, or a number, an optional SI
-- prefix k K m M g G t T (m is mega, as in the lab), then exactly "bps"
-- (bits): "1Gbps", "100Mbps", "2.5Gbps", "1e9bps". nil when unreadable.
local LINK_PREFIX = { k = 1e3, K = 1e3, m = 1e6, M = 1e6, g = 1e9, G = 1e9,
  t = 1e12, T = 1e12 }
local function link_bps(text)
  if type(text) ~= "string" then return nil end
  if text:lower() == "off" then return 0 end
  local n, pre = text:match("^([%d%.eE+-]+)([kKmMgGtT]?)bps$")
  local v = tonumber(n or "")
  if not v or not wb.finite(v) or v <= 0 then return nil end
  local m = pre == "" and 1 or LINK_PREFIX[pre]
  return v * m / 8
end

-- The run's `straggler` text -> worker (1-based), factor; nil for none
-- ("none", "off" or empty, as the lab reads it) or unreadable.
local function straggler_of(text)
  if type(text) ~= "string" then return nil end
  local w, f = text:match("^%s*%+?(%d+)%s*:%s*([%d%.eE+-]+)%s*$")
  w, f = tonumber(w), tonumber(f or "")
  if not w or not f or not wb.finite(f) then return nil end
  return w, f
end

local function sig(x, n) return tonumber(wb.sig(x, n or 3)) end

local PS_MODES = { sync = true, async = true, ssp = true }

------------------------------------------------------------------------------
page [[
# Lab: a parameter server on your machine

The parameter-server lesson computed communication times on paper. This lab
runs the real thing, at a small scale, on your computer, and measures them.

## What runs

- **S server shards** and **W workers**, each a separate process. The
  shards split the parameter vector into S key ranges; every worker holds a
  connection (a Unix-domain socket) to every shard.
- **The model**: logistic regression (or linear regression, `model=linear`)
  on synthetic data that the lab generates the same way on every machine.
  Every example has 32 "hot" features that carry the label, plus noise
  features spread over the other parameters, like a click log: with the
  default `sparsity=0.999` one feature in a thousand is non-zero (never
  fewer than the 32), with `sparsity=0` all of them (dense).
- **A step**: a worker pulls the current weights from the shards,
  computes the gradient of its own mini-batch, adds `compute_ms` of
  emulated extra compute (a sleep that stands in for a big model's
  forward and backward pass), and pushes the gradient back.
- **Consistency**:
  - `sync`: a shard adds the W gradients of a step, in worker order, and
    only then updates the weights and answers the next pulls (a barrier).
    The fixed order makes every sync run with the same settings end with
    the same weights, bit for bit, whatever the link or the timing.
  - `async`: a shard applies each gradient the moment it arrives and
    answers every pull at once.
  - `ssp` (stale synchronous parallel): as async, but a worker's pull
    waits while it is more than `staleness` steps ahead of the slowest.
  - `allreduce`: no server at all; the workers average their gradients
    with a ring all-reduce over the same kind of connection.

## The emulated link

Between processes of one machine a socket moves gigabytes per second, far
faster than a network. So every data connection carries an **emulated
link** of the bandwidth you set (`link`, default `1Gbps`) plus a one-way
latency (`latency_ms`), separately in each direction, as if every worker
had its own cable to every shard. A message of S bytes occupies its link
for S / bandwidth seconds after the messages sent before it, and the
receiver gets it only when that time and the latency have passed. Each
message carries a 40-byte header, counted in the bytes on the wire.
`link=off` runs at the raw speed of the socket.

`server_nic=shared` changes one thing: all of a shard's replies leave
through **one** outgoing link, the server's single network card, so W
workers pulling at once share it. That is the hotspot of the lesson's
"server bottleneck" page.
]]

page [[
# Running it

```
warpbench lab list                             # parameters and ranges
warpbench lab run paramserver                  # the defaults (~2 s)
warpbench lab run paramserver --set mode=async --set straggler=2:2
warpbench lab run paramserver --set mode=allreduce --set workers=4
warpbench lab run paramserver --json           # one JSON object per line
warpbench lab runs paramserver                 # your runs
warpbench lab show RUN                         # a run's figures
```

**In the terminal UI**, press `l` on the home screen, pick *paramserver*
with `j`/`k` and Enter. The form lists every parameter with its range:
`j`/`k` move, Enter edits a value, Left/Right step through choices, `d`
restores the defaults and `s` starts the run. While it runs the charts
fill in, four to a page (`]` and `[` turn the pages, `b` switches braille
and block characters), and `q` cancels (Ctrl-C on the command line); no
process is left behind. When it ends you get the summary and the
questions that use this run: Enter answers one, `r` runs again.

| parameter          | default  | range           | meaning                  |
|--------------------|----------|-----------------|--------------------------|
| `mode`             | sync     | sync, async,    | consistency mode         |
|                    |          | ssp, allreduce  |                          |
| `workers`          | 4        | 1 to 64         | worker processes W       |
| `servers`          | 1        | 1 to 8          | server shards S          |
| `params`           | 100000   | 10 to 10000000  | FP32 model parameters    |
| `sparsity`         | 0.999    | 0 to 0.9999     | share of zero features   |
| `batch`            | 32       | 1 to 4096       | examples per worker step |
| `lr`               | 0.5      | 1e-06 to 1000   | SGD learning rate        |
| `steps`            | 100      | 1 to 100000     | steps per worker         |
| `staleness`        | 2        | 0 to 1000       | ssp: steps ahead allowed |
| `compute_ms`       | 10       | 0 to 10000      | extra compute per step   |
| `link`             | 1Gbps    | off or a rate   | emulated link            |
| `latency_ms`       | 0        | 0 to 1000       | one-way link latency     |
| `straggler`        | none     | W:FACTOR        | a slow worker            |
| `compress`         | none     | q8 or topk:F    | pushes only              |
| `checkpoint_every` | 10       | 0 to 100000     | shard checkpoint period  |
| `seed`             | 1        | 0 to 2147483647 | the synthetic data       |
| `model`            | logistic | logistic,linear | the regression           |
| `server_nic`       | per_link | per_link,shared | a shard's outgoing links |
| `kill_worker`      | none     | N@STEP          | fault: kill worker N     |
| `kill_server`      | none     | N@STEP          | fault: kill shard N      |
| `stop_worker`      | none     | N@STEP          | fault: hang worker N     |
| `stop_server`      | none     | N@STEP          | fault: hang shard N      |
| `hang_timeout_ms`  | 0 (auto) | 0 to 3600000    | end a silent process     |
| `recover`          | off      | on, off         | restart a dead shard     |
| `trace`            | off      | on, off         | record step clocks       |

- `link`: `off`, or a rate in **bits** per second: a number, a prefix
  (k, M, G, T) and `bps`, e.g. `100Mbps`, `2.5Gbps`. `1GBps` is refused,
  because B would mean bytes.
- `straggler=2:3`: worker 2 (workers are numbered from 1) computes 3 times
  as long as the others, gradient and `compute_ms` both. FACTOR runs from
  1 to 1000 (the same rule as the k-means lab's straggler).
- `compress` shrinks the pushes; the weights still come back dense.
  `q8` sends one byte per entry plus a scale per block; `topk:F` sends the
  largest fraction F of the entries (8 bytes each, index and value) and
  carries the rest over into the next step's gradient.
- `staleness` matters in `ssp` only (other modes ignore it and say so).
- `kill_worker` and `kill_server` take `N@STEP`, STEP from 1 to steps − 1;
  see the page on faults. `checkpoint_every` is in steps, 0 for never.
- `trace=on` also records, per worker and step, when the pull ended and
  the push began (series `trace_pull`, `trace_push`).

Impossible settings are refused before anything starts, with a message
naming the parameter: a straggler or a fault naming a worker above
`workers`; more shards than parameters; more than 128 worker-shard
connections (`workers` × `servers`); `servers`, `compress` or
`kill_server` with `allreduce` (it has no server); `recover=on` with
`checkpoint_every=0`; `batch` × non-zero features above 20 million per
step; a model that needs more than half of your memory.

**Learning rate.** With a sane `lr` the loss falls. Set it far too high and
the loss grows instead, or becomes NaN: the updates overshoot the minimum
further each time. The lab watches for that: when the loss is not a
number, or the mean of the last 5 steps is above 3 times the loss of step
0, it stops the run as *failed* ("the loss diverged at step ...") and
suggests a learning rate ten times smaller. With the defaults, `lr=50`
diverges within ten steps. Stale gradients (async, ssp with a large bound)
can make a run diverge at a learning rate that sync still tolerates.

The questions after these pages use the figures of **your latest
completed run** of the lab; until you have one they tell you what to run.
A failed or cancelled run is not used.
]]

page [[
# The model, precisely

This page says everything the lab computes in a `sync` run with
`compress=none`, precisely enough to rebuild its training in a page of
numpy and compare your loss with the lab's, step by step. (The course's
own test does exactly that, in C.)

**Sizes.** P = `params`; H = min(32, P) hot features; K = round((1 −
`sparsity`) × P), raised to H and capped at P, non-zero features per
example; N = K − H noise features. W = `workers`, B = `batch`.

**Random numbers.** All of them come from splitmix64, on unsigned 64-bit
integers with wrapping arithmetic:

```
mix(z):     z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
            z = (z ^ (z >> 27)) * 0x94d049bb133111eb
            return z ^ (z >> 31)
next(s):    s = s + 0x9e3779b97f4a7c15;  return mix(s)
normal(s):  r = next(s); add its four 16-bit fields
            (r & 0xffff, (r >> 16) & 0xffff, (r >> 32) & 0xffff, r >> 48);
            float32((sum - 131070) / (65536 * sqrt(1/3)))
uniform(s): (next(s) >> 11) * 2^-53
```

normal() is an Irwin–Hall sum: close to a standard normal, cheap and the
same on every machine.

**Hidden weights.** From s = mix(`seed` ^ 0x5eed5eed5eed), the H weights
w*(i) = float32(normal(s) × 3/√H) for i = 0 … H − 1, in order, so that
the true margin z has a standard deviation of about 3.

**An example.** Worker k's example j of step t is number
e = (t × W + k) × B + j. Its generator starts at
s = mix(`seed` × 0x9e3779b97f4a7c15 + 0x1234567) ^ mix(e + 1) and draws,
in this order:

1. the H hot features: x(i) = normal(s) for keys i = 0 … H − 1, and
   z = Σ w*(i) x(i);
2. the label: logistic, y = 1 when uniform(s) < sigmoid(z), else 0;
   linear, y = z + 0.1 × normal(s);
3. the N noise features. Dense (N = P − H): keys H, H + 1, … P − 1 in
   order. Otherwise each key is H + (next(s) mod (P − H)), drawn just
   before its value, and a key drawn twice counts twice. The value is
   normal(s) × σ in float32, σ = float32(√(H / N)), so the noise
   weighs as much as the signal.

**Loss and gradient.** The margin is m = Σ w(i) x(i) over the example's
features (in double precision). Logistic: loss softplus(m) − y·m,
residual r = sigmoid(m) − y. Linear: loss (m − y)²/2, r = m − y. A
worker's gradient adds float32(r / B) × x(i) into key i for every
feature of every example, in float32, in example order; its loss is the
mean of its B losses.

**The update.** The weights start at 0. At step t every worker computes
its gradient at the same weights; the shards add the W gradients in
worker order and set w ← w − float32(lr / W) × (their sum), in float32. The
series `loss` at step t is the mean of the W workers' losses, taken
before that step's update: at step 0 every margin is 0, so a logistic
run starts at ln 2 = 0.693. (`async` applies each gradient on arrival
with the same lr / W; `ssp` too, within its bound.)
]]

page [[
# The course's example, measured

The crash course asks: 5 workers, 1 M parameters, a 1 Gbps network and
50 ms of computation per step. What fraction of the time is
communication? Run it (about 15 seconds, 100 steps):

```
warpbench lab run paramserver --set mode=sync --set workers=5 \
    --set params=1000000 --set link=1Gbps --set compute_ms=50
```

and put the run's summary next to the course's calculation:

```
             the course's model              your run (summary key)
pull + push  2 × 1,000,000 × 4 B = 8 MB
link         1 Gbps = 125 MB/s               link_mb_s          125
comm.        8 MB / 125 MB/s = 64 ms         predicted_comm_ms   64
                                             comm_ms            ~73
compute      50 ms                           compute_ms_mean    ~53
step         50 + 64 = 114 ms                step_ms           ~127
fraction     64 / 114 = 0.561                predicted_comm_fraction
                                                              0.561
                                             comm_fraction    ~0.58
```

(The "~" numbers are what runs on a small 2-core machine gave: a
fraction of 0.576 to 0.59. Yours will differ a little.) The measured
fraction comes out a bit **above** 56%, and `comm_ms` shows why: the
workers spend about 7 to 10 ms more per step communicating than the
model's 64 ms. Most of that is the sync shard's own work: it adds the
five 1 M-float gradients **one after the other, in worker order** (that
fixed order is what makes sync runs reproducible bit for bit), then
updates the weights, and only then answers the next pulls. Every worker
sees that time as part of its communication.
Run it again with `--set workers=1` and the surplus almost disappears:
the fraction falls to about 0.56.

Two smaller effects pull the other way or hardly matter:

- **compute_ms_mean is a little more than 50 ms**: computing the gradient
  takes time of its own, and a sleep never ends exactly on time. More
  compute makes the fraction slightly *smaller*.
- **Headers and latency**: 40 bytes per 4 MB message is nothing, and
  `latency_ms` is 0 unless you set it; for a small model the latency
  would be most of the communication.

The lab's `predicted_comm_fraction` is the course's model for the settings
you ran, computed with the `compute_ms` you set. A measured fraction
within about 10% of it (here 0.58 against 0.561: 3% above) says the model
captures what happens.

**Why W does not appear in the calculation.** The lab gives every worker
its own link to every shard, as the course's example assumes: no shared
server link. With `--set server_nic=shared` the shard's five 4 MB replies
share one 125 MB/s link: the pull alone takes 5 × 32 = 160 ms, and one run
measured a fraction of 0.79 (the pushes still arrive on their own links;
the lesson's 320 ms counts both directions through one card).

**Ring all-reduce, the same way.** With `--set mode=allreduce` (and no
`servers`) the five workers average their gradients in a ring:
reduce-scatter, then all-gather, 2(W − 1) steps each moving 1/W of the
gradient to the next worker. No server, so no pull: each worker sends
2(W − 1)/W × 4 MB = 6.4 MB per step, 51.2 ms at 1 Gbps, and the lab's
`predicted_comm_fraction` becomes 51.2 / 101.2 = 0.506 (one run: 0.52).
]]

page [[
# Reading the results

While it runs, the lab draws (in the terminal UI, two pages of charts):

- **loss vs steps** and **loss vs wall time**, the mean of the workers'
  training losses. Compare two runs on both: async usually wins against
  the clock (more updates per second) and loses against steps (each
  update is computed on staler weights).
- **time per step**: compute, communication (pull and push, or the
  all-reduce, all waiting included) and the part of it a shard *held* a
  pull (the sync barrier, the ssp bound), each the mean of the workers.
- **updates per second**, over half-second windows.
- **wire MB/s per shard**: bytes in and out of each shard per second.
- a **staleness histogram** (how many worker steps were 0, 1, 2, ...
  steps ahead of the slowest worker when they pulled: all at 0 in sync,
  at most `staleness` in ssp; none in allreduce) and **per worker** bars
  of compute, communication and held time (means per step). Both update
  live as steps come in, and are final at the end of the run. In
  sync with a straggler, the fast workers' communication bars grow by
  the straggler's extra compute: they spend it waiting for the barrier.
  Only part of it shows as *held*: the shard takes pushes in worker
  order, so a worker numbered after the straggler waits for its turn
  around its push, which is communication but not a held pull.

The figures of the summary (timing figures leave out each worker's first
step, when there are at least three):

| key                       | meaning                                    |
|---------------------------|--------------------------------------------|
| `mode`                    | the mode that ran                          |
| `step_ms`                 | mean wall time of one worker step          |
| `compute_ms_mean`         | measured compute per step: gradient plus   |
|                           | compute_ms (× FACTOR for a straggler);     |
|                           | allreduce: plus applying the update        |
| `comm_ms`                 | step_ms − compute_ms_mean: pull, push (or  |
|                           | the all-reduce) and waiting                |
| `comm_fraction`           | comm_ms / step_ms, measured                |
| `predicted_comm_ms`       | the course's model: 2 × 4 B × params /     |
|                           | link; allreduce: 2(W−1)/W × 4 B × params / |
|                           | link (these three absent with link=off)    |
| `predicted_comm_fraction` | predicted_comm_ms / (that + compute_ms)    |
| `link_mb_s`               | the link, MB/s, each way of a connection   |
| `initial_loss`            | mean loss of step 0 (ln 2 = 0.693 for      |
|                           | logistic in sync and allreduce; async and  |
|                           | ssp can start lower: a worker's first pull |
|                           | may already see others' pushes)            |
| `final_loss`              | mean loss over the last tenth of the steps |
| `updates_per_s`           | the sum of each worker's own step rate     |
|                           | (its steps / its time)                     |
| `samples_per_s`           | updates_per_s × batch                      |
| `wire_mb_s`               | bytes in and out per second per shard,     |
|                           | mean of the shards (not in allreduce)      |
| `wait_ms_mean`            | per step, time a shard held a pull (not    |
|                           | the wait for a sync push's turn)           |
| `max_staleness`           | async and ssp: the largest gap, in steps,  |
|                           | between a worker and the slowest worker    |
|                           | (in ssp at most `staleness`)               |
| `allreduce_ms`            | allreduce: mean time of one all-reduce     |
| `algbw_gbs`, `busbw_gbs`  | allreduce: algorithm and bus bandwidth     |
| `pushpull_mb_s`           | the rate one connection moves a pull reply |
|                           | at (see below; not in allreduce)           |
| `workers_lost`            | workers that died during the run           |
| `shard_restarts`          | shards restarted from a checkpoint         |
| `checkpoints`             | checkpoints the master received            |
| `steps_done`, `workers`,  | what ran (servers is 0 in allreduce)       |
| `servers`, `params`       |                                            |
| `weights_fnv`,            | a fingerprint and the L2 norm of the final |
| `weights_norm`            | weights: equal in two sync runs            |

**updates_per_s** adds the workers' rates. In sync every worker runs at
the pace of the slowest, so it is W / step_ms. In async with a straggler
the fast workers keep their own pace and only the straggler's share is
slow: that is where async's throughput comes from.

**algbw and busbw** follow nccl-tests. The *algorithm bandwidth* is the
gradient's size (4 B × params) divided by the time of one all-reduce. The
*bus bandwidth* multiplies it by 2(W − 1)/W, the share of the data each
link really carries in a ring, so that it can be compared directly with
the link's own speed: a perfect ring reaches busbw = link bandwidth
(`link_mb_s` / 1000 GB/s), whatever W is.

**pushpull_mb_s** is measured on the pull replies: their bytes divided
by their time from the shard starting to send to the worker holding the
last byte (time a shard *held* the pull is not in it). A push moves the
same bytes the other way, but its send returns as soon as the bytes sit
in the socket's buffer, long before the shard has them, so timing it
would overstate the rate. On an emulated link the figure stays at or
below `link_mb_s`; with `link=off` compare it with the socket's raw
speed (`warpbench bench paramserver`).

Things to try, one change at a time: `servers=1` against `servers=4` with
`server_nic=shared`; `compress=topk:0.01` or `compress=q8` on the course's
example (the pull still moves 4 MB: one run gave about 0.51 for both);
`mode=async` against `mode=sync` with `straggler=2:2`; `ssp` with
`staleness=1` and `3`; `allreduce` against `sync` at equal settings.
]]

page [[
# Faults: a dead worker, a dead shard

`kill_worker=N@STEP` and `kill_server=N@STEP` make that process kill
itself (SIGKILL, no goodbye) when it reaches step STEP. Try them on small
settings, e.g. `--set steps=30 --set params=1000`.

**A worker dies.** Its connections close and the rest carry on:

- `sync`: the shards drop it from the barrier and the others go on (the
  log says "the shards drop it from the barrier and the others go on (3
  workers left)"). A worker that hangs instead of dying is dropped the
  same way after a timeout (5 s plus twenty of its expected steps;
  `hang_timeout_ms` sets it).
- `async`, `ssp`: the others go on without it; ssp's bound now counts
  the living workers only. A hung worker (try `stop_worker=N@STEP`, a
  SIGSTOP) is ended after the same timeout, and the others go on.
- `allreduce`: a ring needs every rank, so the lab **stops** and says so.

The run's `workers_lost` figure counts the dead.

**A shard dies.** Its keys are gone: no worker can pull or push them.

- By default the lab **stops** with a message naming the shard, the
  step and, if there is one, its last checkpoint. The run is stored as
  failed (its figures up to then are kept, but questions do not use it).
- With `--set recover=on` (and `checkpoint_every` above 0; the default is
  10) the master, which keeps every shard's latest checkpoint, starts a
  new shard from it, hands every living worker a new connection, and
  training continues (before the first checkpoint: from the initial,
  all-zero weights). The updates since that checkpoint are lost, which
  the log says. `shard_restarts` and `checkpoints` count what happened.

A shard that hangs (`stop_server=N@STEP`) is ended after half the timeout
and handled like a dead one: the lab stops naming it, or `recover=on`
restarts it.

```
warpbench lab run paramserver --set steps=30 --set params=1000 \
    --set kill_server=1@10                  # stops: shard 1 died
warpbench lab run paramserver --set steps=30 --set params=1000 \
    --set kill_server=1@10 --set recover=on # restarts it, goes on
```
]]

------------------------------------------------------------------------------
question {
  id = "lab-paramserver.comm-fraction",
  kind = "numeric",
  title = "Your communication fraction",
  prompt = [[
In your latest paramserver run ({mode}), a worker step took {step} ms on
average, of which {comp} ms were compute. What fraction of a step went to
communication (pulling, pushing and waiting; in allreduce mode, the
all-reduce)? (A fraction like 0.3, or a percentage like 30%.)
Give three significant figures.{note}]],
  lab = "paramserver",
  topics = { "communication", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "Communication = step time - compute time.",
    "Fraction = communication / step time.",
  },
  params = function(rng, ctx)
    local p = { mode = mode_of(ctx) }
    local step, comp = wb.lab.figure(ctx, "step_ms"), wb.lab.figure(ctx, "compute_ms_mean")
    if ctx.lab and not (step and comp and step > 0 and comp >= 0 and comp < step) then
      p.note = "\n\n(Your latest run does not report both step_ms and compute_ms_mean. "
        .. "Run `warpbench lab run paramserver` again.)"
    elseif step and comp then
      p.step, p.comp = sig(step, 4), sig(comp, 4)
      p.ref = (p.step - p.comp) / p.step
      p.measured = wb.lab.figure(ctx, "comm_fraction")
      p.predicted = wb.lab.figure(ctx, "predicted_comm_fraction")
    end
    return wb.lab.blanks(p, { "mode", "step", "comp" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.01, abs = 0.002 },
      wrong = {
        { value = function(p) return p.comp / p.step end,
          feedback = "That is the compute share; the question asks for communication." },
        { value = function(p) return (p.step - p.comp) / p.comp end,
          feedback = "Divide by the whole step, not by the compute time." },
        { value = function(p) return p.predicted end,
          feedback = "That is the course's model for your settings (the lab's predicted communication fraction); the question asks what your run measured." },
      },
      explain = function(p)
        local s = string.format("(%s - %s) / %s = %s; the lab's measured "
          .. "communication fraction is the same quantity.", wb.sig(p.step, 4), wb.sig(p.comp, 4), wb.sig(p.step, 4),
          wb.sig(p.ref, 3))
        if wb.finite(p.predicted) then
          s = s .. string.format(" The course's model predicted %s for your settings"
            .. ".", wb.sig(p.predicted, 3))
        end
        s = s .. " The course's worked example (5 workers, 1 M parameters, 1 Gbps, 50 ms,"
          .. " sync) predicts 64/114 = 0.56; the lab measures about 0.58 there, because the"
          .. " shard adds the five gradients one after another before it answers the next pulls."
        return s
      end,
    })
  end,
  examples = {
    -- one real run of the course's example (sync, 5 workers, 1 M, 1Gbps, 50 ms)
    { lab = { params = { mode = "sync", workers = 5, params = 1000000, link = "1Gbps",
        compute_ms = 50 }, summary = { mode = "sync", step_ms = 127.119, compute_ms_mean = 53.359,
        comm_fraction = 0.5802, predicted_comm_fraction = 0.5614 } }, answer = "0.5803", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "58%", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "(127-53.4)/127", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "0.4205", score = 0 },   -- the compute share
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "1.378", score = 0 },    -- over compute
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "0.561", score = 0 },    -- the model, not the measurement
    { lab = { params = { mode = "allreduce" }, summary = { mode = "allreduce", step_ms = 109.5,
        compute_ms_mean = 53.0 } }, answer = "0.516", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { step_ms = 127.119, compute_ms_mean = 53.359 } },
      answer = "58 ms", score = "invalid" },
    { lab = { params = { mode = "sync" }, summary = { final_loss = 0.3 } }, answer = "0.5", score = "invalid" },
    { "0.58", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-paramserver.predict",
  kind = "numeric",
  title = "Predict your run's communication fraction",
  prompt = [[
Your latest paramserver run used mode = {mode}, params = {params},
link = {link} and compute_ms = {cms}. Predict the fraction of a step
spent communicating, using the course's model:

{model}
Give three significant figures.{note}]],
  lab = "paramserver",
  topics = { "communication", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Each step moves the model to and from the server over the link: how long is that next to the compute?",
    "Bytes: 4 per FP32 parameter. Link: bits per second / 8 = bytes per second (1 Gbps = 125 MB/s).",
    "Parameter server: 2 × params × 4 B per step. Ring all-reduce: 2(W − 1)/W × params × 4 B.",
    "Fraction = communication / (communication + compute_ms).",
  },
  params = function(rng, ctx)
    local p = {}
    local P, link = wb.lab.param(ctx, "params"), wb.lab.param(ctx, "link")
    local cms = wb.lab.param(ctx, "compute_ms")
    local W = wb.lab.param(ctx, "workers")
    local mode = mode_of(ctx)
    local bps = link_bps(link)
    p.mode = mode
    p.params = wb.finite(P) and math.floor(P + 0.5) or nil
    p.link = type(link) == "string" and link or nil
    p.cms = wb.finite(cms) and cms or nil
    p.w = wb.finite(W) and math.floor(W + 0.5) or nil
    p.ring = mode == "allreduce"
    if p.ring then
      p.model = "A ring all-reduce over W = " .. tostring(p.w or "?") .. " workers: each "
        .. "worker sends\n2(W - 1)/W of the FP32 gradient over its own link, not overlapped\n"
        .. "with the compute_ms of compute."
    else
      p.model = "Every step pulls the FP32 weights and pushes an FP32 gradient of the\n"
        .. "same size over the worker's own link, one after the other, and\n"
        .. "computes for compute_ms."
    end
    if ctx.lab then
      if not (mode and (PS_MODES[mode] or p.ring)) then
        p.note = "\n\n(Your latest run does not say its mode. Run `warpbench lab run paramserver` again.)"
      elseif bps == 0 then
        p.note = "\n\n(Your latest run had link=off: without an emulated link the model predicts "
          .. "no communication time. Run with --set link=1Gbps.)"
      elseif not (p.params and bps and p.cms) then
        p.note = "\n\n(Your latest run does not show params, link and compute_ms. "
          .. "Run `warpbench lab run paramserver` again.)"
      elseif p.ring and not (p.w and p.w >= 2) then
        p.note = "\n\n(Your latest allreduce run had one worker: there is nothing to all-reduce. "
          .. "Run with --set mode=allreduce --set workers=4.)"
      else
        p.bps = bps
        p.ps_ms = 1000 * 2 * 4 * p.params / bps
        p.share = p.ring and 2 * (p.w - 1) / p.w or 2
        p.mb = p.share * 4 * p.params / 1e6
        p.comm_ms = 1000 * p.mb * 1e6 / bps
        p.ref = p.comm_ms / (p.comm_ms + p.cms)
        p.measured = wb.lab.figure(ctx, "comm_fraction")
      end
    end
    return wb.lab.blanks(p, { "mode", "params", "link", "cms", "model" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.01, abs = 0.002 },
      wrong = {
        { value = function(p)
            local c = p.comm_ms / 2
            return c / (c + p.cms)
          end,
          feedback = "You counted one transfer; each step moves the data twice (pull and push, or reduce-scatter and all-gather)." },
        { value = function(p)
            local c = p.comm_ms / 8
            return c / (c + p.cms)
          end,
          feedback = "The link is quoted in bits per second: divide by 8 for bytes (1 Gbps = 125 MB/s)." },
        { value = function(p)
            if not p.ring then return nil end
            return p.ps_ms / (p.ps_ms + p.cms)
          end,
          feedback = "That is the parameter server's 2 × 4 B × params. In a ring each worker sends only 2(W - 1)/W of it." },
        { value = function(p) return p.cms / (p.comm_ms + p.cms) end,
          feedback = "That is the compute share; the question asks for communication." },
        { value = function(p) return p.comm_ms / p.cms end,
          feedback = "Divide by the whole step (communication + compute), not by the compute alone." },
        { value = function(p) return p.measured end,
          feedback = "That is what your run measured (the lab's measured communication fraction); the question asks what the course's model predicts." },
      },
      explain = function(p)
        local s
        if p.ring then
          s = string.format("2 × %d/%d × %d × 4 B = %s MB at %s MB/s = %s ms; ",
            p.w - 1, p.w, p.params, wb.sig(p.mb, 3), wb.sig(p.bps / 1e6, 4),
            wb.sig(p.comm_ms, 3))
        else
          s = string.format("2 × %d × 4 B = %s MB at %s MB/s = %s ms; ", p.params,
            wb.sig(p.mb, 3), wb.sig(p.bps / 1e6, 4), wb.sig(p.comm_ms, 3))
        end
        s = s .. string.format("%s / (%s + %s) = %s, the lab's predicted communication fraction.",
          wb.sig(p.comm_ms, 3), wb.sig(p.comm_ms, 3), wb.sig(p.cms, 3), wb.sig(p.ref, 3))
        if wb.finite(p.measured) then
          local r = p.measured / p.ref
          s = s .. string.format(" Your run measured a communication fraction of %s, %s the prediction.",
            wb.sig(p.measured, 3),
            math.abs(r - 1) <= 0.1 and "within 10% of" or (r > 1 and "above" or "below"))
          if math.abs(r - 1) > 0.1 then
            s = s .. " The model leaves out latency, headers, the gradient's own compute,"
              .. " the shard's work and any waiting (a straggler, a shared server link)."
          end
        end
        return s
      end,
    })
  end,
  examples = {
    -- one real run of the course's example
    { lab = { params = { mode = "sync", workers = 5, params = 1000000, link = "1Gbps", compute_ms = 50 },
        summary = { comm_fraction = 0.5802 } }, answer = "0.5614", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "64/114", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "56.1%", score = 1 },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.58", score = 0 },     -- the measurement, not the model
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.39", score = 0 },     -- one transfer
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.138", score = 0 },    -- bits as bytes
    { lab = { params = { mode = "async", params = 100000, link = "100Mbps", compute_ms = 20 } },
      answer = "64/84", score = 1 },
    { lab = { params = { mode = "sync", params = 100000, link = "0.1Gbps", compute_ms = 20 } },
      answer = "64/84", score = 1 },
    { lab = { params = { mode = "sync", params = 100000, link = "1e8bps", compute_ms = 20 } },
      answer = "64/84", score = 1 },
    -- allreduce: the ring formula (one real run: comm_fraction 0.516)
    { lab = { params = { mode = "allreduce", workers = 5, params = 1000000, link = "1Gbps", compute_ms = 50 },
        summary = { comm_fraction = 0.516 } }, answer = "51.2/101.2", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 5, params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0.561", score = 0 },    -- the parameter server's formula
    { lab = { params = { mode = "allreduce", workers = 1, params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "0", score = "invalid" },
    { lab = { params = { mode = "sync", params = 1000000, link = "off", compute_ms = 50 } },
      answer = "0", score = "invalid" },
    { lab = { params = { mode = "sync", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "64 ms", score = "invalid" },
    { "0.56", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-paramserver.busbw",
  kind = "numeric",
  title = "Bus bandwidth from your all-reduce run",
  prompt = [[
Your latest paramserver run ran mode = allreduce with {w} workers and
measured an algorithm bandwidth of {alg} GB/s. What is its bus bandwidth,
as nccl-tests defines it?
Give three significant figures.{note}]],
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
    local W, alg = wb.lab.param(ctx, "workers"), wb.lab.figure(ctx, "algbw_gbs")
    if ctx.lab then
      if mode ~= "allreduce" then
        p.note = "\n\n(Your latest run used mode=" .. (mode or "?") .. "; bus bandwidth is "
          .. "measured in allreduce mode. Run with --set mode=allreduce --set workers=4.)"
      elseif not (wb.finite(W) and W >= 2 and alg and alg > 0) then
        p.note = "\n\n(Your latest allreduce run does not report algbw_gbs with at least 2 "
          .. "workers. Run with --set mode=allreduce --set workers=4.)"
      else
        p.w = math.floor(W + 0.5)
        p.alg = sig(alg, 3)
        p.ref = p.alg * 2 * (p.w - 1) / p.w
        p.bus = wb.lab.figure(ctx, "busbw_gbs")
        local bps = link_bps(wb.lab.param(ctx, "link"))
        p.link_gbs = bps and bps > 0 and bps / 1e9 or nil
      end
    end
    return wb.lab.blanks(p, { "w", "alg" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "GB/s",
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
        local s = string.format("%s × 2 × %d/%d = %s GB/s (the lab's busbw_gbs).",
          wb.sig(p.alg, 3), p.w - 1, p.w, wb.sig(p.ref, 3))
        if wb.finite(p.link_gbs) then
          s = s .. string.format(" Your link was %s GB/s: a perfect ring's bus bandwidth equals it,"
            .. " so yours reached %s%% of it.", wb.sig(p.link_gbs, 3), wb.sig(100 * p.ref / p.link_gbs, 3))
        end
        return s
      end,
    })
  end,
  examples = {
    -- one real run: allreduce, 4 workers, 100000 params, 1Gbps, compute_ms 5
    { lab = { params = { mode = "allreduce", workers = 4, link = "1Gbps" },
        summary = { mode = "allreduce", algbw_gbs = 0.0674, busbw_gbs = 0.1011 } }, answer = "0.1011", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0674 } },
      answer = "101 MB/s", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0674 } },
      answer = "0.0674*2*3/4", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0674 } },
      answer = "0.0674", score = 0 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0674 } },
      answer = "0.1348", score = 0 },
    { lab = { params = { mode = "allreduce", workers = 5 }, summary = { algbw_gbs = 0.0708 } },
      answer = "0.0708*1.6", score = 1 },
    { lab = { params = { mode = "allreduce", workers = 4 }, summary = { algbw_gbs = 0.0674 } },
      answer = "0.101 s", score = "invalid" },
    { lab = { params = { mode = "allreduce", workers = 1 }, summary = { step_ms = 10 } },
      answer = "0", score = "invalid" },
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
take, in ms?
Give three significant figures.{note}]],
  lab = "paramserver",
  unit = "ms",
  topics = { "stragglers", "sync-async", "lab" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "At the barrier everyone waits for the slowest worker's compute.",
    "Step = FACTOR × compute_ms + 2 × 4 × params / (link in bytes per second).",
  },
  params = function(rng, ctx)
    local p = {}
    local mode = mode_of(ctx)
    local s = wb.lab.param(ctx, "straggler")
    local sw, sf = straggler_of(s)
    local P, cms = wb.lab.param(ctx, "params"), wb.lab.param(ctx, "compute_ms")
    local bps = link_bps(wb.lab.param(ctx, "link"))
    p.strag = type(s) == "string" and s or nil
    p.sw, p.sf = sw, sf
    p.params = wb.finite(P) and math.floor(P + 0.5) or nil
    p.cms = wb.finite(cms) and cms or nil
    p.link = type(wb.lab.param(ctx, "link")) == "string" and wb.lab.param(ctx, "link") or nil
    if ctx.lab then
      if mode ~= "sync" or not (sf and sf > 1) then
        p.note = "\n\n(This question needs a synchronous run with a straggler; your latest run "
          .. "was mode=" .. (mode or "?") .. ", straggler=" .. tostring(p.strag or "none")
          .. ". A cheap one: --set mode=sync --set straggler=2:2 --set params=100000 "
          .. "--set link=100Mbps --set compute_ms=50 --set steps=20.)"
      elseif not (p.params and p.cms and bps) then
        p.note = "\n\n(Your latest run does not show params, link and compute_ms. "
          .. "Run `warpbench lab run paramserver` again.)"
      else
        p.comm_ms = bps > 0 and 1000 * 8 * p.params / bps or 0
        p.ref = sf * p.cms + p.comm_ms
        p.measured = wb.lab.figure(ctx, "step_ms")
        p.wait = wb.lab.figure(ctx, "wait_ms_mean")
      end
    end
    return wb.lab.blanks(p, { "strag", "sw", "sf", "cms", "params", "link" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "ms",
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
        if wb.finite(p.measured) then
          s = s .. string.format(" Your run measured step_ms = %s.", wb.sig(p.measured, 3))
          s = s .. " The fast workers spend the straggler's extra compute idle, waiting for the"
            .. " barrier: a worker numbered below the straggler mostly as a held pull (wait_ms_mean"
          if wb.finite(p.wait) then
            s = s .. string.format(" = %s ms, averaged over all workers", wb.sig(p.wait, 3))
          end
          s = s .. "), one above it mostly around its push, which the shard takes in worker order."
            .. " In async mode they would not wait, but the straggler's gradients would arrive stale."
        end
        return s
      end,
    })
  end,
  examples = {
    -- one real run: sync, 4 workers, straggler 2:2, 100000 params, 100Mbps, 50 ms
    { lab = { params = { mode = "sync", straggler = "2:2", params = 100000, link = "100Mbps", compute_ms = 50 },
        summary = { step_ms = 165.07, wait_ms_mean = 12.7 } }, answer = "164", score = 1 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "2*50 + 64", score = 1 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "114", score = 0 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "100", score = 0 },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "228", score = 0 },
    { lab = { params = { mode = "sync", straggler = "3:1.5", params = 100000, link = "off", compute_ms = 40 } },
      answer = "60", score = 1 },
    { lab = { params = { mode = "async", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "164", score = "invalid" },
    { lab = { params = { mode = "sync", straggler = "none", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "114", score = "invalid" },
    { lab = { params = { mode = "sync", straggler = "2:2", params = 1000000, link = "1Gbps", compute_ms = 50 } },
      answer = "164 MB", score = "invalid" },
    { "164", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-paramserver.updates-per-s",
  kind = "numeric",
  title = "Updates per second from your step time",
  prompt = [[
Your latest paramserver run ({mode}) had {w} workers, and a worker step
took {step} ms on average. In {mode} mode every worker moves at the same
pace. How many gradient updates per second do the {w} workers deliver
together (the lab's updates_per_s)?
Give three significant figures.{note}]],
  lab = "paramserver",
  topics = { "sync-async", "lab" },
  rubric = { "practice.profiling", "theory.parallel" },
  hints = {
    "One worker makes 1000 / step_ms updates per second.",
    "The lab adds up the workers' rates.",
  },
  params = function(rng, ctx)
    local p = { mode = mode_of(ctx) }
    local W, step = wb.lab.param(ctx, "workers"), wb.lab.figure(ctx, "step_ms")
    local lost = wb.lab.figure(ctx, "workers_lost") or 0
    if ctx.lab then
      if p.mode ~= "sync" and p.mode ~= "allreduce" then
        p.note = "\n\n(Your latest run used mode=" .. tostring(p.mode or "?") .. ": there the "
          .. "workers need not move in step, so one step time does not give the total. "
          .. "Run with --set mode=sync.)"
      elseif lost > 0 then
        p.note = string.format("\n\n(A worker died during your latest run (workers_lost = %d), "
          .. "so not every worker ran every step. Run again without kill_worker.)", math.floor(lost))
      elseif not (wb.finite(W) and W >= 1 and step and step > 0) then
        p.note = "\n\n(Your latest run does not report workers and step_ms. "
          .. "Run `warpbench lab run paramserver` again.)"
      else
        p.w = math.floor(W + 0.5)
        p.step = sig(step, 4)
        p.ref = p.w * 1000 / p.step
        p.ups = wb.lab.figure(ctx, "updates_per_s")
      end
    end
    return wb.lab.blanks(p, { "mode", "w", "step" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.01 },
      wrong = {
        { value = function(p) return 1000 / p.step end,
          feedback = "That is one worker's rate; updates_per_s adds all the workers'." },
        { value = function(p) return p.w / p.step end,
          feedback = "step_ms is in milliseconds: a second holds 1000 / step_ms steps." },
        { value = function(p) return 1000 / (p.w * p.step) end,
          feedback = "The workers step at the same time, side by side, not one after another: multiply by W." },
      },
      explain = function(p)
        local s = string.format("%d × 1000 / %s = %s updates per second.", p.w,
          wb.sig(p.step, 4), wb.sig(p.ref, 3))
        if wb.finite(p.ups) then
          s = s .. string.format(" The lab reported updates_per_s = %s: it adds each worker's"
            .. " own rate (its steps / its time).", wb.sig(p.ups, 3))
        end
        s = s .. " In async with a straggler the fast workers keep their own pace, so the sum"
          .. " is larger than W / (mean step): that is async's throughput advantage."
        return s
      end,
    })
  end,
  examples = {
    -- one real run of the course's example: updates_per_s 39.33
    { lab = { params = { mode = "sync", workers = 5 }, summary = { mode = "sync", step_ms = 127.119,
        updates_per_s = 39.333 } }, answer = "39.33", score = 1 },
    { lab = { params = { mode = "sync", workers = 5 }, summary = { step_ms = 127.119 } },
      answer = "5*1000/127", score = 1 },
    { lab = { params = { mode = "sync", workers = 5 }, summary = { step_ms = 127.119 } },
      answer = "7.87", score = 0 },     -- one worker
    { lab = { params = { mode = "sync", workers = 5 }, summary = { step_ms = 127.119 } },
      answer = "0.03937", score = 0 },  -- ms as s
    { lab = { params = { mode = "allreduce", workers = 5 }, summary = { step_ms = 109.5 } },
      answer = "45.66", score = 1 },
    { lab = { params = { mode = "async", workers = 4 }, summary = { step_ms = 15.4 } },
      answer = "260", score = "invalid" },
    { lab = { params = { mode = "sync", workers = 4 }, summary = { step_ms = 10.8, workers_lost = 1 } },
      answer = "370", score = "invalid" },
    { "39.4", "invalid" },   -- no run yet
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
    local s = wb.lab.param(ctx, "straggler")
    p.strag = type(s) == "string" and s or nil
    local u, m = wb.lab.figure(ctx, "updates_per_s"), wb.lab.figure(ctx, "max_staleness")
    p.ups = u and wb.sig(u, 3) or nil
    if m then
      p.stale = wb.sig(m, 3)
    elseif ctx.lab then
      p.stale = "not measured (" .. (p.mode or "?") .. ")"
    end
    return wb.lab.blanks(p, { "mode", "strag", "ups", "stale" })
  end,
  choices = {
    "Sync: every step takes as long as the straggler's, the other workers wait at the barrier. Async: more updates per second, but the straggler's gradients arrive computed on older weights (higher staleness).",
    "Both modes slow down equally: one slow worker is one slow worker.",
    "Async runs at the straggler's pace, sync does not notice it.",
    "Sync is faster, because the barrier keeps the workers in step.",
  },
  answer = 1,
  why = {
    [1] = "One run with the defaults and --set straggler=2:2 --set steps=40 gave sync 142 updates per second; async 212 (1.5 times as many) with max_staleness 15; ssp with staleness 2, 154 with max_staleness 2. The final losses were about equal (0.383 and 0.384). Your latest run: mode = {mode}, {ups} updates per second.",
    [2] = "Only sync has a barrier; async shards apply each gradient when it arrives, so the fast workers do not wait.",
    [3] = "It is the other way round: the barrier is what makes sync wait for the slowest.",
    [4] = "The barrier makes every sync step last as long as the slowest worker's step.",
  },
  examples = {
    -- one real run: async, 4 workers, straggler 2:3, 1000 params, 40 steps
    { lab = { params = { mode = "async", straggler = "2:3" },
        summary = { mode = "async", updates_per_s = 320.8, max_staleness = 26 } }, answer = "a", score = 1 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 24.2 } }, answer = "b", score = 0 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 24.2 } }, answer = "c", score = 0 },
    { lab = { params = { mode = "sync" }, summary = { updates_per_s = 24.2 } }, answer = "z", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}
