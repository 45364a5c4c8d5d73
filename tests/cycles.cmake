# No cycle among the files of a module (includes and calls): the libraries'
# objects, listed here at generate time, are what scripts/check-cycles.sh
# reads; its test also plants a cycle of calls and one of includes and sees
# each reported.
set(cycle_list "")
foreach(entry core:wb_core db:wb_db grader:wb_grader_pure grader:wb_grader_runtime
              grader:wb_grader kernels:wb_kernels lessons:wb_lessons labs:wb_labs tui:wb_tui
              cli:warpbench)
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 module)
  list(GET parts 1 target)
  string(APPEND cycle_list
         "${module} ${module} $<JOIN:$<TARGET_OBJECTS:${target}>, >\n")
endforeach()
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cycles-objects.txt CONTENT "${cycle_list}")
add_test(NAME cycles COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_cycles_test.sh)
set_tests_properties(cycles PROPERTIES LABELS "unit"
  ENVIRONMENT "WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp;WB_SOURCE_DIR=${PROJECT_SOURCE_DIR};WB_CYCLES_LIST=${CMAKE_BINARY_DIR}/cycles-objects.txt;WB_CC=${CMAKE_C_COMPILER}")
