-- Lab: quantization on your machine.
--
-- Sends the student to the `quantize` lab (labs/lab_quantize.c) and grades
-- questions against their own latest run (ctx.lab). Facts come from the
-- course material (SNR = 6.02 x bits + 1.76 dB and PTQ vs QAT:
-- day5-summary-and-assessment.md; uniform quantization Q(x) =
-- round((x - zero_point) / scale), "Bits saved", "4-8x size reduction with
-- <1% accuracy loss": gpu-ml-training-inference-guide.md and the day-5
-- benchmarks; INT8 on tensor cores: the GPU architecture section); the text
-- is ours.
--
-- What the lab taught us to say precisely: the formula's 1.76 dB is the
-- power of a full-scale SINE (A^2/2) over the quantization noise; a
-- full-scale uniform signal (power A^2/3) gets 6.02 b exactly, and the sine
-- reaches the formula only from about 7 bits (at 4 bits it is 0.5 dB
-- short: its values crowd at the peaks, where the error is not uniform).
-- The general rule is 6.02 b + 4.77 - 20 log10(peak / RMS).
--
-- Lab-linked questions read the run's summary figures through wb.lab and
-- grade through wb.lab.grade(); a run that lacks a figure (another `part`,
-- bits outside the range) is explained, not graded. Numbers shown in a
-- prompt are rounded first, and the reference comes from what is shown.

lesson {
  id = "lab-quantize",
  title = "Lab: quantization on your machine",
  topics = { "quantization", "lab" },
  rubric = { "practice.optimization", "advanced.cost" },
}

-- Drops a trailing unit the grader's units do not know ("dB"), so that
-- "49.9 dB" and "49.9" both read as 49.9.
local function strip(answer, pattern)
  return (answer:gsub("%s*" .. pattern .. "%s*$", ""))
end

local function need(part)
  return "\n\n(Your latest quantize run has no " .. part .. ": run "
    .. "`warpbench lab run quantize` with its defaults first.)"
end

------------------------------------------------------------------------------
page [[
# Lab: quantization on your machine

The inference lesson quoted a rule of thumb: every bit of a uniform
quantizer buys about 6 dB of signal-to-quantization-noise ratio (SQNR),

```
SQNR = 6.02 x b + 1.76 dB
```

This lab measures it, and then asks what it means for a model. It runs
three parts.

1. **SQNR against bits.** Signals of `n_samples` values are quantized to
   b = 2 .. 16 bits and the ratio of signal power to error power is
   measured, in dB, next to the formula:
   - a full-scale **sine** and a full-scale **uniform** signal through the
     textbook converter (2^b levels over the range);
   - **Gaussian weights** in the usual INT-b format, scaled by their
     largest value, and clipped at the threshold that gives the best
     SQNR (the lab searches for it);
   - **weights with outlier channels**: a tensor of `channels` rows in
     which `outlier_channels` rows are `outlier_scale` times larger, with
     one scale for the whole tensor against one scale per row;
   - **ReLU outputs** (never negative), symmetric against asymmetric.
2. **The model.** A small MLP (16 inputs, two hidden layers, 4 classes) is
   trained here, deterministically from `seed`, then evaluated with its
   weights quantized to each b: accuracy against bits, per tensor and per
   channel, and the model's size.
3. **Speed.** An INT8 matrix multiply against an FP32 one on this CPU:
   ours (written for this lab, single-threaded) and oneDNN's (the library
   frameworks use on Intel and AMD CPUs) when it is installed. With a GPU,
   cuBLAS's INT8 GEMM against its FP32 SGEMM too. Without one, the first
   line of the log says why, and the run's `no_gpu` figure too.

## Running it

```
warpbench lab run quantize                   # all three parts
warpbench lab run quantize --set part=sqnr   # only the SQNR part
warpbench lab run quantize --set bits_min=4 --set bits_max=12
warpbench lab run quantize --set outlier_scale=50
warpbench lab run quantize --set gemm_n=1024 # larger products
```

| parameter          | default | meaning                            |
|--------------------|---------|------------------------------------|
| `part`             | all     | all, sqnr, model or gemm           |
| `bits_min`         | 2       | fewest bits                        |
| `bits_max`         | 16      | most bits                          |
| `n_samples`        | 262144  | values per signal                  |
| `seed`             | 1       | every random value of the run      |
| `channels`         | 64      | rows of the outlier tensor         |
| `outlier_channels` | 2       | rows that are larger               |
| `outlier_scale`    | 20      | how much larger                    |
| `hidden`           | 64      | width of the MLP's hidden layers   |
| `epochs`           | 8       | training epochs                    |
| `n_train`          | 8192    | training examples                  |
| `gemm_n`           | 512     | largest CPU product (n x n x n)    |
| `min_ms`           | 150     | time each CPU product at least     |
| `device`           | auto    | auto, gpu (fail without), cpu      |
| `gpu_n`            | 4096    | GPU product size (multiple of 16)  |
| `gpu_reps`         | 20      | timed GPU products (median)        |

With the defaults the run takes a few seconds. The questions after the
next pages use the numbers of **your latest completed run**.
]]

