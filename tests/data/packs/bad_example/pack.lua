-- Fixture for pack check: example with a wrong expected score. The one problem is in amdahl.lua.
pack { id = "fixture.bad-example", title = "Fixture: example with a wrong expected score", version = "1", lessons = { "amdahl.lua" } }
