-- Lab: the distributed labs on a real cluster.
--
-- How the k-means, parameter-server and allreduce labs run across machines
-- on Open MPI (transport=mpi: labs/lab_mpi.c, labs/lab_ps_mpi.c,
-- labs/lab_launch.c), how a class's lab cluster is described to them
-- (hostfiles, hosts=), what changes when the network is real instead of the
-- in-program emulator, and what scripts/netlab.sh measured: the course's
-- 56 % example (midterm-crash-course.md hour 4: 5 workers, 1 M parameters,
-- 1 Gbit/s, 50 ms of compute) over links the kernel shapes. The text is
-- ours; the figures are from runs on the machine this was written on (two
-- cores), and the lesson says so.

lesson {
  id = "lab-cluster",
  title = "Lab: the labs on a real cluster",
  topics = { "cluster", "mpi", "lab" },
  rubric = { "practice.deployment", "advanced.integration" },
}

------------------------------------------------------------------------------
page [[
# Beyond one machine

On one computer the distributed labs start their workers as processes that
talk over Unix sockets, and `link=` emulates a network inside the program.
That teaches the arithmetic, but a cluster's network has its own opinions.
The same labs also run as an **Open MPI** job: every process is a *rank*,
and MPI carries the same messages between ranks on any number of hosts.

```
warpbench lab run paramserver --set transport=mpi
warpbench lab run paramserver --set hosts=node1:3,node2:3
warpbench lab run kmeans --set hostfile=cluster.txt
mpirun -np 6 --hostfile cluster.txt \
    warpbench lab run paramserver --set transport=mpi
```

Rank 0 is the **master**: it keeps the store, draws the charts, prints the
figures. The other ranks are what the master's processes would have been:
server shards then workers (parameter server), map workers (k-means), or
the all-reduce's workers. With `hosts=` or `hostfile=` (or `transport=mpi`
alone, on this machine) Warpbench runs Open MPI's own `mpirun` for you and
shows the run like any other; `q` or Ctrl-C ends every rank on every host.
Started under `mpirun` yourself, rank 0 is an ordinary `lab run`.

When you leave `workers` out, the ranks decide it: 6 ranks for the
parameter server with one shard are the master, the shard and 4 workers.
The run records that number with its parameters, and the machine record
lists every host (name, CPU, cores, addresses) and the interconnect Open
MPI used.
]]

page [[
# Hostfiles

A hostfile names the machines and how many ranks (slots) each takes, one
line per host; `#` starts a comment:

```
# the lab cluster
node1 slots=4
node2 slots=4
node3 slots=2
```

`hosts=node1:4,node2:4,node3:2` says the same on the command line; a name
alone is one slot. Open MPI fills the slots in order, so rank 0 (the
master) and the first ranks (the shards) land on node1. Three practical
points:

- Open MPI starts its daemon on each host with `ssh`: you need password-
  less ssh to every host, and `warpbench` at the same path on each.
- The points of a k-means file and the store are read and written by rank
  0 only; the other ranks get the points from it.
- Open MPI refuses to run as root unless told (`--allow-run-as-root`);
  Warpbench adds that for you when you are root.

## The same results

The labs do their sums in a fixed order, so the answers do not depend on
where the ranks run: sync-mode weights are the local transport's bits, and
k-means centres are the same for any number of ranks.

## Faults

Open MPI 4 cannot go on when a rank dies: it ends the whole job. So under
MPI the labs' injected faults happen at the application level: a killed
worker or shard closes its connections (the others see exactly what they
see when a process dies), a crashed map task drops its output, a hung rank
stops answering until the master ends it. A real death — a rank killed, a
host lost — ends the run as *failed*, with Open MPI's words for which rank
died.
]]

