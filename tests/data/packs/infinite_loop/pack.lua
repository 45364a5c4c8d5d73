-- Fixture for pack check: params function that never returns. The one problem is in amdahl.lua.
pack { id = "fixture.infinite-loop", title = "Fixture: params function that never returns", version = "1", lessons = { "amdahl.lua" } }
