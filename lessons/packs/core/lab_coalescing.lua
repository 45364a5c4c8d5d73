-- Lab: memory coalescing on your GPU (or, without one, on your CPU).
--
-- Sends the student to the `coalescing` lab (labs/lab_coalescing*.c, kernels
-- in kernels/kern_cuda_coalesce.cu, the model in kernels/kern_coalesce.c).
-- Facts come from the course material (coalescing and bank conflicts:
-- gpu-ml-training-inference-guide.md, gpu-acceleration-cheatsheet.md,
-- day5-summary-and-assessment.md) and the GPU lesson of this pack; the text
-- is ours.
--
-- Lab-linked questions read the run's summary figures. A run made on a GPU
-- has copy_gbs, stride4_gbs, ...; a run made on the CPU analog has the same
-- with the prefix cpu_ (cpu_copy_gbs, cpu_stride4_gbs, ...), and the figure
-- `device` says which. Every question works with either; a figure a run
-- lacks (a short sweep, a CPU run for the GPU's transposes) is explained,
-- not graded. Numbers shown in a prompt are rounded first, and the
-- reference is computed from the rounded values the student sees.

lesson {
  id = "lab-coalescing",
  title = "Lab: memory coalescing on your GPU",
  topics = { "coalescing", "lab" },
  rubric = { "theory.gpu", "practice.profiling" },
}

-- "gpu" or "cpu": where the latest run's kernels ran (nil without a run).
local function ran_on(ctx)
  local d = wb.lab.text(ctx, "device")
  if d == "gpu" or d == "cpu" then return d end
  return nil
end

-- A measured figure of the device that ran: key on a GPU, cpu_key on a CPU.
local function dfig(ctx, key)
  if ran_on(ctx) == "cpu" then return wb.lab.figure(ctx, "cpu_" .. key) end
  return wb.lab.figure(ctx, key)
end

-- 32-byte sectors touched by a warp whose thread i reads the 4-byte float
-- at element first + s * i (the same count as the lab's model).
local function sectors(first, s)
  local seen, n = {}, 0
  for i = 0, 31 do
    local k = ((first + i * s) * 4) // 32
    if not seen[k] then seen[k] = true; n = n + 1 end
  end
  return n
end

local RUN_AGAIN = "Run `warpbench lab run coalescing` with its defaults."
local NO_MODEL = "\n\n(Your latest coalescing run has no model figures. " .. RUN_AGAIN .. ")"
-- What wb.lab.grade says when a run lacks the reference and no note says why.
local NO_FIGURE = "Your latest run lacks the figure this question needs. " .. RUN_AGAIN

-- Pretend runs for the self-tests: what the lab records on a GPU and on the
-- CPU analog (the numbers are typical, not anyone's measurement).
local MODEL = {
  model_sectors_stride1 = 4, model_sectors_stride2 = 8, model_sectors_stride4 = 16,
  model_sectors_stride8 = 32, model_sectors_stride16 = 32, model_sectors_stride32 = 32,
  model_sectors_offset1 = 5, model_sectors_offset2 = 5, model_sectors_offset4 = 5,
  model_sectors_offset8 = 4, model_sectors_offset16 = 4, model_sectors_offset32 = 4,
  model_frac_stride4 = 0.4, model_frac_offset1 = 1, model_req_frac_offset1 = 0.8889,
  model_bank_ways_32x32 = 32, model_bank_ways_32x33 = 1,
}
local function with_model(t)
  for k, v in pairs(MODEL) do t[k] = v end
  return t
end
local GPU_RUN = with_model({
  device = "gpu", gpu_name = "NVIDIA H200", copy_gbs = 4100, memcpy_gbs = 4250,
  stride2_frac_copy = 0.65, stride4_gbs = 1600, stride4_frac_copy = 0.39,
  stride8_frac_copy = 0.21, stride16_frac_copy = 0.2, stride32_frac_copy = 0.2,
  offset1_gbs = 3900, offset1_frac_copy = 0.95, offset2_frac_copy = 0.95,
  offset4_frac_copy = 0.95, offset8_frac_copy = 0.98, offset16_frac_copy = 0.97,
  transpose_padded_frac_copy = 0.93, transpose_tiled_frac_copy = 0.62,
  transpose_naive_frac_copy = 0.35,
})
local CPU_RUN = with_model({
  device = "cpu", cpu_copy_gbs = 23.6, cpu_memcpy_gbs = 24.5, cpu_stride4_gbs = 10.5,
  cpu_stride4_frac_copy = 0.445, cpu_model_frac_stride4 = 0.5, cpu_line_bytes = 64,
  cpu_stride2_frac_copy = 0.73, cpu_stride8_frac_copy = 0.22, cpu_stride16_frac_copy = 0.1,
  cpu_stride32_frac_copy = 0.06, cpu_offset1_gbs = 26.4, cpu_offset1_frac_copy = 1.12,
  cpu_offset2_frac_copy = 1.1, cpu_offset4_frac_copy = 1.1, cpu_offset8_frac_copy = 1.03,
  cpu_offset16_frac_copy = 1.1,
})
local SHORT_RUN = with_model({ device = "cpu", cpu_copy_gbs = 20, cpu_stride2_gbs = 12 })

------------------------------------------------------------------------------
page [[
# Lab: memory coalescing on your GPU

The GPU lesson counted what one warp's load moves: 32 floats side by side
are 4 sectors of 32 bytes; the same 32 floats spread out are 32 sectors. This
lab checks that count against real kernels, and puts the model's prediction
beside every measurement.

**On a GPU** it runs, on buffers 8 times the size of the GPU's L2 cache and
at least 1 GiB (so every launch streams from device memory, not from the
cache):

1. **the ladder**: `cudaMemcpy` device to device (the ceiling), a copy
   kernel moving 4 bytes per thread and one moving 16 bytes (`float4`), a
   copy through a shared-memory tile, and three matrix transposes: naive,
   tiled through `tile[32][32]`, and tiled through the padded
   `tile[32][33]`;
2. **the offset sweep**: `out[i] = in[i + k]` for k = 0 to 32 floats, reads
   starting k floats past a 128-byte line;
3. **the stride sweep**: `out[i] = in[i * s]` for s = 1 to 32, reading
   every s-th float (the writes stay coalesced).

Each kernel runs three times untimed to warm up, then `reps` times, each
launch between two CUDA events; the median counts. Bandwidth counts the
bytes a kernel uses, read plus written, per second (not the extra bytes a
strided read drags in). Every output is compared element by element with
the result of the same loop on the CPU, on fresh random data each run: a
fast wrong kernel fails the run instead of reporting a speed.

**Without a GPU** (no CUDA in this build, no driver, no device) the lab
says so in one line and runs the **CPU analog**: the same copies, offsets
and strides with the CPU's own loops over two arrays, each twice the size
of your last-level cache, memcpy as the ceiling, and a naive and a blocked
transpose. The model runs either way.

## Running it

```
warpbench lab run coalescing                  # GPU if any, else the CPU
warpbench lab run coalescing --set device=cpu # the CPU analog anyway
warpbench lab run coalescing --set reps=100   # steadier GPU medians
warpbench lab run coalescing --json           # one JSON object per line
```

In the terminal UI, open the **Lab** screen (`l` on the home screen) and
pick *coalescing*; `q` (or Ctrl-C on the command line) cancels.

| parameter    | default    | meaning                                 |
|--------------|------------|-----------------------------------------|
| `device`     | auto       | `auto`, `gpu` (fail without one), `cpu` |
| `offset_max` | 32         | offsets 0 to this many floats           |
| `stride_max` | 32         | strides 1 to this many floats           |
| `reps`       | 30         | GPU: timed launches per kernel          |
| `gpu_mib`    | 0 (auto)   | GPU: each buffer; 0: 8 x L2, >= 1 GiB   |
| `cpu_mib`    | from cache | CPU: each array; 2 x LLC, 16 to 256 MiB |
| `cpu_reps`   | 3          | CPU: passes per point, fastest counts   |
]]

page [[
# What the model predicts

A warp's load is served in **32-byte sectors** (grouped in 128-byte
lines). For thread i reading the float at element `first + s*i`:

| pattern          | sectors | lines | useful / moved |
|------------------|--------:|------:|---------------:|
| stride 1         |       4 |     1 |          100 % |
| stride 2         |       8 |     2 |           50 % |
| stride 4         |      16 |     4 |           25 % |
| stride 8 or more |      32 |  8-32 |         12.5 % |
| offset 1         |       5 |     2 |           80 % |
| 16 B per thread  |      16 |     4 |          100 % |

The lab turns that into a **predicted bandwidth** for a copy that reads
with the pattern and writes coalesced. A memory-bound kernel moves bytes
at a fixed rate, so its useful bandwidth is that rate times the share of
moved bytes it uses. Per float the copy moves 4 bytes in and 4 out. A
stride-4 warp uses 2 of the 8 floats of every sector it fetches, so it
moves 16 bytes in for each float it uses, and still 4 out:

```
copy:      (4 + 4) useful / (4 + 4) moved   = 1
stride 4:  (4 + 4) useful / (16 + 4) moved  = 0.4 of the copy
stride 8+: (4 + 4) useful / (32 + 4) moved  = 0.22 of the copy
```

**Offsets** are subtler. A warp at offset 1 touches 5 sectors instead of
4, but its fifth sector is the *next* warp's first, and the L2 cache
serves it to both: device memory still moves each sector once. So the
lab draws two model lines for the offset sweep: **traffic** (1: no loss)
and **requests** (5 sectors served for 4 used: 0.89 of the copy). A
modern GPU usually lands close to the traffic line; the requests line is
what an old GPU without that cache, or a kernel limited by its loads
rather than by memory, would see.

**Shared memory** has 32 banks of 4 bytes. Reading a column of
`float tile[32][32]` means 32 words 32 apart, all in one bank: a 32-way
conflict, 32 passes. `tile[32][33]` shifts each row one bank over: the
column is spread over 32 banks, one pass. The lab records both counts.

For the sweeps the lab asks the GPU to fetch from memory in single 32-byte
sectors (the L2 fetch-granularity hint; the figure `l2_fetch_bytes` says
what the device took), so a strided read does not drag in its neighbours.
]]

page [[
# Reading the charts and the figures

- **offset**: GB/s against the offset k (0 to 32 floats), with the two
  model lines (traffic and requests). Look for dips at offsets that are
  not multiples of 8 floats (32 bytes).
- **stride**: GB/s against the stride, with the model. The measured curve
  should fall up to s = 8, as the model's 8 / (4s + 4) of the copy (only
  the reads spread out; the writes stay coalesced), and then stay flat:
  from there every thread needs its own sector.
- **stride_frac**: the same as a fraction of the copy kernel, measured and
  model; the easiest place to see how close the model is.
- **ladder**: GB/s of each kernel of the ladder, numbered in the order
  the log lists them (on a GPU: 1 memcpy, 2 copy, 3 copy16, 4 shared
  copy, 5 padded, 6 tiled, 7 naive transpose; on the CPU: 1 memcpy, 2 copy
  loop, 3 blocked, 4 naive transpose).

What a good GPU run shows (the targets for an H200, whose datasheet gives
4.8 TB/s): the copy kernel at 0.95 or more of `cudaMemcpy` and at least
0.85 of the datasheet; the padded transpose at 0.9 or more of the copy,
the unpadded and naive ones clearly below it; the offset and stride
curves within 20 % of the model at every point.

## Summary keys (GPU runs)

- `copy_frac_memcpy` (the run's headline), `copy_gbs`, `copy16_gbs`,
  `memcpy_gbs`, `copy16_frac_memcpy`, `copy_frac_peak`,
  `copy_frac_datasheet`, `datasheet_gbs`;
- `smem_copy_gbs`, `transpose_padded_gbs`, `transpose_tiled_gbs`,
  `transpose_naive_gbs`, each also as `_frac_copy`;
  `transpose_padded_frac_smem`, `padded_over_tiled`, `padded_over_naive`;
- `offsetK_gbs`, `offsetK_frac_copy` for K = 0, 1, 2, 4, 8, 16, 32 and
  `strideS_gbs`, `strideS_frac_copy` for S = 1, 2, 4, 8, 16, 32 (every
  other point is in the charts); `offset_model_maxdev`,
  `stride_model_maxdev`: the largest |measured / model - 1| of a sweep;
- `gpu_name`, `gpu_cc`, `gpu_sms`, `gpu_l2_bytes`, `gpu_bus_bits`,
  `gpu_peak_gbs`, `gpu_buf_mib`, `gpu_buf_l2`, `transpose_side`,
  `l2_fetch_bytes`, `reps`.

## The model's keys (every run)

`model_sectors_strideS`, `model_lines_strideS`,
`model_efficiency_strideS`, `model_frac_strideS` (S = 1 to 32 in powers
of two); `model_sectors_offsetK`, `model_lines_offsetK` (K likewise);
`model_frac_offset1` and `model_req_frac_offset1`; `model_sectors_copy16`,
`model_lines_copy16`; `model_bank_ways_32x32`, `model_bank_ways_32x33`.
`device` is `gpu` or `cpu`.
]]

page [[
# Without a GPU: the CPU analog

A CPU has no warps, but its memory works the same way at a coarser grain:
it moves whole **64-byte cache lines** (the lab reads yours from the
system). So the analog runs the same loops on the CPU and compares them
with the same model, set for 64-byte lines, with one difference: before a
CPU writes into a line it reads the line (*write-allocate*), so each
written byte costs two bytes of traffic. Even the plain copy therefore
moves 12 bytes (4 read, 8 for the write) for every 8 it uses, and the
model compares each access with that:

```
             useful / moved        as a fraction of the copy
copy         8 / (4 + 8)  = 0.67   1
stride 4     8 / (16 + 8) = 0.33   0.33 / 0.67 = 0.5
stride 16    8 / (64 + 8) = 0.11   0.11 / 0.67 = 0.17
```

From stride 16 (64 bytes) on, every float read needs a line of its own,
so the CPU model stays flat there, where the GPU's flattens at stride 8.

Expect the CPU to fall *below* the model at large strides. One core keeps
only so many misses in flight, and its prefetchers fetch lines in pairs
(128 bytes) or run ahead into lines the loop never reads. The lesson in
the numbers is the same as on the GPU: bandwidth is spent on whole lines
(or sectors), and only the bytes you use count.

The ladder's **blocked transpose** is the CPU's version of the shared-memory
tile: it works on 32 x 32 blocks, so the lines a block reads by column stay
in the cache until all 16 floats of each are used.

## Summary keys (CPU runs)

`cpu_copy_gbs` (the headline), `cpu_memcpy_gbs`, `cpu_copy_frac_memcpy`,
`cpu_transpose_blocked_gbs`, `cpu_transpose_naive_gbs` (and their
`_frac_copy`), `cpu_blocked_over_naive`; `cpu_offsetK_gbs`,
`cpu_offsetK_frac_copy`, `cpu_model_frac_offsetK`, `cpu_strideS_gbs`,
`cpu_strideS_frac_copy`, `cpu_model_frac_strideS` (same K and S as on a
GPU); `cpu_offset_model_maxdev`, `cpu_stride_model_maxdev`;
`cpu_line_bytes`, `cpu_llc_bytes`, `cpu_array_mib`, `cpu_array_llc`,
`cpu_side`, `cpu_reps`; `no_gpu` says why no GPU was used (when the lab
looked for one).
]]

------------------------------------------------------------------------------
question {
  id = "lab-coalescing.sectors",
  kind = "numeric",
  title = "Predict the sectors of one warp",
  prompt = [[
A warp of 32 threads loads 4-byte floats: thread i (0 to 31) reads element
{expr} of an array that starts on a 128-byte boundary. How many 32-byte
sectors does that one warp request touch?
Give a whole number.{note}]],
  lab = "coalescing",
  topics = { "coalescing", "lab" },
  rubric = { "theory.gpu" },
  hints = {
    "Write down the byte address of thread 0's float and of thread 31's.",
    "A sector is bytes 32k to 32k + 31. Count the sectors that hold at least one of the 32 floats.",
  },
  params = function(rng, ctx)
    local p = {}
    if ctx.lab then
      local kind = rng:pick({ "stride", "stride", "offset" })
      if kind == "stride" then
        p.s = rng:pick({ 2, 4, 8, 16, 32 })
        p.first = 0
        p.key = "stride" .. p.s
      else
        p.s = 1
        p.first = rng:pick({ 1, 2, 4, 8, 16 })
        p.key = "offset" .. p.first
      end
      -- the reference is the count the student's run recorded
      p.ref = wb.lab.figure(ctx, "model_sectors_" .. p.key)
      if not p.ref then p.note = NO_MODEL end
      p.frac = dfig(ctx, p.key .. "_frac_copy")
      p.dev = ran_on(ctx)
      p.expr = p.s == 1 and string.format("%d + i", p.first) or string.format("%d x i", p.s)
    end
    return wb.lab.blanks(p, { "expr" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      missing = NO_FIGURE,
      tol = { abs = 0.01 },   -- a count: only the exact number
      wrong = {
        { value = function(p) return p.s == 1 and p.first % 8 ~= 0 and 4 or nil end,
          feedback = "4 is the aligned case. This warp starts part-way into a sector, so its 128 bytes straddle one more boundary." },
        { value = function(p) return p.s == 1 and p.first % 8 == 0 and 5 or nil end,
          feedback = "This offset is a multiple of 8 floats (32 bytes), so the warp starts on a sector boundary: no extra sector." },
        { value = function(p) return p.s > 1 and p.s < 8 and 32 or nil end,
          feedback = "Not every thread needs its own sector: at this stride several threads' floats still share one." },
        { value = function(p) return p.s > 1 and 4 or nil end,
          feedback = "That would be 32 consecutive floats. With a stride the warp's floats are spread over more memory." },
        { value = function(p) return (p.first * 4 + 4 * p.s * 31 + 4 - 1) // 128 - (p.first * 4) // 128 + 1 end,
          feedback = "That counts 128-byte lines. The question asks for 32-byte sectors." },
      },
      explain = function(p)
        local lo, hi = p.first * 4, (p.first + 31 * p.s) * 4 + 3
        local s = string.format("The floats lie at bytes %d to %d, %s: %d sectors.", lo, hi,
          p.s == 1 and "side by side" or string.format("%d bytes apart", 4 * p.s), p.ref)
        if wb.finite(p.frac) and p.dev == "gpu" then
          s = s .. string.format(" Your GPU ran that %s at %s of the copy's bandwidth.",
            p.s == 1 and "offset copy" or "strided copy", wb.sig(p.frac, 2))
        elseif wb.finite(p.frac) then
          s = s .. string.format(" Your CPU analog, which counts 64-byte lines, ran the same access at %s of its copy.",
            wb.sig(p.frac, 2))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = GPU_RUN }, answer = function(p) return tostring(sectors(p.first, p.s)) end, score = 1 },
    { lab = { summary = CPU_RUN }, answer = function(p) return tostring(sectors(p.first, p.s)) end, score = 1 },
    { lab = { summary = GPU_RUN }, answer = function(p) return tostring(sectors(p.first, p.s) + 1) end, score = 0 },
    -- fixed patterns: an aligned offset (8 floats) and a misaligned one (1)
    { params = { first = 8, s = 1, ref = 4, note = "", dev = "gpu", frac = 0.98 },
      lab = { summary = GPU_RUN }, answer = "4", score = 1 },
    { params = { first = 8, s = 1, ref = 4, note = "", dev = "gpu", frac = 0.98 },
      lab = { summary = GPU_RUN }, answer = "5", score = 0 },
    { params = { first = 1, s = 1, ref = 5, note = "", dev = "gpu", frac = 0.95 },
      lab = { summary = GPU_RUN }, answer = "4", score = 0 },
    { params = { first = 0, s = 4, ref = 16, note = "", dev = "cpu", frac = 0.45 },
      lab = { summary = CPU_RUN }, answer = "4", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "many", score = "invalid" },
    { lab = { summary = { device = "cpu", cpu_copy_gbs = 20 } }, answer = "4", score = "invalid" },
    { "4", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-coalescing.stride4-frac",
  kind = "numeric",
  title = "Your stride-4 bandwidth as a fraction of copy",
  prompt = [[
Your latest coalescing run ran on your {where}.
It measured {copy} GB/s for the copy and {s4} GB/s for the copy that
reads every 4th float (stride 4). What fraction of the copy's bandwidth
did the stride-4 copy reach? (A fraction such as 0.5, or a
percentage.)
Give three significant figures.{note}]],
  lab = "coalescing",
  topics = { "coalescing", "stride", "lab" },
  rubric = { "practice.profiling", "theory.gpu" },
  hints = { "Divide the stride-4 bandwidth by the copy's." },
  params = function(rng, ctx)
    local p = {}
    local c, s4 = dfig(ctx, "copy_gbs"), dfig(ctx, "stride4_gbs")
    p.dev = ran_on(ctx)
    if p.dev == "gpu" then
      local name = wb.lab.text(ctx, "gpu_name")
      p.where = name and ("GPU, " .. name) or "GPU"
      p.model = wb.lab.figure(ctx, "model_frac_stride4")
    elseif p.dev == "cpu" then
      p.where = "CPU (the analog)"
      p.model = wb.lab.figure(ctx, "cpu_model_frac_stride4")
      p.line = wb.lab.figure(ctx, "cpu_line_bytes")
    end
    if c and c > 0 then p.copy = tonumber(wb.sig(c, 4)) end
    if c and s4 and c > 0 then
      p.s4 = tonumber(wb.sig(s4, 4))
      p.ref = p.s4 / p.copy
    elseif ctx.lab then
      p.note = "\n\n(Your latest run has no stride-4 point: its stride sweep stopped early, "
        .. "or it is an old run. " .. RUN_AGAIN .. ")"
    end
    return wb.lab.blanks(p, { "where", "copy", "s4" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      missing = NO_FIGURE,
      wrong = {
        { value = function(p) return p.copy / p.s4 end,
          feedback = "Upside down: that is how many times faster the copy is. The fraction is stride 4 / copy." },
        { value = function(p) return p.model end,
          feedback = "That is the model's prediction; the question asks what your run measured." },
      },
      explain = function(p)
        local s = string.format("%s / %s = %s.", wb.sig(p.s4, 4), wb.sig(p.copy, 4), wb.sig(p.ref, 3))
        if p.dev == "gpu" then
          s = s .. " The model predicts 0.4: a warp reading every 4th float touches 16 sectors "
            .. "(512 bytes) for 128 useful bytes, so the reads move 4 times what they use; with the "
            .. "coalesced writes that is 8 useful bytes per 20 moved, against 8 per 8 for the copy."
        else
          s = s .. string.format(" The model for %s-byte lines with write-allocate predicts %s: "
            .. "each useful float read drags in 16 bytes of its line, and each float written costs "
            .. "8 bytes (the line is read before it is written), so 8 useful bytes per 24 moved against "
            .. "8 per 12 for the copy. One core's prefetchers and limited misses in flight move it from there.",
            wb.finite(p.line) and tostring(math.floor(p.line + 0.5)) or "64",
            wb.finite(p.model) and wb.sig(p.model, 3) or "0.5")
        end
        if wb.finite(p.model) and p.model > 0 then
          s = s .. string.format(" Your run is %s%% %s the model.",
            wb.sig(math.abs(p.ref / p.model - 1) * 100, 2), p.ref >= p.model and "above" or "below")
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = GPU_RUN }, answer = "1600/4100", score = 1 },
    { lab = { summary = GPU_RUN }, answer = "39%", score = 1 },
    { lab = { summary = GPU_RUN }, answer = "0.4", score = 0 },      -- the model, 2.5% off
    { lab = { summary = GPU_RUN }, answer = "0.35", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "2.5625", score = 0 },   -- upside down
    { lab = { summary = CPU_RUN }, answer = "0.4449", score = 1 },
    { lab = { summary = CPU_RUN }, answer = "0.5", score = 0 },
    { lab = { summary = SHORT_RUN }, answer = "0.5", score = "invalid" },
    { lab = { summary = GPU_RUN }, answer = "0.39 GB/s", score = "invalid" },
    { "0.4", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-coalescing.stride4-why",
  kind = "choice",
  title = "Why stride 4 costs that much",
  prompt = [[
Your latest run's stride-4 copy reached {frac} of the copy's bandwidth
on your {dev} (the model predicts {model}). Which explanation fits?{note}]],
  lab = "coalescing",
  topics = { "coalescing", "stride", "lab" },
  rubric = { "theory.gpu", "practice.profiling" },
  hints = { "What is the smallest amount memory moves, and how much of it does a stride-4 read use?" },
  params = function(rng, ctx)
    local p = {}
    local f = dfig(ctx, "stride4_frac_copy")
    p.frac = f and tonumber(wb.sig(f, 3)) or nil
    local m
    if ran_on(ctx) == "cpu" then
      m = wb.lab.figure(ctx, "cpu_model_frac_stride4")
    else
      m = wb.lab.figure(ctx, "model_frac_stride4")
    end
    p.model = m and tonumber(wb.sig(m, 3)) or nil
    p.dev = ran_on(ctx) == "cpu" and "CPU" or "GPU"
    if ctx.lab and not f then
      p.note = "\n\n(Your latest run has no stride-4 point, so the numbers are missing; the\nquestion still stands. " .. RUN_AGAIN .. ")"
    end
    return wb.lab.blanks(p, { "frac", "model", "dev" })
  end,
  choices = {
    "Memory moves whole sectors (whole lines on a CPU). Reading every 4th float uses one float in four of each, so every useful byte read costs four bytes of traffic; only the coalesced writes stay fully used.",
    "The stride-4 kernel has a quarter of the threads, so most of the GPU sits idle.",
    "Strided loads bypass the cache, and uncached loads are slower per byte.",
    "Each thread does four times as much arithmetic at stride 4.",
  },
  answer = 1,
  why = {
    [2] = "It has a quarter as many threads, but still millions, enough to keep memory busy; and the model that counts only bytes predicts the drop.",
    [3] = "Every load goes through the L2 either way; the cost is in the bytes memory moves, not in a bypass.",
    [4] = "Every thread does the same one load and one store at every stride.",
  },
  examples = {
    { lab = { summary = GPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = CPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = GPU_RUN }, answer = "b", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "c", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "z", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-coalescing.offset-why",
  kind = "choice",
  title = "Why a misaligned copy costs so little",
  prompt = [[
Your latest run's copy reading 1 float past a line boundary (offset 1)
reached {frac} of the aligned copy on your {dev}, although a GPU warp
of it touches {s1} sectors instead of {s0}.{cpu} Which explanation fits?{note}]],
  lab = "coalescing",
  topics = { "coalescing", "alignment", "lab" },
  rubric = { "theory.gpu", "theory.memory" },
  hints = { "Which warp reads the other floats of that extra sector?" },
  params = function(rng, ctx)
    local p = {}
    local f = dfig(ctx, "offset1_frac_copy")
    p.frac = f and tonumber(wb.sig(f, 3)) or nil
    p.s1 = wb.lab.figure(ctx, "model_sectors_offset1")
    p.s0 = wb.lab.figure(ctx, "model_sectors_stride1")
    p.dev = ran_on(ctx) == "cpu" and "CPU" or "GPU"
    local line = wb.lab.figure(ctx, "cpu_line_bytes") or 64
    p.cpu = p.dev == "CPU" and string.format(" (A CPU fetches\n%d-byte lines instead; the reasoning is the same.)",
      math.floor(line + 0.5)) or ""
    if ctx.lab and not f then
      p.note = "\n\n(Your latest run has no offset-1 point, so its number is missing; the\nquestion still stands. " .. RUN_AGAIN .. ")"
    end
    return wb.lab.blanks(p, { "frac", "s1", "s0", "dev" })
  end,
  choices = {
    "The extra sector is also the next warp's first one. The L2 cache keeps it, so memory still moves every sector once; only the number of requests the cache serves goes up.",
    "The hardware shifts misaligned data into place for free.",
    "An offset of 1 float is too small to matter; an offset of 16 floats would cost 16 times as much.",
    "The writes are misaligned too, so reads and writes cancel out.",
  },
  answer = 1,
  why = {
    [2] = "Nothing is free: the warp really does request 5 sectors. The cost is hidden because the extra sector is reused, not because it is shifted.",
    [3] = "Any offset that is not a multiple of 8 floats (32 bytes) costs the same one extra sector per warp; 8 and 16 cost none.",
    [4] = "The writes in this lab stay aligned; only the reads start at the offset.",
  },
  examples = {
    { lab = { summary = GPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = CPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = GPU_RUN }, answer = "c", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "e", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}

question {
  id = "lab-coalescing.padded-why",
  kind = "choice",
  title = "Why the padded transpose wins",
  prompt = [[
In the tiled transpose, why does declaring the shared tile as
float tile[32][33] instead of float tile[32][32] make it faster?

{seen}]],
  lab = "coalescing",
  topics = { "shared-memory", "bank-conflicts", "lab" },
  rubric = { "theory.gpu", "practice.optimization" },
  hints = { "Shared memory has 32 banks of 4 bytes. Which banks hold the 32 words of one column of the tile?" },
  params = function(rng, ctx)
    local p = {}
    local pad = wb.lab.figure(ctx, "transpose_padded_frac_copy")
    local tiled = wb.lab.figure(ctx, "transpose_tiled_frac_copy")
    local naive = wb.lab.figure(ctx, "transpose_naive_frac_copy")
    local w32 = wb.lab.figure(ctx, "model_bank_ways_32x32")
    local w33 = wb.lab.figure(ctx, "model_bank_ways_32x33")
    local ways = (w32 and w33) and string.format("\nThe model recorded a %d-way bank conflict for a "
      .. "column\nof tile[32][32], and %d-way for tile[32][33].", w32, w33) or ""
    if pad and tiled then
      p.seen = string.format("On your GPU the padded transpose ran at %s of the copy,\n"
        .. "the unpadded tiled one at %s%s.", wb.sig(pad, 2), wb.sig(tiled, 2),
        naive and string.format(" and the naive one at %s", wb.sig(naive, 2)) or "") .. ways
    elseif ran_on(ctx) == "cpu" then
      p.seen = "Your latest run was on the CPU analog. A CPU has no shared-memory\n"
        .. "banks, so there is no padded and unpadded tile to compare there (its\n"
        .. "blocked transpose is the CPU's version of the tile)." .. ways
    else
      p.seen = "Your latest run has no transpose figures." .. ways
    end
    return p
  end,
  choices = {
    "Both tiles are written by rows and read by columns. In tile[32][32] a column's 32 words are 32 words apart, all in the same one of the 32 banks: a 32-way conflict, served in 32 passes. The extra column shifts each row by one bank, so a column lies in 32 different banks: one pass.",
    "The padded tile is larger, so it holds more of the matrix at once.",
    "Padding aligns the global-memory writes to 128-byte lines.",
    "Without padding the threads must wait at __syncthreads() twice.",
  },
  answer = 1,
  why = {
    [2] = "It holds the same 32 x 32 floats; the 33rd column is never used. What changes is which bank each word lands in.",
    [3] = "Both versions write the output in the same coalesced rows; the padding only changes addresses in shared memory.",
    [4] = "Both versions synchronise exactly once, between loading the tile and writing it out.",
  },
  examples = {
    { lab = { summary = GPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = CPU_RUN }, answer = "a", score = 1 },
    { lab = { summary = GPU_RUN }, answer = "b", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "c", score = 0 },
    { lab = { summary = GPU_RUN }, answer = "x", score = "invalid" },
    { "a", "invalid" },   -- no run yet
  },
}
