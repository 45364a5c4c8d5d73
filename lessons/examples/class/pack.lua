-- pack.lua of a graded course: the source an instructor keeps. Students get
-- its release (warpbench pack release lessons/examples/class DIR), in which
-- the graded lesson (homework.lua) and the exam (exam.lua) are sealed: their
-- questions keep the prompt and the numbers, and lose everything that grades.
-- The practice lesson stays whole: it is graded at once, for learning.
--
-- Check it with:      warpbench pack check lessons/examples/class
-- Make a release:     warpbench pack release lessons/examples/class release/
-- (release proves it as it is made; prove a folder again with
--                     warpbench pack check --release release/)

pack {
  id = "example.class",
  title = "Scaling: a graded unit",
  version = "1.0.0",
  description = [[A practice lesson, a graded homework and a timed exam on
speedup and parallel efficiency: the complete example of a graded course.]],
  lessons = { "practice.lua", "homework.lua", "exam.lua" },

  -- The class's deadline for the graded work (UTC unless an offset is given)
  -- and what a late answer earns: a tenth of its points less per day late.
  -- `warpbench class import --deadline TIME` overrides the deadline.
  class = { deadline = "2030-06-30 23:59", late = { per_day = 0.1 } },
}
