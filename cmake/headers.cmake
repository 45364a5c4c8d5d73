# wb_headers(TARGET [PUBLIC|INTERFACE headers...] [PRIVATE headers...])
# Makes each header (a path from the project root: db/db.h) reachable as
# #include "db/db.h" to TARGET (PRIVATE), to TARGET and what links it
# (PUBLIC), or to what links it (INTERFACE) — and nothing else of the source
# tree. No module sees the project root: each header gets a one-line stand-in
# in a folder of the build tree (build/include/TARGET.SCOPE/db/db.h) that
# includes the real file by its absolute path, so messages and debuggers name
# the real file. An include of a module the target does not link, or of
# another module's private header, fails to compile: the layering of
# docs/ARCHITECTURE.md, enforced by the build (scripts/check-layering.sh says
# why in words). A file's own folder stays reachable as C has it
# (#include "grader_pure.h" from grader/pure/).
function(wb_headers target)
  cmake_parse_arguments(H "" "" "PUBLIC;INTERFACE;PRIVATE" ${ARGN})
  foreach(scope PUBLIC INTERFACE PRIVATE)
    if(NOT H_${scope})
      continue()
    endif()
    string(TOLOWER "${target}.${scope}" leaf)
    set(dir ${PROJECT_BINARY_DIR}/include/${leaf})
    set(want "")
    foreach(h IN LISTS H_${scope})
      if(IS_ABSOLUTE "${h}")
        set(real ${h})
        file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${h})
      else()
        set(real ${PROJECT_SOURCE_DIR}/${h})
        set(rel ${h})
      endif()
      list(APPEND want ${dir}/${rel})
      file(CONFIGURE OUTPUT ${dir}/${rel}
           CONTENT "#include \"${real}\" /* stand-in made by cmake/headers.cmake */\n")
    endforeach()
    # a header that left the list (renamed, or no longer public) goes too
    file(GLOB_RECURSE have ${dir}/*.h)
    foreach(f IN LISTS have)
      if(NOT f IN_LIST want)
        file(REMOVE ${f})
      endif()
    endforeach()
    target_include_directories(${target} ${scope} ${dir})
  endforeach()
endfunction()

# wb_module_headers(TARGET DIR PUBLIC headers...)
# The usual case: TARGET's public headers (paths from the project root) for
# it and what links it, and every header under DIR (its folder, recursively)
# for its own files only.
function(wb_module_headers target dir)
  cmake_parse_arguments(M "" "" "PUBLIC" ${ARGN})
  file(GLOB_RECURSE own CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  wb_headers(${target} PUBLIC ${M_PUBLIC} PRIVATE ${own})
endfunction()
