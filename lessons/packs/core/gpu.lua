-- GPU architecture and memory coalescing (placeholder: being written).
lesson {
  id = "gpu",
  title = "GPU architecture and memory coalescing",
}

page [[
# GPU architecture and memory coalescing

This lesson is being written.
]]
