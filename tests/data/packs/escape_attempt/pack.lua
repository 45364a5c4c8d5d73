-- Fixture for pack check: lesson file that tries to read a file. The one problem is in amdahl.lua.
pack { id = "fixture.escape-attempt", title = "Fixture: lesson file that tries to read a file", version = "1", lessons = { "amdahl.lua" } }
