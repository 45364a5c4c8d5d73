# The Lua side of the grader: sandbox (escapes, limits, isolation, reuse), pack
# evaluation and validation, grading of every question kind, self-tests.
foreach(t sandbox pack grade reuse)
  set(skippable "")
  if(t STREQUAL "pack")
    set(skippable SKIPPABLE test_builtin_pack) # needs WB_SOURCE_DIR
  endif()
  wb_add_unit_test(test_grader_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_${t}.c
    LIBS wb_grader wb_core
    LABELS grader ${skippable})
endforeach()