page [[
# When the network is real

`link=` emulates a link by stamping each message with the time it would
arrive; across machines the network is real, so run with `link=off` and
measure it. What changes:

- **Protocol overhead.** TCP over Ethernet carries about 94 % of the line
  rate as payload. A "1 Gbit/s" link moves about 117 MB/s of data, not 125.
- **Slow start.** After a pause TCP may restart slowly; a worker's pull
  comes after 50 ms of compute. (netlab turns this off in its namespaces.)
- **The CPU.** Every byte crosses the kernel twice. On a busy host the
  transfer waits for a core, and a barrier waits for the slowest worker.
- **Shared links.** The course's model gives every worker its own link and
  the server an unlimited one. Put two workers behind one NIC and each gets
  half.

## A cluster on one machine

`scripts/netlab.sh` builds one from network namespaces: each "host" is a
namespace joined to a bridge by a veth pair, its links shaped by the
kernel (`tc`: tbf for the rate, netem for delay and loss). Open MPI starts
a daemon in each namespace, and the lab runs across them.

```
sudo scripts/netlab.sh -n 3 --rate 1gbit -- lab run paramserver \
    --set mode=sync --set params=1000000 --set compute_ms=50 \
    --set link=off --set workers=2
```

On a two-core machine, the course's example (model 64/114 = 0.56):

| link                              | comm. fraction |
|-----------------------------------|----------------|
| emulated 1 Gbit/s (`link=1Gbps`)  | 0.57           |
| kernel-shaped 100 Mbit/s, 100 k   | 0.55 to 0.58   |
| kernel-shaped 1 Gbit/s, 1 M       | 0.60 to 0.65   |

At 100 Mbit/s with a tenth of the parameters the communication still
takes 64 ms and the model holds within a few percent. At 1 Gbit/s ten
times the bytes go through the kernel in the same time: on two cores that
CPU time shows up as communication.
]]

