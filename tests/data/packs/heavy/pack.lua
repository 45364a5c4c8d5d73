-- Graders that work hard, for the test that grading gives the same result
-- on a busy machine (tests/e2e/test_grading_load.sh). Each works only when
-- the answer asks for it, so pack check stays quick.
pack {
  id = "test.heavy",
  title = "Heavy graders",
  version = "1",
  lessons = { "heavy.lua" },
}