page [[
# Where 6.02 b + 1.76 comes from

A b-bit converter over the range -A .. A has 2^b levels, so its step is
Δ = 2A / 2^b. If the error is spread evenly over one step (every value
from -Δ/2 to Δ/2 equally likely), its power is Δ²/12. The **signal's**
power depends on the signal:

| signal (full scale A) | power | peak / RMS | SQNR            |
|-----------------------|-------|------------|-----------------|
| sine                  | A²/2  | 1.41       | 6.02 b + 1.76   |
| uniform               | A²/3  | 1.73       | 6.02 b          |
| Gaussian, max-scaled  | σ²    | about 4.5  | 6.02 b - 8.3    |

Each bit halves Δ, which divides the noise power by 4: 10·log10(4) =
6.02 dB. The 1.76 dB is 10·log10(1.5), the sine's power A²/2 over the
uniform signal's A²/3. In general

```
SQNR ≈ 6.02 b + 4.77 - 20 log10(peak / RMS)    (dB)
```

so a signal whose largest value is far above its typical value wastes
most of the levels. That is the Gaussian's problem: with a few hundred
thousand values the largest is about 4.5 standard deviations out, and
scaling by it costs about 10 dB against the formula, nearly two bits.

Things your run shows that the formula does not say:

- The sine reaches the formula only from about 7 bits: at 4 bits it is
  about 0.5 dB short, because its values crowd near the peaks, where the
  error within a step is not spread evenly.
- **Clipping** at a threshold below the largest value saturates the few
  values beyond it (clipping noise) but makes every step smaller (less
  rounding noise). At 4 bits the best threshold for a Gaussian is about
  2.5 σ and gains about 4 dB; at 16 bits the steps are already tiny, and
  the best threshold is the largest value itself.
- **Outlier channels.** One scale for a tensor whose rows differ 20-fold
  gives the ordinary rows about log2(20) ≈ 4.3 bits fewer than they could
  have. One scale per row (per output channel) gives them back.
- **Asymmetric** quantization (a zero point) pays off on one-sided data:
  ReLU outputs are never negative, so a symmetric format wastes the
  negative half of its codes, one bit, about 6 dB.

## The model, and the speed

The MLP's accuracy stays flat down to a few bits and then falls off a
cliff; per-channel scales push the cliff down a bit. Its size shrinks by
less than 32/b, because the biases stay FP32 and every scale is stored
too: on a small model that overhead is a visible share.

INT8 is faster than FP32 only where the hardware multiplies bytes in
bulk. Per 256-bit instruction an FP32 fused multiply-add does 8
multiply-adds; AVX2's `pmaddwd` does 16 on pairs of 16-bit values; the
VNNI instruction `vpdpbusd` does 32 on groups of four bytes, adding into
32-bit sums. So the best INT8 can hope for on a VNNI CPU is 4x FP32, and
2x with AVX2 alone. On NVIDIA GPUs the tensor cores play that part.

## The summary

| key                             | what it is                      |
|---------------------------------|---------------------------------|
| `formula_bB`                    | 6.02 b + 1.76                   |
| `sqnr_sine_bB`, `sqnr_uniform_bB` | the two full-scale signals    |
| `sqnr_gauss_max_bB`             | Gaussian, scaled by its max     |
| `sqnr_gauss_clip_bB`            | Gaussian, best clip             |
| `clip_sigma_bB`                 | that clip, in RMS units         |
| `gauss_gap_bB`                  | formula minus the max-scaled    |
| `sqnr_outlier_tensor_bB`        | whole tensor, one scale         |
| `sqnr_outlier_channel_bB`       | whole tensor, a scale per row   |
| `sqnr_ordinary_tensor_bB`       | ordinary rows, one scale        |
| `sqnr_ordinary_channel_bB`      | ordinary rows, per row          |
| `sqnr_relu_sym_bB`, `_asym_bB`  | ReLU outputs                    |
| `acc_tensor_bB`, `acc_channel_bB` | MLP test accuracy (%)         |
| `size_bytes_bB`, `size_ratio_bB` | MLP size, FP32 size / size     |

B is one of 2, 3, 4, 6, 8, 12 and 16 within your range. Also:
`peak_rms_gauss`, `slope_db` (dB per bit of the uniform signal),
`sine_dev_b4`, `uniform_max_dev_db`, `clip_gain_b4`, `outlier_gain_b8`,
`asym_gain_b8`; `acc_fp32`, `weights`, `biases`, `params`,
`size_fp32_bytes`, `acc_drop_b8`, `acc_drop_b4`, `min_bits_1pct`;
`gemm_n`, `cpu_f32_gflops`, `cpu_s8_gops`, `cpu_s8_path`,
`cpu_s8_over_f32`, `cpu_madd_gops`, `dnnl`, `dnnl_f32_gflops`,
`dnnl_s8_gops`, `dnnl_s8_over_f32`, `dnnl_f32_gflops_all`,
`dnnl_s8_gops_all`; `device`, `no_gpu`, `gpu_name`, `gpu_f32_tflops`,
`gpu_s8_tops`, `gpu_s8_over_f32`.
]]

