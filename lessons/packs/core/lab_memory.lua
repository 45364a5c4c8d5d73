-- Lab: locality on your CPU.
--
-- Sends the student to the `memory` lab (labs/lab_memory.c): matrix multiply
-- in IJK, IKJ and cache-blocked order across the cache sizes, and a stride
-- sweep over an array larger than the last-level cache. Facts come from the
-- course material (memory hierarchy, temporal and spatial locality, the IJK
-- vs IKJ case study and its "up to 7x", loop tiling: midterm-crash-course.md,
-- ml-system-optimization-notes.txt); the text is ours.
--
-- Lab-linked questions read the run's summary figures and grade through
-- wb.lab.grade(): a run that lacks a figure (for example one made with
-- --set part=stride) is explained, not graded.

lesson {
  id = "lab-memory",
  title = "Lab: locality on your CPU",
  topics = { "locality", "lab" },
  rubric = { "theory.memory", "practice.profiling" },
}

local MISSING_MATMUL = "\n\n(Your latest memory run has no matrix-multiply part: it ran with "
  .. "part=stride. Run `warpbench lab run memory` first.)"
local MISSING_STRIDE = "\n\n(Your latest memory run has no stride sweep: it ran with "
  .. "part=matmul. Run `warpbench lab run memory` first.)"

------------------------------------------------------------------------------
page [[
# Lab: locality on your CPU

The memory lesson said that *how* a program walks through its data can
matter as much as how much arithmetic it does. This lab measures that on
your own processor, in two parts.

1. **Matrix multiplication in three loop orders**, C = A·B with n×n
   matrices of doubles, for a ladder of sizes n from small (all three
   matrices fit in the L1 cache) to large (they spill out of L2 and beyond).
   It reports GFLOP/s for each order and size, and how many times faster IKJ
   is than IJK.
2. **A stride sweep**: it reads an array of 4-byte integers (by default
   four times the size of your last-level cache), touching every 1st, 2nd,
   4th, ..., 1024th element, and reports how fast useful data arrives at
   each stride.

The lab reads your cache sizes and cache-line size from the system and
prints them with the results; the log says for each n which cache the three
matrices fit in.

## Running it

```
warpbench lab run memory                    # both parts, default sizes
warpbench lab run memory --set n_max=1000   # larger matrices
warpbench lab run memory --set tile=64      # a different block size
warpbench lab run memory --set part=stride  # only the stride sweep
warpbench lab run memory --json             # one JSON object per line
```

By default the sizes come from your caches (see `n_max` and `array_mib`
below); `--set n_max=1000` pushes the matrices further out of them.

In the terminal UI, open the **Lab** screen and pick *memory*; `q` (or
Ctrl-C on the command line) cancels.

| parameter   | default          | meaning                           |
|-------------|------------------|-----------------------------------|
| `part`      | all              | `all`, `matmul` or `stride`       |
| `n_min`     | 48               | smallest n                        |
| `n_max`     | from your caches | largest n (192 to 1000)           |
| `tile`      | 32               | block edge of the blocked version |
| `min_ms`    | 20               | least time per measurement (ms)   |
| `array_mib` | from your caches | the stride-sweep array (MiB)      |

- `n_max` by default is the larger of two sizes: the n where a column of B
  (n cache lines) no longer fits in L1, and the n where B alone is twice
  your L2; kept within 192 to 1000.
- `min_ms`: each measurement repeats for at least this many milliseconds;
  the fastest repetition counts.
- `array_mib` by default is 4 × your last-level cache (the L3, or the L2 on
  a machine without one), rounded up to whole MiB and kept within 16 to
  256 MiB and at most an eighth of your RAM; 64 MiB when the cache size
  is unknown.

The sizes between `n_min` and `n_max` grow by about 1.41× a step (rounded to
multiples of 8). With the defaults the lab takes a few seconds, most of it
in IJK at the largest n; IJK at n = 2048 takes minutes.

Every run also **checks the results**: the three orders compute exactly the
same sums in the same order, so their products are compared element by
element, and the run fails if any element differs by more than rounding
could explain. In the stride sweep every stride must add up to the same
total. A fast wrong answer never gets reported as a speed.
]]

