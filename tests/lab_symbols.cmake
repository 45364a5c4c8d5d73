# The labs library's shape: every exported symbol carries its folder's
# prefix (nm over the library; a planted offender of each kind is caught),
# and the lab authors' header is out of the front ends' reach (a planted
# include of it, compiled as cli/ and tui/ are, fails to build).
add_test(NAME lab_symbols COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_lab_symbols_test.sh)
set_tests_properties(lab_symbols PROPERTIES LABELS "unit;labs"
  ENVIRONMENT "WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp;WB_SOURCE_DIR=${PROJECT_SOURCE_DIR};WB_LABS_ARCHIVE=$<TARGET_FILE:wb_labs>;WB_CC=${CMAKE_C_COMPILER}")

add_library(planted_front_author OBJECT EXCLUDE_FROM_ALL
            ${CMAKE_CURRENT_SOURCE_DIR}/planted/front_includes_lab_author.c)
target_link_libraries(planted_front_author PRIVATE wb_labs) # as cli/ and tui/ link it
add_library(planted_lab_author OBJECT EXCLUDE_FROM_ALL
            ${CMAKE_CURRENT_SOURCE_DIR}/planted/front_includes_lab_author.c)
target_link_libraries(planted_lab_author PRIVATE wb_labs)
# labs/'s own include path: its private headers (cmake/headers.cmake)
target_include_directories(planted_lab_author PRIVATE $<TARGET_PROPERTY:wb_labs,INCLUDE_DIRECTORIES>)
target_compile_definitions(planted_lab_author PRIVATE WB_LAB_AUTHOR) # as labs/ compiles
add_test(NAME lab_author_private COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_lab_author_test.sh)
# (builds in the build tree: one such test at a time, as build_layers)
set_tests_properties(lab_author_private PROPERTIES LABELS "unit;labs" RESOURCE_LOCK build_tree
  ENVIRONMENT "WB_BINARY_DIR=${CMAKE_BINARY_DIR}")
