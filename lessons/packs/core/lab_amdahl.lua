-- Lab: Amdahl speedup on your machine (placeholder: being written).
lesson {
  id = "lab-amdahl",
  title = "Lab: Amdahl speedup on your machine",
}

page [[
# Lab: Amdahl speedup on your machine

This lesson is being written.
]]