------------------------------------------------------------------------------
question {
  id = "lab-quantize.predict-gauss",
  kind = "numeric",
  title = "Predict the Gaussian's SQNR from its peak",
  prompt = [[
In your latest quantize run the Gaussian weights' largest value was {r}
times their RMS. Using SQNR = 6.02 b + 4.77 - 20 log10(peak / RMS),
predict the SQNR in dB of 8-bit symmetric quantization scaled by the
largest value. (The feedback compares it with your measurement.)
Give three significant figures.{note}]],
  lab = "quantize",
  topics = { "quantization", "sqnr", "lab" },
  rubric = { "practice.optimization", "theory.memory" },
  hints = {
    "20 log10(peak / RMS) is the price of a large peak, in dB.",
    "6.02 x 8 + 4.77 - 20 log10({r}).",
  },
  params = function(rng, ctx)
    local p = {}
    local r = wb.lab.figure(ctx, "peak_rms_gauss")
    if ctx.lab and not r then
      p.note = need("SQNR part")
    elseif r then
      p.r = wb.round(r, 2)
      p.ref = 6.02 * 8 + 4.77 - 20 * math.log(p.r, 10)
      p.meas = wb.lab.figure(ctx, "sqnr_gauss_max_b8")
    end
    return wb.lab.blanks(p, { "r" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(strip(answer, "[dD][bB]"), ctx, {
      tol = { abs = 0.15 },
      wrong = {
        { value = 49.92, feedback = "That is the formula for a full-scale sine, whose peak is only 1.41 times its RMS." },
        { value = function(p) return 6.02 * 8 + 4.77 - 10 * math.log(p.r, 10) end,
          feedback = "peak / RMS is a ratio of amplitudes: in dB it is 20 log10, not 10 log10." },
      },
      explain = function(p)
        local s = string.format("6.02 x 8 + 4.77 - 20 log10(%s) = %s dB.", wb.sig(p.r, 3),
          wb.sig(p.ref, 4))
        if wb.finite(p.meas) then
          s = s .. string.format(" Your run measured %s dB, %s dB below the sine formula's 49.92.",
            wb.sig(p.meas, 4), wb.sig(49.92 - p.meas, 3))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { peak_rms_gauss = 4.52, sqnr_gauss_max_b8 = 39.76 } }, answer = "39.8", score = 1 },
    { lab = { summary = { peak_rms_gauss = 4.52, sqnr_gauss_max_b8 = 39.76 } }, answer = "39.8 dB", score = 1 },
    { lab = { summary = { peak_rms_gauss = 4.52, sqnr_gauss_max_b8 = 39.76 } },
      answer = "6.02*8+4.77-20*log10(4.52)", score = 1 },
    { lab = { summary = { peak_rms_gauss = 4.52 } }, answer = "49.92", score = 0 },
    { lab = { summary = { peak_rms_gauss = 4.52 } }, answer = "46.4", score = 0 },  -- 10 log10
    { lab = { summary = { peak_rms_gauss = 4.52 } }, answer = "45", score = 0 },
    { lab = { summary = { peak_rms_gauss = 4.52 } }, answer = "loud", score = "invalid" },
    -- a peak of sqrt(2) gives back the sine's formula
    { lab = { summary = { peak_rms_gauss = 1.41 } }, answer = "49.9", score = 1 },
    { lab = { params = { part = "gemm" }, summary = { gemm_n = 512 } }, answer = "40", score = "invalid" },
  },
}

question {
  id = "lab-quantize.db-per-bit",
  kind = "numeric",
  title = "What one bit buys, measured",
  prompt = [[
Your latest quantize run measured the full-scale uniform signal at
{u4} dB with 4 bits and {u8} dB with 8 bits. How many dB of SQNR did
each extra bit buy?
Give three significant figures.{note}]],
  lab = "quantize",
  topics = { "quantization", "sqnr", "lab" },
  rubric = { "practice.profiling", "practice.optimization" },
  hints = { "Four more bits: divide the difference by 4." },
  params = function(rng, ctx)
    local p = {}
    local a, b = wb.lab.figure(ctx, "sqnr_uniform_b4"), wb.lab.figure(ctx, "sqnr_uniform_b8")
    if ctx.lab and not (a and b) then
      p.note = need("uniform signal at 4 and 8 bits")
    elseif a and b then
      p.u4, p.u8 = wb.round(a, 2), wb.round(b, 2)
      p.ref = (p.u8 - p.u4) / 4
    end
    return wb.lab.blanks(p, { "u4", "u8" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(strip(answer, "[dD][bB]"), ctx, {
      tol = { abs = 0.02 },
      wrong = {
        { value = function(p) return p.u8 - p.u4 end,
          feedback = "That is what all four bits bought together; the question asks per bit." },
        { value = function(p) return p.u8 / 8 end,
          feedback = "Dividing the 8-bit SQNR by 8 assumes 0 dB at 0 bits; take the difference between two bit counts instead." },
      },
      explain = function(p)
        return string.format("(%s - %s) / 4 = %s dB per bit: each bit halves the step, "
          .. "and the noise power (step squared / 12) falls 4x: 10 log10 4 = 6.02 dB.",
          wb.sig(p.u8, 4), wb.sig(p.u4, 4), wb.sig(p.ref, 4))
      end,
    })
  end,
  examples = {
    { lab = { summary = { sqnr_uniform_b4 = 24.08, sqnr_uniform_b8 = 48.14 } }, answer = "6.015", score = 1 },
    { lab = { summary = { sqnr_uniform_b4 = 24.08, sqnr_uniform_b8 = 48.14 } }, answer = "6.02 dB", score = 1 },
    { lab = { summary = { sqnr_uniform_b4 = 24.08, sqnr_uniform_b8 = 48.14 } }, answer = "24.06", score = 0 },
    { lab = { summary = { sqnr_uniform_b4 = 24.08, sqnr_uniform_b8 = 48.14 } }, answer = "6.5", score = 0 },
    { lab = { summary = { sqnr_uniform_b4 = 24.08, sqnr_uniform_b8 = 48.14 } }, answer = "6 bits", score = "invalid" },
    { lab = { params = { bits_min = 10 }, summary = { sqnr_uniform_b12 = 72.2 } }, answer = "6", score = "invalid" },
  },
}

question {
  id = "lab-quantize.outlier-bits",
  kind = "numeric",
  title = "What one scale per tensor costs the ordinary rows",
  prompt = [[
At 8 bits, the ordinary rows of your run's outlier tensor measured
{t} dB with one scale for the whole tensor and {c} dB with one scale
per row. How many bits of resolution did the per-tensor scale cost
them?
Give three significant figures.{note}]],
  lab = "quantize",
  unit = "bit",
  topics = { "quantization", "outliers", "lab" },
  rubric = { "advanced.novel", "practice.optimization" },
  hints = { "Each bit is worth about 6.02 dB." },
  params = function(rng, ctx)
    local p = {}
    local t = wb.lab.figure(ctx, "sqnr_ordinary_tensor_b8")
    local c = wb.lab.figure(ctx, "sqnr_ordinary_channel_b8")
    if ctx.lab and not (t and c) then
      p.note = need("outlier tensor at 8 bits")
    elseif t and c then
      p.t, p.c = wb.round(t, 2), wb.round(c, 2)
      p.ref = (p.c - p.t) / 6.02
      local s = wb.lab.param(ctx, "outlier_scale")
      if type(s) == "number" and s > 1 then p.scale = s end
    end
    return wb.lab.blanks(p, { "t", "c" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "bit",
      tol = { rel = 0.02, abs = 0.05 },
      wrong = {
        { value = function(p) return p.c - p.t end,
          feedback = "That is the difference in dB; divide by 6.02 dB per bit." },
      },
      explain = function(p)
        local s = string.format("(%s - %s) / 6.02 = %s bits.", wb.sig(p.c, 4), wb.sig(p.t, 4),
          wb.sig(p.ref, 3))
        if p.scale then
          s = s .. string.format(" The outlier rows were %s times larger: log2(%s) = %s bits, "
            .. "the levels the ordinary rows never get to use.", wb.sig(p.scale, 3),
            wb.sig(p.scale, 3), wb.sig(math.log(p.scale, 2), 3))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { params = { outlier_scale = 20 },
              summary = { sqnr_ordinary_tensor_b8 = 11.0, sqnr_ordinary_channel_b8 = 36.57 } },
      answer = "4.25", score = 1 },
    { lab = { params = { outlier_scale = 20 },
              summary = { sqnr_ordinary_tensor_b8 = 11.0, sqnr_ordinary_channel_b8 = 36.57 } },
      answer = "(36.57-11)/6.02", score = 1 },
    { lab = { summary = { sqnr_ordinary_tensor_b8 = 11.0, sqnr_ordinary_channel_b8 = 36.57 } },
      answer = "25.57", score = 0 },
    { lab = { summary = { sqnr_ordinary_tensor_b8 = 11.0, sqnr_ordinary_channel_b8 = 36.57 } },
      answer = "2", score = 0 },
    { lab = { summary = { sqnr_ordinary_tensor_b8 = 11.0, sqnr_ordinary_channel_b8 = 36.57 } },
      answer = "4 ms", score = "invalid" },
    { lab = { params = { part = "model" }, summary = { acc_fp32 = 84 } }, answer = "4", score = "invalid" },
  },
}

question {
  id = "lab-quantize.size-4bit",
  kind = "numeric",
  title = "The size of your 4-bit model",
  prompt = [[
The MLP of your latest quantize run has {w} weights and {nb} biases (one
per output channel). Store the weights at 4 bits each, packed; keep the
biases in FP32; and store one FP32 scale per output channel. How many
bytes is the model?
Give three significant figures.{note}]],
  lab = "quantize",
  unit = "B",
  topics = { "quantization", "model-size", "lab" },
  rubric = { "theory.memory", "advanced.cost" },
  hints = {
    "4 bits is half a byte per weight.",
    "Biases and scales take 4 bytes each; there are as many scales as biases.",
  },
  params = function(rng, ctx)
    local p = {}
    local w, nb = wb.lab.figure(ctx, "weights"), wb.lab.figure(ctx, "biases")
    if ctx.lab and not (w and nb) then
      p.note = need("model part")
    elseif w and nb then
      p.w, p.nb = math.floor(w + 0.5), math.floor(nb + 0.5)
      p.ref = p.w * 4 / 8 + 4 * p.nb + 4 * p.nb
      p.fp32 = 4 * (p.w + p.nb)
    end
    return wb.lab.blanks(p, { "w", "nb" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "B",
      tol = { rel = 0.005, abs = 1, sig = 3 },   -- three figures always count
      wrong = {
        { value = function(p) return p.w * 4 / 8 end,
          feedback = "That is the weights alone; the FP32 biases and the scales are stored too." },
        { value = function(p) return p.w * 4 / 8 + 4 * p.nb end,
          feedback = "Add the scales: one FP32 number per output channel." },
        { value = function(p) return (p.w + p.nb) * 4 / 8 end,
          feedback = "The biases stay FP32: 4 bytes each, not half a byte." },
      },
      explain = function(p)
        return string.format("%d x 0.5 + %d x 4 + %d x 4 = %s bytes, against %s bytes in FP32: "
          .. "%sx smaller, not 8x, because biases and scales do not shrink.", p.w, p.nb, p.nb,
          wb.sig(p.ref, 6), wb.sig(p.fp32, 6), wb.sig(p.fp32 / p.ref, 3))
      end,
    })
  end,
  examples = {
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "3744", score = 1 },
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "3.744 KB", score = 1 },
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "2688", score = 0 },
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "3216", score = 0 },
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "2754", score = 0 },
    { lab = { summary = { weights = 5376, biases = 132 } }, answer = "3744 ms", score = "invalid" },
    { lab = { params = { part = "sqnr" }, summary = { n_samples = 262144 } }, answer = "3744", score = "invalid" },
  },
}

