-- A small pack for the end-to-end test of the class loop
-- (tests/e2e/test_class.sh): fixed answers, a planted common mistake, a
-- choice question without feedback for its wrong options, a design
-- question with a rubric, and a question graded against a run of the
-- framework's `selftest` lab.
pack {
  id = "test.class",
  title = "Class loop test pack",
  version = "1.0.0",
  lessons = { "speedup.lua", "lab.lua" },
  -- Its own rubric item beside the course's (the lab question uses it).
  rubric = { "practice.measure" },
}
