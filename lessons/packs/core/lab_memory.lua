-- Lab: locality on your CPU (placeholder: being written).
lesson {
  id = "lab-memory",
  title = "Lab: locality on your CPU",
}

page [[
# Lab: locality on your CPU

This lesson is being written.
]]
