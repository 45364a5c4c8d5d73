# The store: unit tests against temporary SQLite files. test_db also opens
# the files with a raw SQLite handle, to prove what the schema itself refuses
# (UPDATE/DELETE of attempts) and to build files at earlier schema versions.
wb_add_unit_test(test_db SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_db.c LIBS wb_db wb_core)
target_link_libraries(test_db PRIVATE PkgConfig::SQLITE3)
