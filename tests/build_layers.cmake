# The build enforces the layering (cmake/headers.cmake, grader/CMakeLists.txt):
# files planted in tests/planted/, each compiled as its module compiles (its
# include path, what it links), must fail to build when they include a
# module above their own, another module's private header or a grader layer
# above their own, or call into a grader layer above their own; the control
# must build. Built only by tests/check_build_layers_test.sh.
function(wb_planted name source module)
  cmake_parse_arguments(P "" "" "LIBS" ${ARGN})
  add_library(planted_${name} OBJECT EXCLUDE_FROM_ALL ${CMAKE_CURRENT_SOURCE_DIR}/planted/${source})
  target_include_directories(planted_${name} PRIVATE $<TARGET_PROPERTY:${module},INCLUDE_DIRECTORIES>)
  target_link_libraries(planted_${name} PRIVATE ${P_LIBS})
endfunction()
wb_planted(db_up db_includes_lessons.c wb_db LIBS wb_core PkgConfig::SQLITE3)
wb_planted(db_fine db_includes_core.c wb_db LIBS wb_core PkgConfig::SQLITE3)
wb_planted(lessons_inner lessons_includes_db_internal.c wb_lessons LIBS wb_core wb_db wb_grader)
wb_planted(pure_up grader_pure_includes_runtime.c wb_grader_pure LIBS wb_core)
wb_planted(runtime_up grader_runtime_includes_grading.c wb_grader_runtime
           LIBS wb_grader_pure wb_grader_api PkgConfig::LUA)
# the pure layer linked alone with one more file, which calls the runtime
add_executable(planted_pure_calls_up EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/cmake/alone_main.c
               ${CMAKE_CURRENT_SOURCE_DIR}/planted/grader_pure_calls_runtime.c)
target_link_libraries(planted_pure_calls_up PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,wb_grader_pure>")

add_test(NAME build_layers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_build_layers_test.sh)
# (builds in the build tree: one such test at a time, as lab_author_private)
set_tests_properties(build_layers PROPERTIES LABELS "unit" RESOURCE_LOCK build_tree
  ENVIRONMENT "WB_BINARY_DIR=${CMAKE_BINARY_DIR}")
