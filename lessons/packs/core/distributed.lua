-- Distributed training and memory (placeholder: being written).
lesson {
  id = "distributed",
  title = "Distributed training and memory",
}

page [[
# Distributed training and memory

This lesson is being written.
]]
