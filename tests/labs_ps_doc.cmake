# The parameter-server lab against its documented model: an independent
# rebuild from the lesson's and README's description (the data, the model,
# the sync update) matches the lab's logged loss for the first 20 steps and
# its final weights. Forks the lab's real processes; under a second.
wb_add_unit_test(test_lab_ps_doc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_ps_doc.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs)
