-- A small pack with certainty-based marking, for the end-to-end tests:
-- every answer carries the student's certainty 1..3, and progress shows the
-- CBM mark beside the plain score. Answers are fixed so the tests can
-- assert exact marks.
pack {
  id = "test.cbm",
  title = "Certainty-based marking test pack",
  version = "1.0.0",
  cbm = true,
  lessons = { "cbm.lua" },
}
