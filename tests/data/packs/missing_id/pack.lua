-- Fixture for pack check: question without id. The one problem is in amdahl.lua.
pack { id = "fixture.missing-id", title = "Fixture: question without id", version = "1", lessons = { "amdahl.lua" } }
