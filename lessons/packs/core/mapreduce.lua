-- Lesson 5: MapReduce and k-means.
--
-- Facts and worked examples come from the course material
-- (midterm-crash-course.md hour 3, ml-system-optimization-notes.txt question 7
-- and its MapReduce notes); the text is ours. The course's worked examples
-- are fixed-number questions: the word count "cat dog cat bird dog dog" at
-- every stage (mapreduce.wordcount-pairs and -map for the map output,
-- -shuffle for the grouped lists, -output for the reduce output) and the
-- distributed k-means speedup (mapreduce.kmeans-speedup-worked); the rest are
-- per-student variants whose `examples` also run the course's numbers where
-- there are any.
--
-- Corrections to the material taught here:
--   * The crash course sketches k-means as two MapReduce phases, the first
--     with "REDUCE: min distance → assign to cluster" and the second with
--     "MAP: for each cluster". The nearest centroid needs no reduce: every
--     mapper holds all k centroids, so one map per point finds it, and one
--     job per iteration (map + combiner + reduce) does the whole step.
--   * "Speedup ≈ p" holds for the distance computations; the page shows what
--     it leaves out (the reduce of p·k partial sums, per-iteration job
--     overhead) and when it stops holding.
--
-- Conventions: tolerance is the default 1% relative unless a comment says
-- why not. Prompts contain no braces except params placeholders.

lesson {
  id = "mapreduce",
  title = "MapReduce and k-means",
  topics = { "mapreduce", "kmeans" },
  rubric = { "theory.parallel" },
}

-- Formats a number for an example answer with enough digits to be exact.
local function num(x) return string.format("%.6g", x) end

------------------------------------------------------------------------------
page [[
# k-means clustering

k-means splits n points in d dimensions into **k clusters**, each described
by its centre (its *centroid*, the mean of its points).

```
1. pick k starting centroids (k random points, or k-means++)
2. repeat
     ASSIGN: give every point to its nearest centroid
     UPDATE: move every centroid to the mean of the points it was given
   until no point changes cluster
     (or the centroids move less than a threshold, or after N iterations)
```

Each iteration lowers (or keeps) the sum of squared distances from points to
their centroids, so the loop always stops, but at a *local* optimum that
depends on the start. Production code runs several starts or uses k-means++
seeding, which spreads the first centroids apart.

## What one iteration costs

| step   | work                                         | order    |
|--------|----------------------------------------------|----------|
| assign | n × k distances, each over d coordinates     | n·k·d    |
| update | add every point into its cluster's sum, divide | n·d + k·d |

The assign step dominates: **O(n·k·d) per iteration**, and the whole run is
that times the number of iterations. Every one of the n·k distances is
independent of the others, which is what makes k-means a textbook case of
*data parallelism*.

## A tiny run

Points on a line: 1, 2, 3, 10, 11, 12, with k = 2 and starting centroids
c1 = 1 and c2 = 2.

| iteration | cluster of c1 | cluster of c2     | new c1 | new c2          |
|-----------|---------------|-------------------|--------|-----------------|
| 1         | 1             | 2, 3, 10, 11, 12  | 1      | 38 / 5 = 7.6    |
| 2         | 1, 2, 3       | 10, 11, 12        | 2      | 33 / 3 = 11     |
| 3         | 1, 2, 3       | 10, 11, 12        | 2      | 11 (no change)  |

A bad start (two centroids inside the same group) costs iterations, not
correctness: after iteration 2 the clusters are right, and iteration 3 only
confirms that nothing moves.
]]

question {
  id = "mapreduce.kmeans-update",
  kind = "numeric",
  title = "One k-means step by hand (your numbers)",
  prompt = [[
Run k-means with k = 2 on the points {pts} (one dimension), starting from
centroids c1 = {c1} and c2 = {c2}. Do ONE assignment step and ONE update
step. What is the new value of c2?
Give three significant figures.]],
  topics = { "kmeans" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "Assign each point to the nearer of {c1} and {c2}; the boundary is halfway between them.",
    "The new c2 is the mean of the points assigned to c2 (not of all points).",
  },
  params = function(rng)
    -- c1 + c2 is odd, so the boundary (c1 + c2) / 2 is a half-integer and no
    -- integer point is ever equidistant. b and c lie above the boundary, so
    -- c2 captures some low points, as in the course's example; the answer
    -- then differs from the final (converged) centroid.
    local c1 = rng:int(1, 3)
    local x = { c1, c1 + rng:int(1, 2), c1 + rng:int(2, 4),
                rng:int(9, 13), rng:int(14, 17), rng:int(18, 22) }
    return { c1 = c1, c2 = c1 + 1, x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6],
             pts = table.concat(x, ", ") }
  end,
  answer = function(p)
    local sum, n = 0, 0
    for _, v in ipairs({ p.x1, p.x2, p.x3, p.x4, p.x5, p.x6 }) do
      if math.abs(v - p.c2) < math.abs(v - p.c1) then sum, n = sum + v, n + 1 end
    end
    return sum / n
  end,
  wrong = {
    { value = function(p) return (p.x4 + p.x5 + p.x6) / 3 end,
      feedback = "That is where c2 ends up after more iterations. After ONE step, c2 is the mean of every point nearer to c2 than to c1, low points included." },
    { value = function(p) return (p.x1 + p.x2 + p.x3 + p.x4 + p.x5 + p.x6) / 6 end,
      feedback = "That is the mean of all the points. Only the points assigned to c2 count." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { answer = function(p) return num((p.x4 + p.x5 + p.x6) / 3) end, score = 0 },
    { "c2", "invalid" },
    -- The page's run: 1, 2, 3, 10, 11, 12 from c1 = 1, c2 = 2.
    { params = { c1 = 1, c2 = 2, x1 = 1, x2 = 2, x3 = 3, x4 = 10, x5 = 11, x6 = 12, pts = "1, 2, 3, 10, 11, 12" },
      answer = "7.6", score = 1 },
    { params = { c1 = 1, c2 = 2, x1 = 1, x2 = 2, x3 = 3, x4 = 10, x5 = 11, x6 = 12, pts = "1, 2, 3, 10, 11, 12" },
      answer = "11", score = 0 },
    { params = { c1 = 1, c2 = 2, x1 = 1, x2 = 2, x3 = 3, x4 = 10, x5 = 11, x6 = 12, pts = "1, 2, 3, 10, 11, 12" },
      answer = "6.5", score = 0 },
  },
}