page [[
# Part 1: three loop orders

```
IJK                           IKJ
for i                         for i
  for j                         for k
    s = 0                         a = A[i][k]
    for k                         for j
      s += A[i][k]*B[k][j]          C[i][j] += a*B[k][j]
    C[i][j] = s

blocked (tile T)
for each T x T block of rows i, of k, of j:
  IKJ inside the block
```

All three do the same 2n³ floating-point operations. What differs is the
innermost loop:

- **IJK** walks *down a column of B*: consecutive k are n·8 bytes apart, so
  every access lands on a different cache line, and only 8 bytes of each
  64-byte line are used before the loop moves on. While the lines of one
  column (n of them) still fit in L1, the next seven values of j find them
  there; once they do not, each access goes to L2 or further.
- **IKJ** walks *along a row of B and a row of C*: consecutive j are
  neighbours, every byte of each line is used, and the hardware prefetcher
  sees a simple stream. That is **spatial locality**; reusing A[i][k] and the
  row of C for a whole inner loop is **temporal locality**.
- **blocked** works on T×T blocks so that the three blocks in use fit in a
  cache (three 32×32 blocks of doubles are 24 KiB, inside a 32 KiB L1) and
  each is reused T times before it is evicted. That is *loop tiling*, the
  same idea GPUs apply with shared memory.

## Reading the charts

**matmul** draws GFLOP/s against n for the three orders; **matmul_ratio**
draws IKJ / IJK. Two different effects shape the ratio:

- At small n everything is in L1, and still the orders differ. IJK adds
  every product into one running sum, so each addition has to wait for the
  one before it; IKJ's additions go to different elements of C and the core
  overlaps them. That part of the ratio is about the *core*, not memory.
- As n grows, IJK's column walk stops finding its lines in cache and its
  GFLOP/s falls, while IKJ and blocked hold up: that part is **locality**.
  Sizes whose rows are a multiple of a large power of two (512, 768, 1024)
  are extra bad for IJK, because a whole column then maps onto a few cache
  sets and evicts itself.

The course quotes "up to 7×" for IKJ over IJK on large matrices. Treat that
as one machine's figure: your run shows what *your* processor, compiler and
sizes give. Push `n_max` up to see the ratio grow.

Summary keys: `gflops_ijk_nN`, `gflops_ikj_nN`, `gflops_blocked_nN` and
`ratio_ikj_ijk_nN` for every size N; at the ends of the ladder
`gflops_ijk_nmax`, `gflops_ikj_nmax`, `gflops_blocked_nmax`,
`ratio_ikj_ijk_nmin`, `ratio_ikj_ijk_nmax`; `ratio_ikj_ijk_max` and
`n_at_ratio_max`; `ratio_blocked_ijk_nmax`; `n_min`, `n_max`, `tile`,
`footprint_mib_nmax`; `max_abs_diff` (the largest difference the
correctness check found, normally 0).
]]