question {
  id = "lab-quantize.relative-loss",
  kind = "numeric",
  title = "The course's 4-8x claim, on your model",
  prompt = [[
The course's benchmarks promise "4-8x size reduction with <1% accuracy
loss". Your latest quantize run's MLP scored {a}% with FP32 weights and
{b}% with 4-bit weights (one scale per channel), where it is {r}x
smaller. What is the relative accuracy loss, in per cent of the FP32
accuracy?
Give three significant figures.{note}]],
  lab = "quantize",
  unit = "%",
  topics = { "quantization", "accuracy", "lab" },
  rubric = { "advanced.cost", "practice.deployment" },
  hints = { "Relative loss = (FP32 accuracy - 4-bit accuracy) / FP32 accuracy." },
  params = function(rng, ctx)
    local p = {}
    local a, b = wb.lab.figure(ctx, "acc_fp32"), wb.lab.figure(ctx, "acc_channel_b4")
    local r = wb.lab.figure(ctx, "size_ratio_b4")
    if ctx.lab and not (a and b and r) then
      p.note = need("model part at 4 bits")
    elseif a and b and r then
      p.a, p.b, p.r = wb.round(a, 2), wb.round(b, 2), wb.round(r, 2)
      p.ref = 100 * (p.a - p.b) / p.a
    end
    return wb.lab.blanks(p, { "a", "b", "r" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      unit = "%",
      tol = { rel = 0.02, abs = 0.02 },
      wrong = {
        { value = function(p)
            if math.abs((p.a - p.b) - p.ref) > 0.05 then return p.a - p.b end
          end,
          feedback = "That is the loss in percentage points; the question asks it relative to the FP32 accuracy." },
      },
      explain = function(p)
        local s = string.format("100 x (%s - %s) / %s = %s%%.", wb.sig(p.a, 4), wb.sig(p.b, 4),
          wb.sig(p.a, 4), wb.sig(p.ref, 3))
        if p.ref < 1 then
          s = s .. string.format(" Under 1%%, at %sx smaller: the claim holds for your model at "
            .. "4 bits.", wb.sig(p.r, 3))
        else
          s = s .. string.format(" Over 1%%: at %sx smaller your model pays more than the "
            .. "claim allows. Per-channel scales, clipping or QAT would win some of it back.",
            wb.sig(p.r, 3))
        end
        return s
      end,
    })
  end,
  examples = {
    { lab = { summary = { acc_fp32 = 84.25, acc_channel_b4 = 83.89, size_ratio_b4 = 5.88 } },
      answer = "0.427", score = 1 },
    { lab = { summary = { acc_fp32 = 84.25, acc_channel_b4 = 83.89, size_ratio_b4 = 5.88 } },
      answer = "0.43%", score = 1 },
    { lab = { summary = { acc_fp32 = 84.25, acc_channel_b4 = 83.89, size_ratio_b4 = 5.88 } },
      answer = "0.36", score = 0 },    -- points
    { lab = { summary = { acc_fp32 = 84.25, acc_channel_b4 = 83.89, size_ratio_b4 = 5.88 } },
      answer = "1", score = 0 },
    { lab = { summary = { acc_fp32 = 90, acc_channel_b4 = 81, size_ratio_b4 = 6 } },
      answer = "10", score = 1 },
    { lab = { summary = { acc_fp32 = 90, acc_channel_b4 = 81, size_ratio_b4 = 6 } },
      answer = "9", score = 0 },
    { lab = { summary = { acc_fp32 = 84.25 } }, answer = "0.4", score = "invalid" },
  },
}

