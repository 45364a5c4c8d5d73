-- Fixture for pack check: params function that exhausts memory. The one problem is in amdahl.lua.
pack { id = "fixture.memory-bomb", title = "Fixture: params function that exhausts memory", version = "1", lessons = { "amdahl.lua" } }