page [[
# Part 2: the stride sweep

A cache never fetches a single byte: it fetches a whole **cache line**
(64 bytes on most current CPUs; the lab reports yours as `line_bytes`). The
stride sweep shows what that means for a program that skips through memory.

The array holds 4-byte integers. By default it is 4 × your last-level
cache, kept within 16 to 256 MiB (see `array_mib` on the first page), so
it cannot stay cached between passes. If the array is less than twice
the last-level cache (an `array_mib` you set lower, or a cache over
128 MiB), the lab warns: much of it then stays cached, and the sweep
measures the cache, not memory.

For a stride of s bytes:

- **below the line size**, the sweep makes s/4 passes (starting at element
  0, 1, 2, ...), so every element is read once and every line is fetched
  s/4 times. Each fetched line serves 64/s reads in one pass;
- **from the line size on**, one read per line is all a pass can use, so
  the lab reads one element per line and every line is fetched exactly once.

**stride_bw** shows the *useful* bandwidth: bytes you actually read, per
second. **stride_ns** shows the same measurement as time per read, and
**stride_lines** counts cache lines touched per second.

What to look for:

- From 4 B up to the line size, useful bandwidth roughly halves at every
  doubling: each line you pay for serves half as many reads. (At 4 B it may
  fall less than that, because the loop itself, one addition per element,
  can be the limit rather than memory.)
- At and beyond the line size every read costs a whole line. On many x86
  processors the biggest single drop comes one step later, at 128 B: the L2
  prefetches lines in *pairs*, so at 64 B the neighbour it brought is still
  used, and at 128 B it is wasted. The summary's `step_stride` says where
  your largest drop was and `step_factor` by how much.
- Around 4 KiB (a memory page) every read also needs a new address
  translation, and the time per read rises again.

Summary keys: `bw_strideS` (GB/s), `ns_strideS` (ns per read) and
`mlines_strideS` (million lines per second) for every stride S in bytes from
4 to 4096; `bw_drop_line` (bandwidth at 4 B over that at the line size);
`step_stride`, `step_factor`; `line_bytes`, `l1d_bytes`, `l2_bytes`,
`llc_bytes`, `array_mib`, `elem_bytes`.
]]

------------------------------------------------------------------------------
question {
  id = "lab-memory.ijk-time",
  kind = "numeric",
  title = "How long one IJK multiply takes",
  prompt = [[
In your latest memory run, IJK at the largest size n = {n} ran at {g} GFLOP/s.
At that rate, how long does ONE n x n matrix multiplication take?
Give three significant figures.{note}]],
  lab = "memory",
  unit = "s",
  topics = { "matmul", "lab" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = {
    "Count the floating-point operations: n^3 multiply-adds, and each is two operations.",
    "Time = 2 n^3 / (GFLOP/s x 1e9).",
  },
  params = function(rng, ctx)
    local p = {}
    local n, g = wb.lab.figure(ctx, "n_max"), wb.lab.figure(ctx, "gflops_ijk_nmax")
    if ctx.lab and not (n and g and g > 0) then
      p.note = MISSING_MATMUL
    elseif n and g then
      p.n = math.floor(n + 0.5)
      p.g = tonumber(wb.sig(g, 3))
      p.ref = 2 * p.n ^ 3 / (p.g * 1e9)
      p.gb = wb.lab.figure(ctx, "gflops_blocked_nmax")
    end
    return wb.lab.blanks(p, { "n", "g" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "s",
      wrong = {
        { value = function(p) return p.n ^ 3 / (p.g * 1e9) end,
          feedback = "You counted n^3 operations; each multiply-add is TWO floating-point operations." },
        { value = function(p) return 2 * p.n ^ 2 / (p.g * 1e9) end,
          feedback = "That counts 2 n^2 operations, one output element's worth per element; there are n^3 multiply-adds." },
      },
      explain = function(p)
        local s = string.format("2 x %d^3 = %s GFLOP, / %s GFLOP/s = %s s.", p.n,
          wb.sig(2 * p.n ^ 3 / 1e9, 3), wb.sig(p.g, 3), wb.sig(p.ref, 3))
        if wb.finite(p.gb) and p.gb > 0 then
          s = s .. string.format(" The blocked version, at %s GFLOP/s, needs %s s for the same work.",
            wb.sig(p.gb, 3), wb.sig(2 * p.n ^ 3 / (p.gb * 1e9), 3))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { n_max = 768, gflops_ijk_nmax = 0.77, gflops_blocked_nmax = 3.33 } },
      answer = "1.18", score = 1 },
    { lab = { summary = { n_max = 768, gflops_ijk_nmax = 0.77, gflops_blocked_nmax = 3.33 } },
      answer = "1177 ms", score = 1 },
    { lab = { summary = { n_max = 768, gflops_ijk_nmax = 0.77, gflops_blocked_nmax = 3.33 } },
      answer = "2*768^3/0.77e9", score = 1 },
    { lab = { summary = { n_max = 768, gflops_ijk_nmax = 0.77, gflops_blocked_nmax = 3.33 } },
      answer = "0.588", score = 0 },   -- n^3 operations
    { lab = { summary = { n_max = 768, gflops_ijk_nmax = 0.77, gflops_blocked_nmax = 3.33 } },
      answer = "1.18 GB", score = "invalid" },
    { lab = { summary = { n_max = 1000, gflops_ijk_nmax = 1.0 } }, answer = "2", score = 1 },
    { lab = { params = { part = "stride" }, summary = { line_bytes = 64 } }, answer = "1", score = "invalid" },
  },
}

