# The grader's pure C building blocks (grader_internal.h): numbers and units,
# tolerance and bands, the variant RNG. Their tests compile these three files
# directly, so they need neither Lua nor the rest of wb_grader.
set(WB_GRADER_PURE_SOURCES
    ${PROJECT_SOURCE_DIR}/grader/grader_number.c
    ${PROJECT_SOURCE_DIR}/grader/grader_tol.c
    ${PROJECT_SOURCE_DIR}/grader/grader_rng.c)

foreach(t number tol rng)
  wb_add_unit_test(test_grader_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_${t}.c ${WB_GRADER_PURE_SOURCES}
    LIBS wb_core m
    LABELS grader)
endforeach()
# The reading of design answers (claims, negation, near groups, misspellings).
wb_add_unit_test(test_grader_design
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_grader_design.c
          ${PROJECT_SOURCE_DIR}/grader/grader_design.c
  LIBS wb_core m
  LABELS grader)

# libFuzzer target for grader_number_parse (and the formatting and tolerance
# text it feeds). Clang only, not a ctest. Run it by hand:
#   build/tests/fuzz_number -max_len=300 -max_total_time=60
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
  check_c_source_compiles([[
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
  ]] WB_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(WB_HAVE_LIBFUZZER)
    add_executable(fuzz_number ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_number.c
                   ${WB_GRADER_PURE_SOURCES})
    target_include_directories(fuzz_number PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_options(fuzz_number PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(fuzz_number PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_number PRIVATE wb_core m)
  endif()
endif()
