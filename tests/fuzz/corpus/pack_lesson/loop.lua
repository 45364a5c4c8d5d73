lesson { id = "l", title = "L" }
while true do end
