-- Fixture: line 4 tries to read a file at load time. The sandbox has no `io`,
-- so loading fails there.
lesson { id = "amdahl", title = "Amdahl" }
local secret = io.open("/etc/passwd"):read("a")

question { id = "speedup", kind = "numeric", prompt = "Speedup for f = 0.2 on 4 processors?", answer = 2.5 }