question {
  id = "lab-quantize.int8-ideal",
  kind = "numeric",
  title = "How close your INT8 kernel came to the instruction count",
  prompt = [[
In your latest quantize run our INT8 matrix multiply used the {path}
path and ran {ratio}x as fast as our FP32 one (same blocking, same
flags). Per 256-bit instruction, FP32 FMA does 8 multiply-adds and the
{path} INT8 instruction does {k}. What fraction of that instruction-count
ideal did the INT8 kernel reach (1 = all of it)?
Give three significant figures.{note}]],
  lab = "quantize",
  topics = { "quantization", "int8", "simd", "lab" },
  rubric = { "practice.profiling", "theory.gpu" },
  hints = { "The ideal speed-up is {k} / 8; divide what you measured by it." },
  params = function(rng, ctx)
    local p = {}
    local ratio, path = wb.lab.figure(ctx, "cpu_s8_over_f32"), wb.lab.text(ctx, "cpu_s8_path")
    local per = { vnni = 32, avx2 = 16 }
    if ctx.lab and not (ratio and path) then
      p.note = need("GEMM part")
    elseif ratio and path and not per[path] then
      p.path = path
      p.note = "\n\n(Your CPU ran the portable path, with no INT8 dot-product instruction: "
        .. "there is no instruction count to compare with.)"
    elseif ratio and path then
      p.path, p.k, p.ratio = path, per[path], wb.round(ratio, 2)
      p.ref = p.ratio / (p.k / 8)
    end
    return wb.lab.blanks(p, { "path", "ratio", "k" })
  end,
  answer = function(p) return p.ref end,
  grade = function(answer, ctx)
    return wb.lab.grade(answer, ctx, {
      tol = { rel = 0.02, abs = 0.01 },
      wrong = {
        { value = function(p) return p.k / 8 end,
          feedback = "That is the ideal speed-up itself; the question asks what fraction of it your kernel reached." },
        { value = function(p) return p.ratio end,
          feedback = "That is the measured speed-up; divide it by the ideal, {k} / 8." },
      },
      explain = function(p)
        return string.format("%s / (%d / 8) = %s. The rest goes to what both kernels do besides "
          .. "multiplying: loads, packing A into groups, adding the sums into C.",
          wb.sig(p.ratio, 3), p.k, wb.sig(p.ref, 3))
      end,
    })
  end,
  examples = {
    { lab = { summary = { cpu_s8_over_f32 = 2.64, cpu_s8_path = "vnni" } }, answer = "0.66", score = 1 },
    { lab = { summary = { cpu_s8_over_f32 = 2.64, cpu_s8_path = "vnni" } }, answer = "66%", score = 1 },
    { lab = { summary = { cpu_s8_over_f32 = 2.64, cpu_s8_path = "vnni" } }, answer = "4", score = 0 },
    { lab = { summary = { cpu_s8_over_f32 = 2.64, cpu_s8_path = "vnni" } }, answer = "2.64", score = 0 },
    { lab = { summary = { cpu_s8_over_f32 = 1.46, cpu_s8_path = "avx2" } }, answer = "0.73", score = 1 },
    { lab = { summary = { cpu_s8_over_f32 = 1.2, cpu_s8_path = "portable" } }, answer = "1", score = "invalid" },
    { lab = { summary = { acc_fp32 = 84 } }, answer = "0.5", score = "invalid" },
  },
}

