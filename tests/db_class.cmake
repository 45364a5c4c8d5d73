# The files of the class loop (submissions, class store, feedback files) and
# the reviews of schema 6, against real SQLite files; a raw SQLite handle
# edits files the way a student could, to prove each edit is refused.
wb_add_unit_test(test_db_class SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_db_class.c
                 LIBS wb_db wb_core)
target_link_libraries(test_db_class PRIVATE PkgConfig::SQLITE3)
