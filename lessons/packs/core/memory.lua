-- Memory hierarchy and locality (placeholder: being written).
lesson {
  id = "memory",
  title = "Memory hierarchy and locality",
}

page [[
# Memory hierarchy and locality

This lesson is being written.
]]
