-- A pack with questions linked to the framework's `selftest` lab, for the
-- end-to-end test of lab-linked grading (tests/e2e/test_lab.sh).
pack {
  id = "test.labfw",
  title = "Lab-linked questions for the tests",
  version = "1.0.0",
  lessons = { "selftest.lua" },
  -- Its own rubric item beside the course's: pack check accepts the
  -- questions tagged with it.
  rubric = { "practice.measure" },
}
