-- pack.lua: every pack folder has exactly one of these. It names the pack and
-- lists its lesson files in teaching order. Like every file of a pack it runs
-- in the grader sandbox: no io, os, require; only string, table, math, utf8,
-- the safe base functions and the `wb` library.
--
-- Check this pack with:   warpbench pack check lessons/examples/minimal
-- Import it with:         warpbench pack import lessons/examples/minimal

pack {
  -- Required. Lower-case letters, digits and . _ -; unique among all packs.
  -- A dotted prefix (your course or institution) keeps ids from colliding.
  id = "example.minimal",

  -- Required. Shown in the pack list.
  title = "A minimal example pack",

  -- Required. Any string. Raise it whenever the content changes: importing a
  -- new version replaces the lessons, while attempts already recorded keep
  -- pointing at the version they were graded with.
  version = "1.0.0",

  -- Optional. Shown under the title.
  description = [[
One short lesson on speedup that uses every construct of the pack format
once. Copy it as the starting point for your own pack.]],

  -- Required. Lesson files, relative to this folder, in teaching order.
  lessons = { "speedup.lua", "quiz.lua" },

  -- Optional. The attempt policy of every question of the pack, unless a
  -- lesson or a question says otherwise, field by field. What it leaves
  -- out comes from each kind's default (FORMAT.md "Attempt policy"): here
  -- every question allows 4 tries, and what a wrong try costs stays the
  -- kind's default (a tenth of the points for numeric answers; all of them
  -- for choice questions, so that guessing through the options is worth no
  -- more than one guess). The exam lesson quiz.lua allows one try anyway.
  policy = { tries = 4 },
}

-- Optional: the pack's formula sheet (`warpbench formulas`, F in the terminal
-- UI). Each entry is a formula with what its symbols mean, the lesson page
-- that teaches it (page: a number from 1, or the page's title) and the
-- calculator that computes it (a calculator id of this pack). In a lesson
-- file an entry's lesson and page default to where formulas { } stands.
formulas {
  { id = "amdahl", name = "Amdahl's law",
    formula = "S(p) = 1 / (f + (1 - f)/p)",
    symbols = "f: serial fraction; p: processors",
    lesson = "speedup", page = 1, calculator = "speedup.amdahl" },
}
