-- Fixture for pack check: misspelled field. The one problem is in amdahl.lua.
pack { id = "fixture.unknown-field", title = "Fixture: misspelled field", version = "1", lessons = { "amdahl.lua" } }
