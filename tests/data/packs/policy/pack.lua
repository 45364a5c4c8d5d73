-- Attempt policies and exam mode, for the end-to-end tests: the kinds'
-- defaults, a pack-wide override, lesson and question overrides, a points
-- list per try, an untimed exam and a timed one.
pack {
  id = "test.policy",
  title = "Attempt policy test pack",
  version = "1.0.0",
  lessons = { "basics.lua", "quiz.lua", "timed.lua" },
}
