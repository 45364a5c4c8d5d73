# End-to-end tests: shell scripts that run the real binary against a
# temporary store. Each gets WB (the binary), WB_SOURCE_DIR and WB_TEST_TMP.
# Exit 77 is "skipped" (a test that needs root or a tool this machine lacks
# says why on stdout).
file(GLOB e2e_scripts CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_*.sh)
# Under the sanitizers every process runs several times slower (the MPI test
# starts a dozen): the same tests, a longer limit. Both are backstops for a
# stall, not speed checks: on a 2-core machine at load 20 a test may take
# several times its usual time and still pass.
set(e2e_timeout 600)
if(WB_SANITIZE)
  set(e2e_timeout 1500)
endif()
foreach(script IN LISTS e2e_scripts)
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME e2e_${name} COMMAND bash ${script})
  set(labels "e2e")
  if(name MATCHES "mpi|netlab")
    set(labels "e2e;mpi") # needs Open MPI: skipped (77) without it
  endif()
  set_tests_properties(e2e_${name} PROPERTIES LABELS "${labels}" TIMEOUT ${e2e_timeout} SKIP_RETURN_CODE 77
    ENVIRONMENT "WB=$<TARGET_FILE:warpbench>;WB_SOURCE_DIR=${PROJECT_SOURCE_DIR};WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")
  # (The lab tests check that a run leaves none of its own shared memory
  # behind, the segments its processes had: lib.sh's shm_watch. What other
  # programs, Open MPI's jobs among them, keep in /dev/shm is not theirs.)
endforeach()