question {
  id = "mapreduce.kmeans-terms",
  kind = "numeric",
  title = "Work in one k-means iteration (your numbers)",
  prompt = [[
k-means runs on {nm} million points in d = {d} dimensions with k = {k}
clusters. The assign step computes the squared distance from every point to
every centroid, one term (difference, squared, added) per coordinate. How
many such terms does ONE iteration compute? (Scientific notation is fine,
e.g. 3e9.)
Give three significant figures.]],
  topics = { "kmeans", "complexity" },
  hints = {
    "Every point is compared with every centroid: n × k distances.",
    "Each distance has one term per dimension: n × k × d.",
  },
  params = function(rng)
    return { nm = rng:pick({ 1, 5, 10, 20, 50, 100 }), d = rng:pick({ 2, 8, 16, 32, 64, 128 }),
             k = rng:pick({ 3, 5, 10, 20, 50 }) }
  end,
  answer = function(p) return p.nm * 1e6 * p.k * p.d end,
  wrong = {
    { value = function(p) return p.nm * 1e6 * p.k end,
      feedback = "That counts distances (n × k); each distance has d terms, one per dimension." },
    { value = function(p) return p.nm * 1e6 * p.d end,
      feedback = "That is the size of the data (n × d); every point is compared with all k centroids." },
    { value = function(p) return p.nm * p.k * p.d end,
      feedback = "n is in millions: multiply by 10^6." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p) return num(p.nm * 1e6 * p.k * p.d) end, score = 1 },
    { answer = function(p) return string.format("%d*10^6*%d*%d", p.nm, p.k, p.d) end, score = 1 },
    { answer = function(p) return num(p.nm * 1e6 * p.k * p.d * 1.1) end, score = 0 },
    { answer = function(p) return num(p.nm * 1e6 * p.k) end, score = 0 },
    { "n*k*d", "invalid" },
    { params = { nm = 100, k = 10, d = 16 }, answer = "1.6e10", score = 1 },
    { params = { nm = 100, k = 10, d = 16 }, answer = "1e9", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# MapReduce

MapReduce is a programming model for batch jobs over data too large for one
machine. You write two functions; the framework does everything else.

```
map(record)          -> list of (key, value)
reduce(key, values)  -> output for that key
```

Between them the framework runs the **shuffle**: it collects every pair the
mappers emitted, **groups the values by key**, sends each key to one reducer
(usually reducer = hash(key) mod R) and sorts the keys a reducer receives.

```
 input          map             shuffle              reduce      output
 ─────       ─────────      ────────────────      ──────────    ────────
 split 1 ──> mapper 1 ──┐   group by key,     ┌─> reducer 1 ──> part 1
 split 2 ──> mapper 2 ──┼─> partition,      ──┤
 split 3 ──> mapper 3 ──┘   sort, send        └─> reducer 2 ──> part 2
```

What the framework takes off your hands:

- **distribution**: one map task per input split, scheduled next to its data
  when it can (moving computation is cheaper than moving data);
- **fault tolerance**: a failed task is simply run again; map output is kept
  on the mapper's local disk until the reducers have it;
- **stragglers**: near the end of a phase, slow tasks get a backup copy and
  the first copy to finish wins (*speculative execution*).

The price: every job reads its input from storage and writes its output back,
and the shuffle moves data across the network. Jobs that loop (like k-means)
pay this on every iteration.

## Word count

The classic first job counts words:

```
map(document):        for each word w in document: emit (w, 1)
reduce(word, counts): emit (word, sum(counts))
```

For the one-line document `cat dog cat bird dog dog`:

| stage            | result                                           |
|------------------|--------------------------------------------------|
| map (6 pairs)    | (cat,1) (dog,1) (cat,1) (bird,1) (dog,1) (dog,1) |
| shuffle (3 keys) | bird → [1], cat → [1, 1], dog → [1, 1, 1]        |
| reduce           | (bird, 1) (cat, 2) (dog, 3)                      |

The order of the output lines is not part of the model. A reducer sees its
keys sorted, so one reducer writes bird, cat, dog; with several reducers each
writes its own sorted share.
]]

question {
  id = "mapreduce.wordcount-pairs",
  kind = "numeric",
  title = "Word count: map output",
  prompt = [[
A word-count job (map emits (word, 1) for every word; reduce sums) runs on
the single document "cat dog cat bird dog dog". How many (key, value) pairs
do the mappers emit in total?
Give a whole number.]],
  topics = { "mapreduce", "wordcount" },
  hints = { "The mapper emits one pair per word occurrence, not per distinct word." },
  answer = 6,
  tolerance = { abs = 0 },   -- a count: exactly 6
  wrong = {
    { value = 3, feedback = "3 is the number of distinct words (keys after the shuffle). The mapper emits a pair for every occurrence." },
    { value = 1, feedback = "The mapper does not aggregate: one pair per word occurrence." },
  },
  examples = {
    { "6", 1 },
    { "3", 0 },
    { "7", 0 },
    { "six", "invalid" },
  },
}

