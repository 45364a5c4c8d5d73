# Fuzz targets of the parsers that read what users and instructors write
# (wb_add_fuzz: tests/CMakeLists.txt). grader_pure.cmake adds "number".
wb_add_fuzz(json LIBS wb_core m)
wb_add_fuzz(kmeans_csv LIBS wb_labs wb_core m)
wb_add_fuzz(pack_lesson LIBS wb_grader wb_core)
wb_add_fuzz(answers LIBS wb_lessons wb_grader wb_db wb_core m
            DEFINITIONS FUZZ_PACK_DIR="${PROJECT_SOURCE_DIR}/lessons/examples/minimal")
# Submission and feedback files (whole SQLite files): corpus/files is made by
# make_files_corpus.sh from real submit and class feedback output.
wb_add_fuzz(files LIBS wb_labs wb_db wb_core m)
set_tests_properties(fuzz_files PROPERTIES ENVIRONMENT "WB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")
