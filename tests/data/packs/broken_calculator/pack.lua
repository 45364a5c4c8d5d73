-- Fixture for pack check: a calculator whose compute divides by zero for its
-- default inputs. The one problem is in amdahl.lua.
pack { id = "fixture.broken-calculator", title = "Fixture: broken calculator", version = "1", lessons = { "amdahl.lua" } }