------------------------------------------------------------------------------
question {
  id = "lab-quantize.one-point-seven-six",
  kind = "choice",
  title = "Where the 1.76 dB comes from",
  prompt = [[
Your quantize run measured a full-scale uniform signal at 6.02 b dB,
1.76 dB below the formula 6.02 b + 1.76, while a full-scale sine
approached the formula. Where does the 1.76 dB come from?]],
  topics = { "quantization", "sqnr", "lab" },
  rubric = { "practice.optimization" },
  hints = { "Same converter, same step, same noise: what differs between the two signals?" },
  choices = {
    "From rounding to the nearest level instead of truncating.",
    "From the signal's power: a sine of amplitude A has power A²/2, a uniform signal A²/3, and 10 log10(1.5) = 1.76 dB; the noise is the same.",
    "From the sign bit, which the formula does not count.",
    "From measurement error: with more samples both would reach the formula.",
  },
  answer = 2,
  why = {
    [1] = "Both signals went through the same converter; the noise power (step²/12) is the same for both.",
    [3] = "The sign is one of the b bits in both cases.",
    [4] = "The difference is in the signals' power and does not shrink with more samples: the uniform signal's 6.02 b is exact.",
  },
  examples = { { "b", 1 }, { "a", 0 }, { "d", 0 }, { "x", "invalid" } },
}