question {
  id = "lab-memory.footprint",
  kind = "numeric",
  title = "Where your largest matrices live",
  prompt = [[
Your latest memory run went up to n = {n}. How much memory do the three
matrices A, B and C take together at that size (8-byte doubles), in MiB?
For comparison, your last-level cache is {llc} MiB.
Give three significant figures.{note}]],
  lab = "memory",
  unit = "MiB",
  topics = { "cache", "matmul", "lab" },
  rubric = { "theory.memory" },
  hints = {
    "One matrix is n x n doubles: 8 n^2 bytes.",
    "1 MiB = 1048576 bytes.",
  },
  params = function(rng, ctx)
    local p = {}
    local n, llc = wb.lab.figure(ctx, "n_max"), wb.lab.figure(ctx, "llc_bytes")
    if ctx.lab and not n then
      p.note = MISSING_MATMUL
    elseif n then
      p.n = math.floor(n + 0.5)
      p.ref = 3 * 8 * p.n ^ 2 / 1048576
      if llc and llc > 0 then p.llc = tonumber(wb.sig(llc / 1048576, 3)) end
    end
    return wb.lab.blanks(p, { "n", "llc" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "MiB",
      wrong = {
        { value = function(p) return 8 * p.n ^ 2 / 1048576 end,
          feedback = "That is one matrix; the question asks for A, B and C together." },
        { value = function(p) return 3 * 4 * p.n ^ 2 / 1048576 end,
          feedback = "That counts 4-byte floats; the lab multiplies 8-byte doubles." },
        { value = function(p) return 3 * 8 * p.n ^ 2 / 1e6 end,
          feedback = "That is in MB (10^6 bytes); the question asks MiB (2^20 bytes). Write the unit (MB) if you mean MB." },
      },
      explain = function(p)
        local s = string.format("3 x 8 x %d^2 bytes = %s MiB.", p.n, wb.sig(p.ref, 3))
        if type(p.llc) == "number" then
          s = s .. (p.ref > p.llc
            and string.format(" That is more than your %s MiB last-level cache.", wb.sig(p.llc, 3))
            or string.format(" That still fits in your %s MiB last-level cache; IJK suffers anyway, "
              .. "because its column walk needs n lines at once in the small L1.", wb.sig(p.llc, 3)))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "13.5", score = 1 },
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "14.16 MB", score = 1 },
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "4.5", score = 0 },    -- one matrix
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "6.75", score = 0 },   -- floats
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "14.16", score = 0 },  -- MB read as MiB
    { lab = { summary = { n_max = 768, llc_bytes = 33554432 } }, answer = "13.5 s", score = "invalid" },
    { lab = { summary = { n_max = 2048 } }, answer = "96", score = 1 },
    { lab = { summary = { line_bytes = 64 } }, answer = "96", score = "invalid" },
  },
}

