-- A small pack the end-to-end tests rely on. Its answers are fixed so the
-- tests can assert exact scores.
pack {
  id = "test.e2e",
  title = "End-to-end test pack",
  version = "1.0.0",
  lessons = { "basics.lua" },
}