------------------------------------------------------------------------------
question {
  id = "lab-cluster.ranks",
  kind = "numeric",
  title = "How many workers a hostfile gives",
  prompt = [[
A hostfile lists node1 slots={a}, node2 slots={b} and node3 slots={c}.
You run `warpbench lab run paramserver --set hostfile=cluster.txt
--set servers={s}` and leave `workers` out. How many workers train?
Give a whole number.]],
  topics = { "cluster", "mpi" },
  rubric = { "practice.deployment", "advanced.integration" },
  hints = {
    "Every slot is one rank.",
    "Rank 0 is the master; the next ranks are the server shards.",
  },
  params = function(rng)
    return { a = rng:pick({ 2, 4, 8 }), b = rng:pick({ 2, 4, 8 }), c = rng:pick({ 1, 2, 4 }),
             s = rng:pick({ 1, 2 }) }
  end,
  answer = function(p) return p.a + p.b + p.c - 1 - p.s end,
  tolerance = { abs = 0 },
  wrong = {
    { value = function(p) return p.a + p.b + p.c end,
      feedback = "Not every rank is a worker: rank 0 is the master and the shards take ranks too." },
    { value = function(p) return p.a + p.b + p.c - 1 end,
      feedback = "The server shards are ranks as well." },
    { value = function(p) return p.a + p.b + p.c - p.s end,
      feedback = "Rank 0, the master, is not a worker." },
  },
  examples = {
    { params = { a = 4, b = 4, c = 2, s = 1 }, answer = "8", score = 1 },
    { params = { a = 4, b = 4, c = 2, s = 1 }, answer = "10", score = 0 },
    { params = { a = 4, b = 4, c = 2, s = 2 }, answer = "7", score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { "many", "invalid" },
  },
}

question {
  id = "lab-cluster.real-link",
  kind = "numeric",
  title = "The 56 % example over TCP",
  prompt = [[
The course's example: a worker pulls and pushes {mparams} million FP32
parameters per step over a {gbit} Gbit/s link, and computes for {cms} ms.
Over TCP only {eff} % of the line rate carries data. What fraction of a
step goes to communication? (0.5 or 50 %.)
Give three significant figures.]],
  topics = { "cluster", "communication" },
  rubric = { "practice.deployment", "theory.parallel" },
  hints = {
    "Bytes per step: 2 × 4 B × parameters.",
    "Data rate: link × efficiency / 8 bytes per second.",
    "Fraction = communication / (communication + compute).",
  },
  params = function(rng)
    return { mparams = rng:pick({ 1, 2, 5 }), gbit = rng:pick({ 1, 10 }),
             cms = rng:pick({ 20, 50, 100 }), eff = rng:pick({ 90, 94 }) }
  end,
  answer = function(p)
    local t = 2 * 4 * p.mparams * 1e6 / (p.gbit * 1e9 * p.eff / 100 / 8) * 1000
    return t / (t + p.cms)
  end,
  tolerance = { rel = 0.02 },
  wrong = {
    -- Where the line rate and TCP's share give fractions within the
    -- tolerance of each other, the mistake cannot be told apart: false.
    { value = function(p)
        local t = 2 * 4 * p.mparams * 1e6 / (p.gbit * 1e9 / 8) * 1000
        local w = t / (t + p.cms)
        local tr = t * 100 / p.eff
        local ref = tr / (tr + p.cms)
        return math.abs(w - ref) > 0.03 * ref and w
      end,
      feedback = "That is the course's model at the full line rate; TCP delivers only part of it as data." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { mparams = 1, gbit = 1, cms = 50, eff = 94 }, answer = "0.577", score = 1 },
    { params = { mparams = 1, gbit = 1, cms = 50, eff = 94 }, answer = "57.7%", score = 1 },
    { params = { mparams = 1, gbit = 1, cms = 50, eff = 94 }, answer = "0.561", score = 0 },
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { "half", "invalid" },
  },
}

question {
  id = "lab-cluster.faults",
  kind = "choice",
  title = "Why faults are injected at the application level",
  prompt = [[
Run over Open MPI, the parameter-server lab's `kill_worker` fault does not
kill the worker's process: the rank closes its connections and stays. Why?]],
  topics = { "cluster", "mpi", "faults" },
  rubric = { "practice.deployment", "advanced.integration" },
  hints = { "What does Open MPI 4 do to the other ranks when one dies?" },
  choices = {
    "Open MPI 4 ends the whole job when a rank dies, so a real death would end the run instead of testing how the others cope.",
    "MPI ranks cannot receive signals.",
    "Killing a process on another host needs root there.",
    "The rank's memory is shared with the master, so killing it would corrupt the master.",
  },
  answer = 1,
  why = {
    [2] = "Ranks are ordinary processes; signals reach them. The issue is what Open MPI does next.",
    [3] = "Open MPI's daemon on that host could signal it; it is the job's end that rules it out.",
    [4] = "Ranks share no memory with the master; everything travels as messages.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "d", 0 }, { "x", "invalid" } },
}

question {
  id = "lab-cluster.shared-nic",
  kind = "numeric",
  title = "Workers behind one NIC",
  prompt = [[
In the course's model each worker has its own {gbit} Gbit/s link. On your
cluster {k} workers share one host and its single {gbit} Gbit/s NIC, and
each pulls and pushes {mparams} million FP32 parameters per step at the
same time as the others. How many milliseconds does one step's
communication take (ignore protocol overhead)?
Give three significant figures.]],
  topics = { "cluster", "communication" },
  rubric = { "practice.deployment", "theory.parallel" },
  unit = "ms",
  hints = {
    "Per worker: 2 × 4 B × parameters per step.",
    "The NIC carries all the workers' bytes: divide its rate among them.",
  },
  params = function(rng)
    return { gbit = rng:pick({ 1, 10 }), k = rng:pick({ 2, 3, 4 }), mparams = rng:pick({ 1, 2 }) }
  end,
  answer = function(p)
    return p.k * 2 * 4 * p.mparams * 1e6 / (p.gbit * 1e9 / 8) * 1000
  end,
  tolerance = { rel = 0.02 },
  wrong = {
    { value = function(p) return 2 * 4 * p.mparams * 1e6 / (p.gbit * 1e9 / 8) * 1000 end,
      feedback = "That is one worker alone on the link; the others' bytes go through the same NIC." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { params = { gbit = 1, k = 2, mparams = 1 }, answer = "128", score = 1 },
    { params = { gbit = 1, k = 2, mparams = 1 }, answer = "64", score = 0 },
    { answer = function(p, ctx) return tostring(ctx.reference) .. " ms" end, score = 1 },
    { "slow", "invalid" },
  },
}
