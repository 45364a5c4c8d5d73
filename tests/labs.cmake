# The lab framework: parameters, runs and their recording, cancellation,
# process helpers (forks real worker processes; each test takes milliseconds).
wb_add_unit_test(test_labs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_labs.c
                 LIBS wb_labs wb_db wb_core Threads::Threads LABELS labs)
# It checks that a run leaves none of its own shared memory behind (the
# /dev/shm files and System V segments its processes had), whatever else
# the machine keeps there.
