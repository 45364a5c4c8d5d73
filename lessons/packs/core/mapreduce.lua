-- MapReduce and k-means (placeholder: being written).
lesson {
  id = "mapreduce",
  title = "MapReduce and k-means",
}

page [[
# MapReduce and k-means

This lesson is being written.
]]