question {
  id = "lab-memory.tile",
  kind = "numeric",
  title = "The working set of one block step",
  prompt = [[
Your latest memory run used tile = {tile}: the blocked multiply works on one
tile x tile block each of A, B and C (8-byte doubles) at a time. How many KiB
do those three blocks take? Your L1 data cache holds {l1} KiB.
Give three significant figures.{note}]],
  lab = "memory",
  unit = "KiB",
  topics = { "tiling", "cache", "lab" },
  rubric = { "practice.optimization", "theory.memory" },
  hints = { "One block is tile^2 doubles, 8 bytes each; 1 KiB = 1024 bytes." },
  params = function(rng, ctx)
    local p = {}
    local t, l1 = wb.lab.figure(ctx, "tile"), wb.lab.figure(ctx, "l1d_bytes")
    if ctx.lab and not t then
      p.note = MISSING_MATMUL
    elseif t then
      p.tile = math.floor(t + 0.5)
      p.ref = 3 * 8 * p.tile ^ 2 / 1024
      if l1 and l1 > 0 then p.l1 = wb.round(l1 / 1024, 1) end
    end
    return wb.lab.blanks(p, { "tile", "l1" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "KiB",
      wrong = {
        { value = function(p) return 8 * p.tile ^ 2 / 1024 end,
          feedback = "That is one block; three are in use at once (A, B and C)." },
        { value = function(p) return 3 * 4 * p.tile ^ 2 / 1024 end,
          feedback = "That counts 4-byte floats; the lab uses 8-byte doubles." },
        { value = function(p) return 3 * 8 * p.tile / 1024 end,
          feedback = "A block has tile x tile elements, not tile." },
      },
      explain = function(p)
        local s = string.format("3 x %d^2 x 8 B = %s KiB.", p.tile, wb.sig(p.ref, 4))
        if type(p.l1) == "number" then
          s = s .. (p.ref <= p.l1
            and string.format(" That fits in your %s KiB L1, so a block step runs from L1.", wb.sig(p.l1, 3))
            or string.format(" That is more than your %s KiB L1: the blocks live in L2. Compare a run with a smaller tile.",
              wb.sig(p.l1, 3)))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { tile = 32 }, summary = { tile = 32, l1d_bytes = 32768 } }, answer = "24", score = 1 },
    { lab = { params = { tile = 32 }, summary = { tile = 32, l1d_bytes = 32768 } }, answer = "24576 B", score = 1 },
    { lab = { params = { tile = 32 }, summary = { tile = 32, l1d_bytes = 32768 } }, answer = "8", score = 0 },
    { lab = { params = { tile = 32 }, summary = { tile = 32, l1d_bytes = 32768 } }, answer = "12", score = 0 },
    { lab = { params = { tile = 32 }, summary = { tile = 32, l1d_bytes = 32768 } }, answer = "0.75", score = 0 },
    { lab = { summary = { tile = 64, l1d_bytes = 49152 } }, answer = "96", score = 1 },
    { lab = { summary = { line_bytes = 64 } }, answer = "24", score = "invalid" },
  },
}