question {
  id = "mapreduce.wordcount-map",
  kind = "text",
  title = "Word count: the map output",
  prompt = [[
Same job, same document: "cat dog cat bird dog dog", read by one mapper.
Write the pairs the mapper emits, e.g. "(apple, 1) (pear, 1)".]],
  points = 2,
  topics = { "mapreduce", "wordcount" },
  hints = {
    "The mapper looks at one word at a time and adds nothing up.",
    "One pair per word of the document, in the order the words come.",
  },
  answer = "(cat,1) (dog,1) (cat,1) (bird,1) (dog,1) (dog,1)",
  -- Custom grade: (word, count) pairs in any order and punctuation. Each of
  -- the six expected (word, 1) pairs is a sixth of the credit; a pair that
  -- is not one of them (a count above 1, a word not in the document, one
  -- occurrence too many) takes a sixth away.
  grade = function(answer)
    local want = { cat = 2, dog = 3, bird = 1 }
    local got, n, right, extra, summed = {}, 0, 0, 0, false
    for word, count in answer:lower():gmatch("%f[%a](%a+)[^%a%d]*(%d+)") do
      n = n + 1
      local c = tonumber(count)
      if c == 1 and want[word] and (got[word] or 0) < want[word] then
        got[word] = (got[word] or 0) + 1
        right = right + 1
      else
        extra = extra + 1
        if c and c > 1 then summed = true end
      end
    end
    if n == 0 then
      return { valid = false, feedback = "Write (word, count) pairs, e.g. '(apple, 1) (pear, 1)'." }
    end
    if right == 6 and extra == 0 then
      return 1, "Right: one (word, 1) pair per occurrence, 6 in all; adding up is the reducer's job."
    end
    if summed then
      return math.max(0, (right - extra) / 6),
             "The mapper does not add: it emits (word, 1) for every occurrence. Counts above 1 appear only after the reduce (or a combiner)."
    end
    local notes = {}
    for _, w in ipairs({ "cat", "dog", "bird" }) do
      if (got[w] or 0) < want[w] then
        notes[#notes + 1] = string.format("'%s' occurs %s: one (%s, 1) pair for each.", w,
                                          ({ "once", "twice", "3 times" })[want[w]], w)
      end
    end
    if extra > 0 then notes[#notes + 1] = "Some pairs are not in the map output: only (word, 1) for the six words of the document." end
    return math.max(0, (right - extra) / 6), table.concat(notes, " ")
  end,
  examples = {
    { "(cat,1) (dog,1) (cat,1) (bird,1) (dog,1) (dog,1)", 1 },
    { "cat 1, dog 1, cat 1, bird 1, dog 1, dog 1", 1 },
    { "(cat, 1) (dog, 1) (cat, 1) (bird, 1) (dog, 1)", 5 / 6 },   -- one dog missing
    { "(cat, 2) (dog, 3) (bird, 1)", 0 },                          -- the reduce output
    { "cat dog cat bird dog dog", "invalid" },                     -- no counts
  },
}

question {
  id = "mapreduce.wordcount-shuffle",
  kind = "text",
  title = "Word count: after the shuffle",
  prompt = [[
Same job, same document. After the shuffle, each key reaches its reducer
with the list of all its values. Write every key with its list, e.g.
"apple [1, 1], pear [1]". Any order.]],
  points = 2,
  topics = { "mapreduce", "wordcount" },
  hints = {
    "The shuffle groups the map output by key; it does not add anything.",
    "'dog' occurs three times, so its list has three values.",
  },
  answer = "cat [1, 1], dog [1, 1, 1], bird [1]",
  -- Custom grade: a third of the credit per key with the right list; sums
  -- in place of lists are the reducer's output, and the feedback says so.
  grade = function(answer)
    local want = { cat = 2, dog = 3, bird = 1 }
    local seen, right, n, notes, summed = {}, 0, 0, {}, false
    for word, list in answer:lower():gmatch("%f[%a](%a+)[^%a%[]*%[([^%]%[]*)%]") do
      n = n + 1
      local ones, other = 0, 0
      for v in list:gmatch("[^%s,;]+") do
        if v == "1" then ones = ones + 1 else other = other + 1 end
      end
      if other > 0 and ones == 0 then summed = true end
      if want[word] and not seen[word] then
        seen[word] = true
        if ones == want[word] and other == 0 then
          right = right + 1
        else
          notes[#notes + 1] = string.format("'%s' occurs %s, so its list is [%s].", word,
                                            ({ "once", "twice", "3 times" })[want[word]],
                                            string.rep("1, ", want[word] - 1) .. "1")
        end
      elseif not want[word] then
        notes[#notes + 1] = "'" .. word .. "' is not a word of the document."
      end
    end
    if n == 0 then
      return { valid = false, feedback = "Write each word with its list in brackets, e.g. 'apple [1, 1], pear [1]'." }
    end
    if right == 3 and #notes == 0 then
      return 1, "Right: cat [1, 1], dog [1, 1, 1], bird [1]; the reducers then add up each list."
    end
    if summed then
      table.insert(notes, 1, "The shuffle only groups: it delivers the list of 1s, and the reducer adds them up.")
    end
    for _, w in ipairs({ "cat", "dog", "bird" }) do
      if not seen[w] then notes[#notes + 1] = "Missing: " .. w .. "." end
    end
    return right / 3, table.concat(notes, " ")
  end,
  examples = {
    { "cat [1, 1], dog [1, 1, 1], bird [1]", 1 },
    { "bird → [1]; cat → [1, 1]; dog → [1, 1, 1]", 1 },
    { "(cat, [1,1]) (dog, [1,1,1]) (bird, [1])", 1 },
    { "cat [1, 1], dog [1, 1], bird [1]", 2 / 3 },    -- one value short
    { "cat [2], dog [3], bird [1]", 1 / 3 },          -- already summed
    { "cat 2, dog 3, bird 1", "invalid" },            -- no lists
  },
}

question {
  id = "mapreduce.wordcount-output",
  kind = "text",
  title = "Word count: reduce output",
  prompt = [[
Same job, same document: "cat dog cat bird dog dog". Write what the reducers
output, as word and count pairs, e.g. "apple 4, pear 1". Any order.]],
  points = 2,
  topics = { "mapreduce", "wordcount" },
  hints = {
    "After the shuffle every word arrives at a reducer once, with the list of all its 1s.",
    "The reducer sums each list.",
  },
  answer = "cat 2, dog 3, bird 1",
  -- Custom grade: read word/number pairs in any order and any punctuation;
  -- a third of the credit per right word, minus a third per extra or repeated
  -- word (a repeated word means map output, not reduce output).
  grade = function(answer)
    local want = { cat = 2, dog = 3, bird = 1 }
    local seen, right, extra, n = {}, 0, 0, 0
    local notes = {}
    for word, count in answer:lower():gmatch("%f[%a](%a+)[^%a%d]*(%d+)") do
      n = n + 1
      local c = tonumber(count)
      if seen[word] then
        extra = extra + 1
      elseif want[word] then
        seen[word] = true
        if c == want[word] then
          right = right + 1
        else
          notes[#notes + 1] = word .. " appears " .. want[word] .. " time(s), not " .. c .. "."
        end
      else
        seen[word] = true
        extra = extra + 1
        notes[#notes + 1] = "'" .. word .. "' is not a word of the document."
      end
    end
    if n == 0 then
      return { valid = false, feedback = "Write word and count pairs, e.g. 'apple 4, pear 1'." }
    end
    if n >= 6 and right < 3 then
      return 0, "That looks like the map output (one pair per occurrence). After the shuffle each word reaches reduce once and its 1s are summed: cat 2, dog 3, bird 1."
    end
    if extra > 0 and #notes == 0 then
      notes[#notes + 1] = "Each word appears once in the reduce output."
    end
    for _, w in ipairs({ "cat", "dog", "bird" }) do
      if not seen[w] then notes[#notes + 1] = "Missing: " .. w .. "." end
    end
    local score = math.max(0, (right - extra) / 3)
    if score == 1 then return 1, "Right: (cat, 2), (dog, 3), (bird, 1)." end
    return score, table.concat(notes, " ")
  end,
  examples = {
    { "cat 2, dog 3, bird 1", 1 },
    { "(bird, 1) (cat, 2) (dog, 3)", 1 },
    { "dog: 3; cat: 2; bird: 1", 1 },
    { "cat 2, dog 3", 2 / 3 },
    { "cat 2, dog 2, bird 1", 2 / 3 },                  -- one count wrong
    { "cat 1, dog 1, cat 1, bird 1, dog 1, dog 1", 0 }, -- the map output
    { "cat 2, dog 3, bird 1, fish 1", 2 / 3 },          -- an extra word
    { "cat, dog, bird", "invalid" },                    -- no counts
  },
}

------------------------------------------------------------------------------
page [[
# The combiner

In word count every mapper sends one pair per word occurrence across the
network. A **combiner** is a reduce that runs on each mapper's own output
*before* the shuffle, so only one pair per distinct key per mapper leaves the
machine.

Split `cat dog cat bird dog dog` between two mappers:

| mapper | input        | map output               | after the combiner |
|--------|--------------|--------------------------|--------------------|
| 1      | cat dog cat  | (cat,1) (dog,1) (cat,1)  | (cat,2) (dog,1)    |
| 2      | bird dog dog | (bird,1) (dog,1) (dog,1) | (bird,1) (dog,2)   |

The shuffle now carries 4 pairs instead of 6, and the reducer output is the
same: (bird, 1) (cat, 2) (dog, 3). On real text, where a mapper sees the same
few thousand words millions of times, the saving is orders of magnitude.

## When may a combiner run?

The framework may run the combiner zero, one or several times, on any subset
of a mapper's output. The result is only right if that cannot matter, that is
if the operation is **associative and commutative** and the combiner's output
has the same form as the map output:

- sum, count (as a sum of 1s), minimum, maximum: yes.
- **mean: not directly.** The mean of partial means is wrong when the parts
  have different sizes. Carry (sum, count) pairs instead; the reducer adds
  sums and counts and divides once at the end.
- median, distinct count: no simple combiner (they need all the values, or a
  sketch such as HyperLogLog).

A reducer that counts *how many values it received* is a trap: used as a
combiner it turns (dog,1) (dog,1) into (dog,2), and the reducer then counts
one value. Word count's reducer works as its own combiner because it *sums*.
]]

question {
  id = "mapreduce.combiner-pairs",
  kind = "numeric",
  title = "Pairs shuffled with a combiner (your numbers)",
  prompt = [[
A word-count job runs on two mappers. Mapper 1 gets "{half1}" and mapper 2
gets "{half2}". Each mapper runs a combiner (a local sum) before the
shuffle. How many (word, count) pairs cross the network in the shuffle?
Give a whole number.]],
  topics = { "mapreduce", "combiner", "wordcount" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "After its combiner, each mapper emits one pair per DISTINCT word in its own input.",
    "Add the two mappers' distinct-word counts. A word seen by both mappers is sent twice.",
  },
  params = function(rng)
    -- 5 to 7 words from a vocabulary of 4: every half repeats a word, so
    -- the combiner always saves something.
    local vocab = { "cat", "dog", "bird", "fish" }
    local function half()
      local w = {}
      for i = 1, rng:int(5, 7) do w[i] = rng:pick(vocab) end
      return table.concat(w, " ")
    end
    return { half1 = half(), half2 = half() }
  end,
  answer = function(p)
    local function distinct(s)
      local seen, n = {}, 0
      for w in s:gmatch("%a+") do if not seen[w] then seen[w], n = true, n + 1 end end
      return n
    end
    return distinct(p.half1) + distinct(p.half2)
  end,
  tolerance = { abs = 0 },   -- a count
  wrong = {
    { value = function(p)
        local n = 0
        for _ in (p.half1 .. " " .. p.half2):gmatch("%a+") do n = n + 1 end
        return n
      end,
      feedback = "That is the shuffle WITHOUT a combiner (one pair per word occurrence). The combiner sums each mapper's pairs per word first." },
  },
  examples = {
    { answer = function(p, ctx) return tostring(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return tostring(ctx.reference + 1) end, score = 0 },
    { "lots", "invalid" },
    -- The page's split of the course's document.
    { params = { half1 = "cat dog cat", half2 = "bird dog dog" }, answer = "4", score = 1 },
    { params = { half1 = "cat dog cat", half2 = "bird dog dog" }, answer = "6", score = 0 },
    { params = { half1 = "cat dog cat", half2 = "bird dog dog" }, answer = "3", score = 0 },
  },
}

question {
  id = "mapreduce.combiner-mean",
  kind = "numeric",
  title = "Averaging partial averages (your numbers)",
  prompt = [[
In one k-means iteration, mapper A assigned {na} points to cluster 3 and
their mean x-coordinate is {ma}; mapper B assigned {nb} points to cluster 3
with mean x-coordinate {mb}. What is the x-coordinate of cluster 3's new
centroid?
Give three significant figures.]],
  topics = { "kmeans", "combiner" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "The centroid is the mean over ALL the points of the cluster, not the mean of the two means.",
    "Turn each mean back into a sum: na × ma and nb × mb. Add the sums and divide by the total count.",
  },
  params = function(rng)
    local na = rng:int(2, 9)
    local nb
    repeat nb = rng:int(10, 60) until nb ~= na
    local ma = rng:int(10, 40) / 10
    local mb = ma + rng:int(20, 60) / 10
    return { na = na, nb = nb, ma = ma, mb = mb }
  end,
  answer = function(p) return (p.na * p.ma + p.nb * p.mb) / (p.na + p.nb) end,
  wrong = {
    { value = function(p) return (p.ma + p.mb) / 2 end,
      feedback = "The mean of the two means weights both mappers equally, whatever their counts. Combine (sum, count) pairs: (na·ma + nb·mb) / (na + nb)." },
    { value = function(p) return p.na * p.ma + p.nb * p.mb end,
      feedback = "That is the sum of the coordinates; divide by the number of points." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("(%d*%g + %d*%g)/(%d+%d)", p.na, p.ma, p.nb, p.mb, p.na, p.nb) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 0.97) end, score = 0 },
    { answer = function(p) return num((p.ma + p.mb) / 2) end, score = 0 },
    { "x", "invalid" },
    { params = { na = 3, ma = 2, nb = 1, mb = 10 }, answer = "4", score = 1 },
    { params = { na = 3, ma = 2, nb = 1, mb = 10 }, answer = "6", score = 0 },
  },
}

question {
  id = "mapreduce.combiner-valid",
  kind = "multi",
  title = "Which reducers work as combiners?",
  prompt = [[
Each option is a reduce function. Which of them can ALSO be used, unchanged,
as the combiner of the same job? Pick all that apply.]],
  topics = { "mapreduce", "combiner" },
  hints = {
    "The combiner's output becomes the reducer's input. Does the reducer still compute the right thing?",
    "Try it on the values 1, 1, 1 split as [1, 1] and [1].",
  },
  choices = {
    "emit the sum of the values",
    "emit the largest value",
    "emit the mean of the values",
    "emit the number of values received",
    "emit the median of the values",
  },
  answer = { 1, 2 },
  why = {
    [3] = "A mean of partial means is wrong when the parts have different sizes: emit (sum, count) pairs instead.",
    [4] = "Combined, [1, 1] and [1] become the values 2 and 1; the reducer then counts 2 values, not 3. Count by SUMMING ones.",
    [5] = "The median of medians is not the median; a median needs all the values (or an approximate sketch).",
  },
  examples = {
    { "a b", 1 },
    { "a", 0.5 },
    { "a b d", 0.5 },       -- (2 - 1) / 2
    { "a b c d e", 0 },     -- (2 - 3) / 2, at least 0
    { "a f", "invalid" },
  },
}

question {
  id = "mapreduce.phases-order",
  kind = "ordering",
  title = "The life of a MapReduce job",
  prompt = "Put the stages of a MapReduce job (with a combiner) in the order they happen.",
  topics = { "mapreduce" },
  hints = { "The combiner works on one mapper's output, before anything crosses the network." },
  items = {
    "split the input into chunks, one map task per chunk",
    "map: emit (key, value) pairs for each record",
    "combine: pre-aggregate each mapper's pairs by key",
    "shuffle: partition by key, send to reducers, sort",
    "reduce: aggregate all values of each key",
    "write the output files",
  },
  examples = {
    { order = { 1, 2, 3, 4, 5, 6 }, score = 1 },
    { order = { 1, 2, 4, 3, 5, 6 }, score = 1 - 2 * 1 / 15 },   -- combiner after the shuffle
    { "a b c", "invalid" },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
page [[
# k-means as a MapReduce job

One k-means iteration is **one** MapReduce job. A driver program loops,
starting a job per iteration, until the centroids stop moving.

```
driver:   centroids = initial k points
          repeat
              broadcast centroids to every mapper  (k × d numbers: KBs)
              run the job below
              centroids = job output
          until converged

map(point x):          j = index of the centroid nearest to x
                       emit (j, (x, 1))
combine(j, pairs):     emit (j, (sum of the x's, sum of the counts))
reduce(j, pairs):      s, c = sums of the partial sums and counts
                       emit (j, s / c)          -- the new centroid j
```

**Assign happens inside map.** Every mapper has all k centroids, so it can
find the nearest one itself. Some course notes draw the assignment as a
reduce that takes a minimum over emitted distances; that would shuffle n × k
distances to do what the map already knows. Likewise the update is not a map
"per cluster": the map sees points, the grouping by cluster is what the
shuffle does.

**The combiner is what makes it scale.** Without it every point crosses the
network: n records (a cluster id, d coordinates and a count). With it each
mapper sends k records (one partial sum and count per cluster), p × k in
total. For the course's
numbers (n = 100 million, p = 100 mappers, k = 10) that is 1,000 records
instead of 100,000,000, a factor n / (p·k) = 100,000 less data shuffled.
Without a combiner there is a second problem: there are only k keys, so at
most k reducers do all the adding.

**Iteration overhead.** Classic Hadoop MapReduce rereads the input from disk
and starts new tasks for every job; with tens of iterations this fixed cost
can dominate. Spark keeps the points cached in memory across iterations,
which is why iterative ML moved there. The `kmeans` lab (in versions that
have it: `warpbench lab list`) runs this loop on your machine.
]]

question {
  id = "mapreduce.kmeans-map-output",
  kind = "choice",
  title = "What does the k-means mapper emit?",
  prompt = [[
In a MapReduce k-means iteration the centroids are broadcast to every
mapper, and the map function is called once per point. What should it emit?]],
  topics = { "kmeans", "mapreduce" },
  rubric = { "theory.parallel", "practice.design" },
  hints = { "Which mapper knows the nearest centroid of a point? What does the reducer need to compute a mean?" },
  choices = {
    "(id of the nearest centroid, (point, 1))",
    "(centroid id, distance) for each of the k centroids; the reducer picks the minimum",
    "(point id, id of the nearest centroid); a second job computes the means",
    "(cluster id, list of all the cluster's points)",
  },
  answer = 1,
  why = {
    [2] = "The mapper already has all k centroids, so it finds the minimum itself. Shuffling n × k distances multiplies the network traffic by k for nothing.",
    [3] = "That works but needs two jobs per iteration and writes every assignment to disk; one job with (centroid id, (point, 1)) does both steps.",
    [4] = "A map call sees one point, not a cluster. Grouping the points by cluster is exactly what the shuffle does with the key.",
  },
  examples = {
    { "a", 1 },
    { "b", 0 },
    { "d", 0 },
    { "e", "invalid" },
  },
}

question {
  id = "mapreduce.shuffle-factor",
  kind = "numeric",
  title = "What the combiner saves (your numbers)",
  prompt = [[
A k-means iteration in MapReduce has {nm} million points, {p} mappers
(each with an equal share) and k = {k} clusters. Without a combiner every
point is shuffled as one record; with a combiner every mapper sends one
record per cluster. By what factor does the combiner cut the number of
shuffled records?
Give three significant figures.]],
  topics = { "kmeans", "combiner", "communication" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "The combiner turns each mapper's points into one record per cluster.",
    "Without: n records. With: each of the p mappers sends k records.",
    "The factor is n / (p × k).",
  },
  params = function(rng)
    -- Not when p × k (a common mistake) is the factor itself.
    local p
    repeat
      p = { nm = rng:pick({ 10, 50, 100, 200, 500 }), p = rng:pick({ 20, 50, 100, 200, 400 }),
            k = rng:pick({ 5, 10, 20, 50 }) }
    until (p.p * p.k) ^ 2 ~= p.nm * 1e6
    return p
  end,
  answer = function(p) return p.nm * 1e6 / (p.p * p.k) end,
  wrong = {
    { value = function(p) return p.nm * 1e6 / p.p end,
      feedback = "That is n / p, the points per mapper. Each mapper still sends k records, one per cluster." },
    { value = function(p) return p.nm * 1e6 / p.k end,
      feedback = "That is n / k: it counts the k records once, but EVERY mapper sends k of them (p × k in total)." },
    { value = function(p) return p.p * p.k end,
      feedback = "p × k is the number of records WITH the combiner; the factor is n divided by it." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("%d*10^6/(%d*%d)", p.nm, p.p, p.k) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.2) end, score = 0 },
    { "1e999", "invalid" },
    -- The course's numbers: n = 100 M, p = 100, k = 10.
    { params = { nm = 100, p = 100, k = 10 }, answer = "1e5", score = 1 },
    { params = { nm = 100, p = 100, k = 10 }, answer = "1e6", score = 0 },
  },
}

------------------------------------------------------------------------------
page [[
# The speedup of distributed k-means

The course asks: *what is the approximate speedup of k-means with MapReduce
for n = 100 million points, k = 10 clusters and p = 100 processors?*

Count the work of one iteration in distance computations (each one d terms;
d cancels out):

| part                    | sequential | each of p = 100 workers   |
|-------------------------|------------|---------------------------|
| assign (map)            | n·k = 10^9 | n·k / p = 10^7            |
| partial sums (combiner) | n = 10^8   | n / p = 10^6              |
| merge (reduce)          | none       | p = 100 sums per cluster  |

The workers run at the same time, and the k clusters are merged in parallel
too, by different reducers.

```
            T(1)            n·k                 10^9
S(p) = ----------- = -------------------- = ------------- ≈ 99.999 ≈ 100
            T(p)       n·k / p + (merge)     10^7 + 100
```

So the answer is **S ≈ p = 100**, nearly linear, because the parallel part
is enormous next to the work that does not shrink with p: merging p·k partial
sums and broadcasting k centroids. Each worker handles 1 million points and
computes 10 million distances per iteration.

## When it stops being linear

The estimate counts arithmetic only. In a real cluster an iteration also pays
a fixed cost that does not divide by p: starting the job, broadcasting the
centroids, the shuffle, the driver's convergence test. If the sequential
iteration takes T1 and the fixed cost is o:

```
S(p) = T1 / (T1/p + o)          which is Amdahl's law with f = o / T1
```

A 200 s iteration on 100 workers with a 3 s job overhead runs in
2 s + 3 s = 5 s: a speedup of 40, not 100. The remedies are the ones from the
previous page: a combiner, fewer and longer-lived tasks, and keeping the data
in memory between iterations. Skewed partitions (one mapper with far more
points) and stragglers cut the speedup further: every iteration waits for the
slowest mapper.
]]

calculator {
  id = "mapreduce.kmeans-cost",
  title = "Distributed k-means: one iteration",
  inputs = {
    { name = "n_m", label = "points n", unit = "million", default = 100, min = 0.001, max = 1e6 },
    { name = "k", label = "clusters k", default = 10, min = 1, max = 100000, integer = true },
    { name = "d", label = "dimensions d", default = 16, min = 1, max = 100000, integer = true },
    { name = "p", label = "workers p", default = 100, min = 1, max = 1000000, integer = true },
    { name = "gflops", label = "speed of one worker", unit = "GFLOP/s", default = 10, min = 0.001, max = 1e6,
      help = "each distance term (difference, square, add) costs 3 FLOPs" },
    { name = "overhead", label = "fixed cost per iteration", unit = "s", default = 0, min = 0, max = 1e6,
      help = "job start-up, broadcast, shuffle, convergence test: does not shrink with p" },
    { name = "bytes", label = "bytes per number", default = 4, min = 1, max = 8, integer = true },
  },
  compute = function(v)
    local n = v.n_m * 1e6
    local terms = n * v.k * v.d
    local t1 = 3 * terms / (v.gflops * 1e9)
    local tp = t1 / v.p + v.overhead
    local rec = (v.d + 2) * v.bytes   -- key, d coordinates, count
    return {
      { label = "distance terms n*k*d", value = terms },
      { label = "distances per worker n*k/p", value = n * v.k / v.p },
      { label = "assign step on one worker", value = t1, unit = "s" },
      { label = "iteration on p workers (+ overhead)", value = tp, unit = "s" },
      { label = "speedup", value = t1 / tp, unit = "x" },
      { label = "shuffled without a combiner (n records)", value = n * rec, unit = "B" },
      { label = "shuffled with a combiner (p*k records)", value = v.p * v.k * rec, unit = "B" },
      { label = "combiner saving n/(p*k)", value = n / (v.p * v.k), unit = "x" },
    }
  end,
  examples = {
    -- The course's n = 100 M, k = 10, p = 100 (d = 16, 10 GFLOP/s): speedup p.
    { inputs = {}, outputs = { 1.6e10, 1e7, 4.8, 0.048, 100, 7.2e9, 72000, 1e5 } },
    -- The page's overhead example: a 200 s iteration, 3 s fixed, 100 workers -> 40x.
    { inputs = { n_m = 2000 / 0.48, overhead = 3 }, outputs = { 2e12 / 3, 2e12 / 3 / 16 / 100, 200, 5, 40 } },
  },
}

question {
  id = "mapreduce.kmeans-speedup-worked",
  kind = "numeric",
  title = "Distributed k-means speedup (the course's question)",
  prompt = [[
Estimate the speedup of one k-means iteration with MapReduce for
n = 100 million points, k = 10 clusters and p = 100 processors. Count the
distance computations, each point's data on one worker, and assume the map
phase dominates.
Give three significant figures.]],
  unit = "x",
  topics = { "kmeans", "speedup" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Sequential: n × k distance computations. In parallel: each worker does n × k / p.",
    "The merge adds only p partial sums per cluster, tiny next to n·k/p.",
  },
  answer = function() return 1e9 / (1e7 + 100) end,   -- 99.999, "about p"
  -- "Approximately p": 100, 99.999 or 99 all show the idea; 2% covers 98-102.
  tolerance = { rel = 0.02 },
  wrong = {
    { value = 10, feedback = "10 is k, the number of clusters. The speedup comes from splitting the n points over the p workers." },
    { value = 1000, feedback = "p × k = 1000 is the number of partial sums with a combiner, not the speedup; the speedup cannot exceed p = 100." },
    { value = 1e6, feedback = "10^6 is n / p, the points per worker, not a speedup." },
    { value = 1e7, feedback = "10^7 is n·k / p, the distance computations per worker per iteration." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { "100", 1 },
    { "99.99", 1 },
    { "1e9/(1e7+100)", 1 },
    { "95", 0 },            -- 5% off
    { "10", 0 },
    { "1000", 0 },
    { "100 ms", "invalid" },
  },
}

question {
  id = "mapreduce.shuffle-bytes",
  kind = "numeric",
  title = "Bytes shuffled without a combiner (your numbers)",
  prompt = [[
A k-means iteration in MapReduce has {nm} million points of d = {d}
dimensions and no combiner, so the map emits one record per point: a 4-byte
cluster id, the d coordinates as 4-byte floats and a 4-byte count. How many
gigabytes (10^9 bytes) does the shuffle move?
Give three significant figures.]],
  unit = "GB",
  topics = { "kmeans", "combiner", "communication" },
  rubric = { "theory.parallel", "practice.optimization" },
  hints = {
    "Count the bytes of one record, then the records.",
    "One record: 4 + {d} × 4 + 4 bytes.",
    "Times {nm} × 10^6 records.",
  },
  params = function(rng)
    return { nm = rng:pick({ 10, 50, 100, 200, 1000 }), d = rng:pick({ 2, 8, 16, 32, 64 }) }
  end,
  answer = function(p) return p.nm * 1e6 * (p.d + 2) * 4 / 1e9 end,
  wrong = {
    { value = function(p) return p.nm * 1e6 * p.d * 4 / 1e9 end,
      feedback = "That counts only the coordinates; each record also carries its 4-byte cluster id and 4-byte count." },
    { value = function(p) return p.nm * 1e6 * (p.d + 2) / 1e9 end,
      feedback = "That counts numbers, not bytes: each number is 4 bytes." },
    { value = function(p) return p.nm * (p.d + 2) * 4 / 1e9 end,
      feedback = "n is in millions: multiply by 10^6." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1000) .. " MB" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    -- The course's 100 M points, with d = 16: 7.2 GB (the calculator's figure).
    { params = { nm = 100, d = 16 }, answer = "7.2", score = 1 },
    { params = { nm = 100, d = 16 }, answer = "6.4", score = 0 },
    { "7.2 ms", "invalid" },
  },
}

question {
  id = "mapreduce.kmeans-per-worker",
  kind = "numeric",
  title = "Distances per worker (your numbers)",
  prompt = [[
A MapReduce k-means runs on {nm} million points with k = {k} clusters and
{p} equal map workers. How many point-to-centroid distances does EACH
worker compute per iteration?
Give three significant figures.]],
  topics = { "kmeans", "complexity" },
  hints = {
    "Each worker has n / p points.",
    "Each of its points is compared with all k centroids.",
  },
  params = function(rng)
    return { nm = rng:pick({ 10, 20, 50, 100, 500 }), k = rng:pick({ 4, 8, 10, 16, 25 }),
             p = rng:pick({ 10, 20, 40, 100, 250 }) }
  end,
  answer = function(p) return p.nm * 1e6 * p.k / p.p end,
  wrong = {
    { value = function(p) return p.nm * 1e6 / p.p end,
      feedback = "That is the number of points per worker; each point is compared with all k centroids." },
    { value = function(p) return p.nm * 1e6 * p.k end,
      feedback = "That is the total over all workers. Divide by the number of workers p." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "many", "invalid" },
    -- The course's question: 100 M points, k = 10, p = 100 -> 10^7.
    { params = { nm = 100, k = 10, p = 100 }, answer = "1e7", score = 1 },
    { params = { nm = 100, k = 10, p = 100 }, answer = "1e6", score = 0 },
    { params = { nm = 100, k = 10, p = 100 }, answer = "1e9", score = 0 },
  },
}

question {
  id = "mapreduce.kmeans-time",
  kind = "numeric",
  title = "Time of one distributed iteration (your numbers)",
  prompt = [[
k-means with n = {nm} million points, d = {d} dimensions and k = {k}
clusters runs on {p} workers. Each distance term (difference, square, add)
costs 3 floating-point operations, and each worker sustains {gf} GFLOP/s on
this loop. How long does the assign step of one iteration take? Ignore
communication.
Give three significant figures.]],
  unit = "s",
  topics = { "kmeans", "complexity" },
  rubric = { "theory.parallel", "practice.profiling" },
  hints = {
    "Total FLOPs: 3 × n × k × d.",
    "Divide by the combined speed of the workers: p × {gf} × 10^9 FLOP/s.",
  },
  params = function(rng)
    return { nm = rng:pick({ 10, 50, 100, 200 }), d = rng:pick({ 16, 32, 64, 128 }),
             k = rng:pick({ 10, 20, 50, 100 }), p = rng:pick({ 8, 16, 32, 64, 100 }),
             gf = rng:pick({ 5, 10, 20, 50 }) }
  end,
  answer = function(p) return 3 * p.nm * 1e6 * p.k * p.d / (p.p * p.gf * 1e9) end,
  wrong = {
    { value = function(p) return p.nm * 1e6 * p.k * p.d / (p.p * p.gf * 1e9) end,
      feedback = "You counted one FLOP per term; each term is 3 (subtract, multiply, add)." },
    { value = function(p) return 3 * p.nm * 1e6 * p.k * p.d / (p.gf * 1e9) end,
      feedback = "That is the time on ONE worker. The n points are split over p workers." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1000) .. " ms" end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.1) end, score = 0 },
    { "3 GB", "invalid" },
    { params = { nm = 100, d = 16, k = 10, p = 100, gf = 10 }, answer = "0.048", score = 1 },
    { params = { nm = 100, d = 16, k = 10, p = 100, gf = 10 }, answer = "4.8", score = 0 },
  },
}

question {
  id = "mapreduce.kmeans-overhead",
  kind = "numeric",
  title = "Speedup with a fixed per-iteration cost (your numbers)",
  prompt = [[
One k-means iteration takes {t1} s on one machine. On {p} workers the
computation divides evenly, but every iteration also pays {o} s of fixed
overhead (starting the job, broadcasting centroids, shuffle, convergence
check) that does not shrink with p. What speedup per iteration do you get?
Give three significant figures.]],
  unit = "x",
  topics = { "kmeans", "speedup", "amdahl" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "Only the compute divides among the workers; the fixed overhead does not.",
    "Parallel time = {t1}/{p} + {o}.",
    "Speedup = sequential time / parallel time.",
  },
  params = function(rng)
    return { t1 = rng:pick({ 100, 200, 400, 600 }), p = rng:pick({ 10, 20, 50, 100 }),
             o = rng:pick({ 1, 2, 3, 5, 8 }) }
  end,
  answer = function(p) return p.t1 / (p.t1 / p.p + p.o) end,
  wrong = {
    { value = function(p) return p.p end,
      feedback = "That is linear speedup; the fixed overhead does not divide by p." },
    { value = function(p) return p.t1 / p.o end,
      feedback = "That is the limit with infinitely many workers (only the overhead left). With p workers the compute still takes t1/p." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p) return string.format("%d/(%d/%d+%d)", p.t1, p.t1, p.p, p.o) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 0.96) end, score = 0 },
    { "fast", "invalid" },
    -- The page's example: 200 s, 100 workers, 3 s overhead -> 40x.
    { params = { t1 = 200, p = 100, o = 3 }, answer = "40", score = 1 },
    { params = { t1 = 200, p = 100, o = 3 }, answer = "100", score = 0 },
  },
}

question {
  id = "mapreduce.kmeans-design",
  kind = "design",
  title = "Design: k-means on a billion points",
  prompt = [[
You must cluster 1 billion 64-dimensional points (k = 50) every night on a
cluster of 200 machines. In a short paragraph, describe how one iteration
runs (what each phase computes and sends), what limits the speedup, and what
you would do about it.]],
  points = 4,
  topics = { "kmeans", "mapreduce", "combiner" },
  rubric = { "practice.design", "theory.parallel", "practice.optimization" },
  hints = {
    "Start from what every mapper needs to know, and what it must send.",
    "Think about the data that crosses the network, and about what happens 30 times in a row.",
  },
  concepts = {
    { name = "broadcast the centroids",
      claims = {
        { relation = { "broadcast*", "send*", "ship*", "distribut*", "cop*", "push*", "give*",
                       "share*", "replicat*", "load*", "read*", "get*", "receiv*", "hand*" },
          object = { "centroid*", "centers", "centres", "means", "50 x 64", "distributed cache" } },
        { subject = { "centroid*", "centers", "centres" },
          relation = { "broadcast*", "sent", "shipped", "distributed", "copied", "cached", "replicated",
                       "pushed", "go", "goes", "travel*" },
          object = { "mapper*", "worker*", "machine*", "node*", "task*" } },
      },
      feedback = "Say how the mappers get the k centroids: broadcast them (k × d numbers, a few KB) to every mapper each iteration." },
    { name = "assign in the map",
      claims = {
        { relation = { "assign*", "map*", "find*", "pick*", "choos*", "label*", "attach*", "send*",
                       "match*", "compar*", "comput*", "allocat*", "go", "goes", "belong*", "join*" },
          object = { "nearest", "closest", "nearest centroid", "closest centroid", "nearest cent*",
                     "closest cent*", "nearest cluster", "closest cluster" } },
        { subject = { "map", "mapper*", "map phase", "map step" },
          relation = { "assign*", "find*", "comput*", "emit*", "label*", "pick*", "does", "do" },
          object = { "nearest", "closest", "distance*", "cluster id", "centroid id", "label" } },
      },
      feedback = "The map assigns each point to its nearest centroid and emits (centroid id, (point, 1))." },
    { name = "combiner with partial sums", points = 2,
      claims = {
        { relation = { "use*", "add*", "run*", "apply*", "sum*", "combin*", "aggregat*", "pre-aggregat*",
                       "reduc*", "emit*", "send*", "comput*", "keep*", "accumulat*", "collaps*" },
          object = { "combiner*", "partial sum*", "local sum*", "sum and count", "sums and counts",
                     "per cluster", "one record per cluster", "partial", "pre-aggregat*", "locally" } },
        { subject = { "combiner*", "mapper*", "each mapper", "map side" },
          relation = { "sum*", "add*", "aggregat*", "combin*", "collaps*", "reduc*", "send*", "emit*",
                       "turn*", "shrink*", "cut*" },
          object = { "partial", "sum*", "count*", "per cluster", "records", "shuffle", "traffic", "bytes",
                     "points", "one record" } },
        { subject = { "only", "shuffle", "traffic", "records" },
          relation = { "is", "are", "cross*", "shuffled", "sent", "drop*", "shrink*", "fall*", "cut" },
          object = { "200 x 50", "200 50", "p x k", "10000", "10 000", "per cluster", "network",
                     "small", "kb", "few" } },
      },
      contradicts = {
        { match = { "every point is shuffled", "all points are shuffled", "partial sums cannot" },
          feedback = "You had every point cross the network: a combiner adds a mapper's points per cluster first, so only p × k (sum, count) records are shuffled." },
      },
      feedback = "Use a combiner: each mapper sends one (sum, count) per cluster, p × k records instead of n points." },
    { name = "reduce computes the mean",
      claims = {
        { subject = { "reduc*", "reduce step", "reduce phase", "it", "each reducer", "reducer for each" },
          relation = { "divid*", "average*", "comput*", "add*", "sum*", "combin*", "produc*", "output*",
                       "get*", "calculat*", "emit*", "mak*", "form*", "merg*" },
          object = { "mean", "average", "new centroid*", "sum", "count", "centroid*", "center*", "centre*" } },
        { relation = { "divid*", "average*", "comput*", "calculat*" },
          object = { "mean", "average", "new centroid*", "sum by", "by the count", "by count" } },
        { subject = { "reduc*", "each reducer", "reducer for each" },
          relation = { "divid*", "average*" } },
      },
      feedback = "The reducer for cluster j adds the partial sums and counts and divides: the new centroid." },
    { name = "iterate to convergence",
      claims = {
        { relation = { "iterat*", "repeat*", "loop*", "run*", "rerun*", "continu*", "go", "goes", "stop*",
                       "check*", "launch*", "do", "does" },
          object = { "convergence", "converge*", "until", "centroids stop", "stop moving", "no longer move",
                     "again", "next iteration", "each iteration", "iterations", "job per iteration",
                     "whether the centroids", "move*" } },
        { subject = { "driver", "it", "algorithm", "loop", "job" },
          relation = { "repeat*", "iterat*", "loop*", "check*", "stop*", "run*", "launch*", "converge*" } },
        { subject = { "centroid*", "algorithm", "k-means", "it" },
          relation = { "converge*", "stop*", "settle*", "stabili*", "move*" } },
      },
      contradicts = {
        { match = { "one pass is enough", "a single pass is enough", "one iteration is enough" },
          feedback = "You said one pass is enough: k-means repeats assign-and-average until the centroids stop moving, one job per iteration." },
      },
      feedback = "A driver repeats the job until the centroids stop moving (or a maximum number of iterations)." },
    { name = "per-iteration overhead and caching",
      claims = {
        { relation = { "keep*", "cach*", "persist*", "hold*", "stor*", "use*", "switch*", "mov*", "load*" },
          object = { "in memory", "in-memory", "memory", "cache*", "spark", "rdd*", "ram" } },
        { subject = { "overhead", "start-up", "startup", "job start*", "scheduling", "re-reading", "rereading",
                      "speedup", "it", "limit*" },
          relation = { "limit*", "dominat*", "is", "are", "cost*", "add*", "take*", "bound*", "cap*" },
          object = { "overhead", "start-up", "startup", "per iteration", "each iteration", "every iteration",
                     "speedup", "fixed", "rereading", "re-reading", "disk", "hdfs" } },
        { relation = { "limit*", "bound*", "cap*", "dominat*" },
          object = { "overhead", "start-up", "startup", "fixed cost", "re-reading", "rereading" } },
      },
      feedback = "Name the fixed cost per iteration (job start-up, rereading the input) and keep the points cached in memory between iterations (Spark)." },
    { name = "stragglers and skew",
      claims = {
        { subject = { "iteration*", "job", "it", "each iteration", "every iteration", "reduce", "barrier" },
          relation = { "wait*", "depend*", "is", "limit*", "stall*", "hang*" },
          object = { "slowest", "straggler*", "last mapper", "last task", "skew*" } },
        { relation = { "balanc*", "avoid*", "use*", "launch*", "run*", "rely*", "re-run*", "rerun*",
                       "start*", "fix*", "handle*", "mitigat*", "split*", "repartition*", "even*" },
          object = { "straggler*", "skew*", "imbalance*", "speculative", "backup task*", "backup",
                     "partition*", "slowest" } },
        { subject = { "straggler*", "skew*", "imbalance*", "slowest mapper", "slow mapper*", "slow machine*" },
          relation = { "slow*", "delay*", "limit*", "hold*", "stall*", "dominat*", "hurt*", "is", "are" } },
      },
      feedback = "Every iteration waits for the slowest mapper: balance the partitions and use speculative (backup) tasks." },
  },
  model = [[
Each iteration is one MapReduce job. The driver broadcasts the 50 centroids
(50 × 64 numbers) to every mapper. Each of the 200 mappers reads its 5 million
points and assigns each to its nearest centroid, emitting (centroid id,
(point, 1)). A combiner on each mapper sums these into one partial sum and
count per cluster, so only 200 × 50 records are shuffled instead of a billion
points. The reducer for each cluster adds the partial sums and counts and
divides to get the new mean. The driver checks whether the centroids moved
and iterates until convergence. The compute divides almost perfectly, so the
speedup is limited by the fixed overhead of every iteration (job start-up,
rereading the input): I would keep the points cached in memory with Spark.
Every iteration also waits for the slowest mapper, so I would balance the
partitions to avoid skew and rely on speculative backup tasks for stragglers.]],
  -- Graded samples (pack check scores them against these marks).
  samples = {
    { role = "good", score = 1, tol = 0, answer = [[
Each iteration is one MapReduce job. The driver broadcasts the 50 centroids,
a few KB, to every mapper. Each mapper assigns its points to the nearest
centroid and emits the cluster id with the point and a count of 1. A
combiner on each mapper adds these up into one partial sum and count per
cluster, so only 200 x 50 records cross the network instead of a billion
points. The reducer for a cluster adds the partial sums and divides by the
count to get the new mean, and the driver repeats the job until the
centroids converge. The compute scales well, so the speedup is limited by
the fixed start-up cost of each job and by rereading the input; I would keep
the points cached in memory with Spark. Every iteration also waits for the
slowest mapper, so I would balance the partitions and let speculative
execution rerun stragglers.]] },
    { role = "good", score = 1, tol = 0, answer = [[
In the map phase, with the current centroids broadcast to all mappers, each
point goes to its closest centroid. A combiner turns each mapper's output
into partial sums and counts, so the shuffle carries p x k records instead
of n points. In the reduce phase each reducer divides the summed coordinates
by the count to get the cluster's average. The driver iterates until
convergence. What limits the speedup is the overhead of every iteration (job
start-up, reading the data again), which Spark avoids by caching the points,
and the stragglers that every iteration waits for, which backup tasks
handle.]] },
    { role = "partial", score = 2 / 8, tol = 0.2, answer = [[
Each mapper finds the nearest centroid and the reducer computes the mean.]] },
    { role = "partial", score = 3 / 8, tol = 0.2, answer = [[
A combiner sends partial sums and counts per cluster, so much less data is
shuffled. The whole job is repeated until convergence.]] },
    { role = "keywords", score = 0, tol = 0.25, answer = [[
broadcast centroids, nearest centroid, combiner, partial sums, mean, iterate,
convergence, Spark, caching, stragglers, speculative execution]] },
    { role = "reversed", score = 0, tol = 0.25, answer = [[
The centroids never leave the driver: each mapper guesses its own cluster
centres. A combiner is useless here because partial sums cannot be added, so
every point is shuffled to the reducers, and the reducer takes the median,
not the mean. One pass is enough, so there is no need to iterate; the fixed
cost of a job does not matter, and stragglers are not a problem.]] },
  },
  examples = {
    { "Each mapper finds the nearest centroid and the reducer computes the mean.", 2 / 8 },
    { "Use more machines.", 0 },
    { "", "invalid" },
  },
}

------------------------------------------------------------------------------
-- Added with the kmeans lab: the speedup question modelled with compute,
-- shuffle and synchronisation terms, the three parts the lab measures.
page [[
# Speedup with three terms: compute, shuffle, synchronisation

The estimate S ≈ p counted arithmetic only. A model that a measurement can
check splits one iteration on p workers into three terms:

```
T(p) = T_comp / p  +  T_shuffle  +  T_sync
```

- **compute**: the assign step, 3·n·k·d floating-point operations (a
  difference, a square and an addition per term) at F FLOP/s per worker.
  It divides by p.
- **shuffle**: the bytes the mappers send to the reducers, over the
  bandwidth B into them. With a combiner: p·k records of d + 1 numbers (a
  sum per coordinate and a count); without: n records of d + 2 numbers (a
  cluster id, the point, a count). It does not shrink with p; with the
  combiner it even grows with p.
- **synchronisation**: what every iteration pays once, however many
  workers: starting the tasks, broadcasting the centroids, waiting at the
  barrier for the last mapper, the driver's convergence test. Call it s.

The course's question in this model: n = 10^8 points, k = 10, p = 100,
and say d = 16, F = 10 GFLOP/s per worker, 4-byte numbers, B = 10 GB/s
into the reducers and s = 20 ms. On one machine the loop takes
T_comp = 3·10^8·10·16 / 10^10 = 4.8 s, with nothing to shuffle.

| term          | with a combiner         | without                 |
|---------------|-------------------------|-------------------------|
| compute / p   | 4.8 s / 100 = 48 ms     | 48 ms                   |
| shuffle       | 68 kB / B = 0.0068 ms   | 7.2 GB / B = 720 ms     |
| sync          | 20 ms                   | 20 ms                   |
| T(100)        | 68.0 ms                 | 788 ms                  |
| S = 4.8 s / T | 70.6                    | 6.1                     |

So "S ≈ p" holds only while the compute per worker, n·k·d/p terms, is
large next to what does not shrink. With the combiner, synchronisation is
what is left: however many workers, S stays below 4.8 s / 20 ms = 240,
which is Amdahl's law with f = s / T_comp. Without a combiner the shuffle
alone caps S near 4.8 / 0.72 ≈ 6.7, whatever p is.

The `kmeans` lab measures the same split on your machine. Its *map* time
is the part that divides by p (the compute, plus handing out the tasks);
its *shuffle* (the results crossing the sockets) and *reduce* (the
master's merge) are paid once per iteration, whatever p is. The lab's
questions use your own numbers.
]]

question {
  id = "mapreduce.kmeans-three-terms",
  kind = "numeric",
  title = "Speedup with compute, shuffle and sync (your numbers)",
  prompt = [[
k-means runs on n = {nm} million points with d = 16 and k = {k}, on
p = {p} workers of F = 10 GFLOP/s each (3 FLOPs per distance term). A
combiner sends p x k records of d + 1 four-byte numbers per iteration to
the reducers over B = 10 GB/s, and every iteration pays s = {s} ms of
synchronisation. Taking the sequential time as the compute alone, what
speedup does one iteration get on p workers?
Give three significant figures.]],
  unit = "x",
  topics = { "kmeans", "speedup", "combiner" },
  rubric = { "theory.parallel", "advanced.cost" },
  hints = {
    "T_comp = 3 n k d / F; on p workers it is T_comp / p.",
    "T_shuffle = p k (d + 1) 4 bytes / (10^10 bytes/s); S = T_comp / (T_comp/p + T_shuffle + s).",
  },
  -- Every variant keeps s large enough to matter: S stays at least 2%
  -- below p and below the answer without s, so neither slips through.
  params = function(rng)
    return { nm = rng:pick({ 25, 50, 100, 200 }), k = rng:pick({ 10, 20, 50 }),
             p = rng:pick({ 50, 100, 200 }), s = rng:pick({ 20, 50, 100 }) }
  end,
  answer = function(p)
    local tc = 3 * p.nm * 1e6 * p.k * 16 / 1e10
    local sh = p.p * p.k * 17 * 4 / 1e10
    return tc / (tc / p.p + sh + p.s / 1000)
  end,
  tolerance = { rel = 0.02 },
  wrong = {
    { value = function(p) return p.p end,
      feedback = "That is the linear speedup: the synchronisation term does not divide by p." },
    { value = function(p)
        local tc = 3 * p.nm * 1e6 * p.k * 16 / 1e10
        return tc / (tc / p.p + p.p * p.k * 17 * 4 / 1e10)
      end,
      feedback = "You left out the synchronisation term s, paid once per iteration whatever p is." },
    { value = function(p)
        local tc = 3 * p.nm * 1e6 * p.k * 16 / 1e10
        return tc / (tc / p.p + p.nm * 1e6 * 18 * 4 / 1e10 + p.s / 1000)
      end,
      feedback = "That shuffles every point (no combiner); with the combiner only p x k records cross the network." },
  },
  examples = {
    { answer = function(p, ctx) return wb.sig(ctx.reference, 3) end, score = 1 },  -- the rounding rule
    { answer = function(p, ctx) return num(ctx.reference) end, score = 1 },
    { answer = function(p, ctx) return num(ctx.reference * 1.05) end, score = 0 },
    { "fast", "invalid" },
    -- The page's numbers: n = 100 M, k = 10, p = 100, s = 20 ms: 70.6.
    { params = { nm = 100, k = 10, p = 100, s = 20 }, answer = "70.6", score = 1 },
    { params = { nm = 100, k = 10, p = 100, s = 20 }, answer = "100", score = 0 },
    { params = { nm = 100, k = 10, p = 100, s = 20 }, answer = "6.1", score = 0 },
  },
}
