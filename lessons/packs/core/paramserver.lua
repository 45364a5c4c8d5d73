-- Parameter servers and distributed SGD (placeholder: being written).
lesson {
  id = "paramserver",
  title = "Parameter servers and distributed SGD",
}

page [[
# Parameter servers and distributed SGD

This lesson is being written.
]]