question {
  id = "lab-quantize.clip",
  kind = "choice",
  title = "Why clipping helps at 4 bits and not at 16",
  prompt = [[
At 4 bits your run's best clipping threshold for Gaussian weights was
about 2.5 standard deviations, well inside the largest value, and it
raised the SQNR by about 4 dB. At 16 bits the best threshold was the
largest value itself. Why the difference?]],
  topics = { "quantization", "clipping", "lab" },
  rubric = { "practice.optimization", "advanced.novel" },
  hints = { "Clipping trades one kind of noise for another. How big is each at 4 and at 16 bits?" },
  choices = {
    "Clipping saturates the few values beyond the threshold but shrinks the step for all the others; at 4 bits the steps are coarse, so the smaller rounding noise outweighs the clipping noise; at 16 bits rounding noise is already tiny and any clipping costs more than it saves.",
    "At 16 bits there are no values beyond 2.5 standard deviations.",
    "The search for the threshold does not work at 16 bits.",
    "Clipping only works with asymmetric quantization.",
  },
  answer = 1,
  why = {
    [2] = "The share of Gaussian values beyond 2.5 sigma (about 1.2%) does not depend on the number of bits.",
    [3] = "The search finds the true optimum at every b; at 16 bits that optimum is the largest value.",
    [4] = "The lab clips a symmetric quantizer.",
  },
  examples = { { "a", 1 }, { "b", 0 }, { "c", 0 }, { "", "invalid" } },
}

