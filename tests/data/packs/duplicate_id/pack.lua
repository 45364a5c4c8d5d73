-- Fixture for pack check: duplicate question id. The one problem is in amdahl.lua.
pack { id = "fixture.duplicate-id", title = "Fixture: duplicate question id", version = "1", lessons = { "amdahl.lua" } }
