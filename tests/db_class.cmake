# The files of the class loop (submissions, class store, feedback files) and
# the reviews of schema 6, against real SQLite files; a raw SQLite handle
# edits files the way a student could, to prove each edit is refused.
wb_add_unit_test(test_db_class SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_db_class.c
                 LIBS wb_db wb_core)
target_link_libraries(test_db_class PRIVATE PkgConfig::SQLITE3)
# Files from someone else (db_foreign.c): the schema compared text for
# text, the row readers NULL-safe and bounded, the progress budget, the
# length limit; built from files the store writes, edited as a student could.
wb_add_unit_test(test_db_foreign SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_db_foreign.c
                 LIBS wb_db wb_core)
target_link_libraries(test_db_foreign PRIVATE PkgConfig::SQLITE3)
