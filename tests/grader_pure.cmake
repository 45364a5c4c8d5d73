# The grader's pure C building blocks (grader_internal.h): numbers and units,
# tolerance and bands, the variant RNG. Their tests compile these files
# directly, so they need neither Lua nor the rest of wb_grader.
set(WB_GRADER_PURE_SOURCES
    ${PROJECT_SOURCE_DIR}/grader/grader_number.c
    ${PROJECT_SOURCE_DIR}/grader/grader_number_lex.c
    ${PROJECT_SOURCE_DIR}/grader/grader_unit.c
    ${PROJECT_SOURCE_DIR}/grader/grader_tol.c
    ${PROJECT_SOURCE_DIR}/grader/grader_rng.c)

foreach(t number tol rng)
  set(skippable "")
  if(t STREQUAL "number")
    set(skippable SKIPPABLE test_decimal_comma_locale) # needs a decimal-comma locale
  endif()
  wb_add_unit_test(test_grader_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_${t}.c ${WB_GRADER_PURE_SOURCES}
    LIBS wb_core m
    LABELS grader ${skippable})
endforeach()
# The reading of design answers (claims, negation, near groups, misspellings).
wb_add_unit_test(test_grader_design
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_design.c
          ${PROJECT_SOURCE_DIR}/grader/grader_design.c
          ${PROJECT_SOURCE_DIR}/grader/grader_design_read.c
          ${PROJECT_SOURCE_DIR}/grader/grader_design_claim.c
          ${PROJECT_SOURCE_DIR}/grader/grader_lg.c
  LIBS wb_core PkgConfig::LINKGRAMMAR Threads::Threads m
  LABELS grader)

# Fuzz target for grader_number_parse (and the formatting and tolerance
# text it feeds): see tests/fuzz.cmake.
wb_add_fuzz(number SOURCES ${WB_GRADER_PURE_SOURCES} LIBS wb_core m)
