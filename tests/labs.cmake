# The lab framework: parameters, runs and their recording, cancellation,
# process helpers (forks real worker processes; each test takes milliseconds).
wb_add_unit_test(test_labs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_labs.c
                 LIBS wb_labs wb_db wb_core Threads::Threads LABELS labs)
# It checks that nothing is left in /dev/shm: no other test that puts entries
# there (Open MPI's shared-memory transport does) may run beside it.
set_tests_properties(test_labs PROPERTIES RESOURCE_LOCK dev_shm)
