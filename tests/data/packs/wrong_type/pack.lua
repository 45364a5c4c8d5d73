-- Fixture for pack check: field of the wrong type. The one problem is in amdahl.lua.
pack { id = "fixture.wrong-type", title = "Fixture: field of the wrong type", version = "1", lessons = { "amdahl.lua" } }
