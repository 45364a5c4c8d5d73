-- A pack with small `code` exercises for the tests of the programming labs'
-- harness (tests/e2e/test_code_exploits.sh, test_code_class.sh): quick to
-- run, so every known trick can be tried against them.
pack {
  id = "test.code",
  title = "Small programming exercises for the tests",
  version = "1.0.0",
  lessons = { "xp.lua" },
  rubric = { "practice.measure" },
}
