-- Fixture for pack check: Lua syntax error. The one problem is in amdahl.lua.
pack { id = "fixture.syntax-error", title = "Fixture: Lua syntax error", version = "1", lessons = { "amdahl.lua" } }