question {
  id = "lab-quantize.asym-relu",
  kind = "choice",
  title = "Asymmetric quantization of ReLU outputs",
  prompt = [[
On ReLU outputs (never negative) your run's asymmetric quantizer beat the
symmetric one by about 6 dB at every bit count. Why about 6 dB?]],
  topics = { "quantization", "asymmetric", "lab" },
  rubric = { "practice.optimization", "theory.memory" },
  hints = { "Which of the symmetric format's codes can a non-negative value use?" },
  choices = {
    "The symmetric format spends half its codes on negative values that never occur, which is one bit; one bit is worth about 6 dB.",
    "Asymmetric quantization rounds more accurately.",
    "The zero point makes the zeros exact, and ReLU outputs are half zeros.",
    "Asymmetric formats have twice as many bits.",
  },
  answer = 1,
  why = {
    [2] = "Both round to the nearest level; what differs is how many levels cover the data.",
    [3] = "Both formats represent 0 exactly here (the zero point is 0 because the minimum is 0).",
    [4] = "Both use b bits; the asymmetric one uses all of its 2^b codes on the data's range.",
  },
  examples = { { "a", 1 }, { "c", 0 }, { "b", 0 }, { "9", "invalid" } },
}

question {
  id = "lab-quantize.int8-dot",
  kind = "code",
  title = "Write an INT8 dot product",
  points = 10,
  topics = { "quantization" },
  prompt = [[
Write `int64_t dot8(int n, const int8_t *a, const int8_t *b)`: the exact dot
product of two INT8 vectors of n = 16777216 values from -127 to 127. The
sum needs more than 32 bits, but a block of up to 2^16 products fits in an
int32: accumulate blocks in int32 lanes (which vectorise: VPMADDWD and
friends) and add the blocks into an int64. 2n operations on 2n bytes per call:
memory bound; full marks from 95% of this machine's triad bandwidth.]],
  code = {
    signature = "int64_t dot8(int n, const int8_t *a, const int8_t *b)",
    sizes = { n = 16777216 },
    inputs = { a = { count = "n", min = -127, max = 127 }, b = { count = "n", min = -127, max = 127 } },
    work = { flops = "2*n", bytes = "2*n" },
    correct = 0.3,
    bands = { { fraction = 0.5, score = 0.3 }, { fraction = 0.8, score = 0.7 },
              { fraction = 0.95, score = 1 } },
    reps = 5,
    starter = [[
/* dot8.c: the exact INT8 dot product. Make it fast. */
#include <stdint.h>

int64_t dot8(int n, const int8_t *a, const int8_t *b)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += (int64_t)a[i] * b[i];
    return s;
}
]],
    reference = [[
#include <stdint.h>

int64_t dot8(int n, const int8_t *a, const int8_t *b)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += (int64_t)a[i] * b[i];
    return s;
}
]],
  },
}
