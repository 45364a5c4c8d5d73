-- Fixture for pack check: the pack call on line 3 lists nosuch.lua, which
-- does not exist.
pack {
  id = "fixture.missing-lesson-file",
  title = "Fixture: missing lesson file",
  version = "1",
  lessons = { "amdahl.lua", "nosuch.lua" },
}
