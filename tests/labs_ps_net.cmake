# The parameter-server lab's communication layer: framing, the local
# transport, the emulated link, compression and ring all-reduce, over real
# socketpairs between real forked processes (about 3 s: the link-rate checks
# send 8 MB at 100 Mbps twice).
wb_add_unit_test(test_lab_ps_net SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_ps_net.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs)
