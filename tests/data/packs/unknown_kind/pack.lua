-- Fixture for pack check: unknown question kind. The one problem is in amdahl.lua.
pack { id = "fixture.unknown-kind", title = "Fixture: unknown question kind", version = "1", lessons = { "amdahl.lua" } }
