# The flat JSON reader (core_json_parse_flat) the store's lab records are read with.
wb_add_unit_test(test_core_json SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_core_json.c LIBS wb_core)
