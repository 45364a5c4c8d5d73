# The grader's pure C building blocks (grader/pure/, grader_pure.h): numbers
# and units, tolerance and bands, the variant RNG, design answers. Their
# tests link that layer alone, so they need neither Lua nor the rest of the
# grader.
foreach(t number tol rng)
  set(skippable "")
  if(t STREQUAL "number")
    set(skippable SKIPPABLE test_decimal_comma_locale) # needs a decimal-comma locale
  endif()
  wb_add_unit_test(test_grader_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_${t}.c
    LIBS wb_grader_pure wb_core m
    LABELS grader ${skippable})
endforeach()
# The reading of design answers (claims, negation, near groups, misspellings).
wb_add_unit_test(test_grader_design
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_design.c
  LIBS wb_grader_pure wb_core m
  LABELS grader)

# Fuzz target for grader_number_parse (and the formatting and tolerance
# text it feeds): see tests/fuzz.cmake.
wb_add_fuzz(number LIBS wb_grader_pure wb_core m)
