-- Parallelism types and memory models (placeholder: being written).
lesson {
  id = "parallelism",
  title = "Parallelism types and memory models",
}

page [[
# Parallelism types and memory models

This lesson is being written.
]]
