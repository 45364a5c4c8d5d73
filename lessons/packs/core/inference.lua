-- Inference and compression (placeholder: being written).
lesson {
  id = "inference",
  title = "Inference and compression",
}

page [[
# Inference and compression

This lesson is being written.
]]