question {
  id = "lab-memory.line-use",
  kind = "numeric",
  title = "How much of each line a pass uses",
  prompt = [[
Your stride sweep reads 4-byte elements, and your CPU's cache line is
{line} bytes. In ONE pass at a stride of {s} bytes, what fraction of the
bytes of each cache line the pass fetches does it actually read? (A
fraction such as 0.5, or a percentage.)
Give three significant figures.{note}]],
  lab = "memory",
  topics = { "stride", "cache", "lab" },
  rubric = { "theory.memory" },
  hints = {
    "Below the line size, a pass reads line/stride elements from each line it fetches.",
    "From the line size on, a pass reads one element per fetched line; the lines in between are not fetched at all.",
  },
  params = function(rng, ctx)
    local p = {}
    local line = wb.lab.figure(ctx, "line_bytes")
    if line and line >= 8 then
      p.line = math.floor(line + 0.5)
      p.s = rng:pick({ 8, 16, 32, 2 * p.line, 4 * p.line })
      p.ref = 4 / math.min(p.s, p.line)
    elseif ctx.lab then
      p.note = "\n\n(Your latest run does not say its cache-line size. Run `warpbench lab run memory` again.)"
    end
    return wb.lab.blanks(p, { "line", "s" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      wrong = {
        { value = function(p) return p.s > p.line and 4 / p.s or nil end,
          feedback = "Lines between the ones you read are never fetched: what counts is the share of each FETCHED line, one 4-byte element of it." },
        { value = function(p) return 1 - p.ref end,
          feedback = "That is the share of each line that is wasted." },
      },
      explain = function(p)
        if p.s < p.line then
          return string.format("Each %d-byte line holds %d elements and a pass at %d B reads every %d-th one: %d of %d, i.e. %s.",
            p.line, p.line // 4, p.s, p.s // 4, p.line // p.s, p.line // 4, wb.sig(p.ref, 3))
        end
        return string.format("At %d B each pass reads one 4-byte element per fetched %d-byte line: 4/%d = %s. "
          .. "The rest of every line is fetched for nothing.", p.s, p.line, p.line, wb.sig(p.ref, 3))
      end,
    })
  end,
  examples = {
    { lab = { summary = { line_bytes = 64 } }, answer = function(p) return string.format("%.5f", 4 / math.min(p.s, 64)) end, score = 1 },
    { lab = { summary = { line_bytes = 64 } }, answer = function(p) return string.format("%.3f%%", 400 / math.min(p.s, 64)) end, score = 1 },
    { lab = { summary = { line_bytes = 64 } }, answer = function(p) return string.format("%.5f", 1 - 4 / math.min(p.s, 64)) end, score = 0 },
    { lab = { summary = { line_bytes = 64 } }, answer = "many", score = "invalid" },
    { lab = { summary = { n_max = 48 } }, answer = "0.5", score = "invalid" },
  },
}

question {
  id = "lab-memory.stride-step",
  kind = "choice",
  title = "Why bandwidth falls with the stride",
  prompt = [[
Your stride sweep measured a useful bandwidth of {bw4} GB/s at a stride of
4 B and {bwl} GB/s at {line} B, your cache-line size; its largest single
drop was at {step} B. Which explanation fits the fall from 4 B up to the
line size?]],
  lab = "memory",
  topics = { "stride", "cache", "lab" },
  rubric = { "theory.memory", "practice.profiling" },
  hints = { "What does the memory system deliver on every miss, and how much of it does each stride read?" },
  params = function(rng, ctx)
    local p = {}
    local line = wb.lab.figure(ctx, "line_bytes")
    local bw4 = wb.lab.figure(ctx, "bw_stride4")
    local bwl = line and wb.lab.figure(ctx, "bw_stride" .. math.floor(line + 0.5))
    p.line = line and math.floor(line + 0.5) or nil
    p.bw4 = bw4 and tonumber(wb.sig(bw4, 3)) or nil
    p.bwl = bwl and tonumber(wb.sig(bwl, 3)) or nil
    p.step = wb.lab.figure(ctx, "step_stride")
    return wb.lab.blanks(p, { "bw4", "bwl", "line", "step" })
  end,
  choices = {
    "Memory delivers whole cache lines; as the stride doubles, each fetched line serves half as many reads, so every useful byte costs more traffic.",
    "Additions get slower when the numbers added are far apart.",
    "The array gets larger as the stride grows.",
    "Strides below the line size bypass the cache and read memory directly.",
  },
  answer = 1,
  why = {
    [2] = "The arithmetic is the same one addition per read at every stride; what changes is the memory traffic behind each read.",
    [3] = "The array is the same size for every stride; the lab sweeps the same array each time.",
    [4] = "Every ordinary load goes through the cache; small strides are the case where the cache helps most.",
  },
  examples = {
    { lab = { summary = { line_bytes = 64, bw_stride4 = 10.9, bw_stride64 = 1.49, step_stride = 128 } }, answer = "a", score = 1 },
    { lab = { summary = { line_bytes = 64, bw_stride4 = 10.9, bw_stride64 = 1.49, step_stride = 128 } }, answer = "b", score = 0 },
    { lab = { summary = { line_bytes = 64, bw_stride4 = 10.9, bw_stride64 = 1.49, step_stride = 128 } }, answer = "d", score = 0 },
    { lab = { summary = { line_bytes = 64, bw_stride4 = 10.9, bw_stride64 = 1.49, step_stride = 128 } }, answer = "x", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-memory.small-n",
  kind = "choice",
  title = "IKJ vs IJK when everything fits in cache",
  prompt = [[
Your latest memory run measured IKJ/IJK = {rmin}x at n = {nmin}, where all
three matrices fit in cache, and {rmax}x at n = {nmax}. Which effect can make
the two orders run at different speeds even when the data is all in cache?]],
  lab = "memory",
  topics = { "matmul", "locality", "lab" },
  rubric = { "theory.memory", "practice.optimization" },
  hints = { "Look at what the innermost loop of IJK adds its products into." },
  params = function(rng, ctx)
    local p = {}
    local r1 = wb.lab.figure(ctx, "ratio_ikj_ijk_nmin")
    local r2 = wb.lab.figure(ctx, "ratio_ikj_ijk_nmax")
    p.rmin = r1 and tonumber(wb.sig(r1, 3)) or nil
    p.rmax = r2 and tonumber(wb.sig(r2, 3)) or nil
    p.nmin = wb.lab.figure(ctx, "n_min")
    p.nmax = wb.lab.figure(ctx, "n_max")
    return wb.lab.blanks(p, { "rmin", "rmax", "nmin", "nmax" })
  end,
  choices = {
    "IKJ performs fewer floating-point operations than IJK.",
    "IJK adds every product into one running sum, so each addition waits for the previous one; IKJ's additions go to different elements of C and can overlap.",
    "IJK's results are wrong, so it is slower.",
    "The cache line is larger for IKJ than for IJK.",
  },
  answer = 2,
  why = {
    [1] = "Both do exactly 2 n^3 operations; the lab even checks that their results are equal.",
    [3] = "The lab compares the three products element by element every run; they agree.",
    [4] = "The line size is a property of the cache, the same for every program.",
  },
  examples = {
    { lab = { summary = { ratio_ikj_ijk_nmin = 1.55, ratio_ikj_ijk_nmax = 4.55, n_min = 48, n_max = 768 } }, answer = "b", score = 1 },
    { lab = { summary = { ratio_ikj_ijk_nmin = 1.55, ratio_ikj_ijk_nmax = 4.55, n_min = 48, n_max = 768 } }, answer = "a", score = 0 },
    { lab = { summary = { ratio_ikj_ijk_nmin = 1.55, ratio_ikj_ijk_nmax = 4.55, n_min = 48, n_max = 768 } }, answer = "q", score = "invalid" },
  },
}

------------------------------------------------------------------------------
question {
  id = "lab-memory.column-walk",
  kind = "choice",
  title = "Which matrix IJK walks down a column of",
  prompt = [[
In the IJK loop order (for i, for j, for k: s += A[i][k] * B[k][j]) with
row-major n x n matrices, which matrix does the innermost loop read down a
column of, jumping n x 8 bytes at every step?]],
  topics = { "matmul", "locality" },
  rubric = { "theory.memory" },
  hints = { "In the innermost loop only k changes. In which index position is k for each matrix?" },
  choices = { "A", "B", "C", "none: all three are read along rows" },
  answer = 2,
  why = {
    [1] = "A[i][k] with k changing moves along row i: neighbouring elements.",
    [3] = "C[i][j] is written once per inner loop, not walked.",
    [4] = "B[k][j] with k changing moves from row to row: a column walk.",
  },
  examples = {
    { "b", 1 },
    { "B", 1 },
    { "a", 0 },
    { "d", 0 },
    { "e", "invalid" },
  },
}
