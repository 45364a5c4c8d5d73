-- A course written from lessons/FORMAT.md alone by a new instructor
-- (tests/e2e/test_user_trial.sh): practice, graded homework, a timed exam.
pack {
  id = "u.trial",
  title = "Trial course",
  version = "1.0.0",
  description = [[A small course written from FORMAT.md alone.]],
  lessons = { "basics.lua", "hw.lua", "exam.lua" },
  class = { deadline = "2999-12-31 23:59", late = { per_day = 0.1 } },
}
