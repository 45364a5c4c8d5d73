# The parameter-server lab: spec parsing, the model's gradient, and whole
# runs through lab_run() at tiny sizes with the link off (sync against a
# single-process reference, the SSP bound from the workers' clocks, killed
# workers and shards, recovery from a checkpoint, divergence, cancel).
# Forks real shard and worker processes; a few seconds in all.
wb_add_unit_test(test_lab_ps SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_ps.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs)
