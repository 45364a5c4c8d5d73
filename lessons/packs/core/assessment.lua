-- The assessment (placeholder: being written).
lesson {
  id = "assessment",
  title = "The assessment",
}

page [[
# The assessment

This lesson is being written.
]]
