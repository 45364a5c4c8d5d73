# The programming labs' harness (labs/code/): score, roofline bound, sizes'
# arithmetic, spec checks (pure), and the ELF check on objects the system
# compiler builds. The sandbox itself runs in the end-to-end tests
# (tests/e2e/test_code_*.sh), through the real binary.
wb_add_unit_test(test_lab_code SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_code.c
                 LIBS wb_labs wb_db wb_core Threads::Threads m LABELS labs SKIPPABLE test_elf)
