# wb_embed(OUT_C SYMBOL BASE_DIR FILES...)
# Generates OUT_C defining `const struct core_embedded SYMBOL[]`, one entry per
# file (path relative to BASE_DIR), ending with a NULL path. Regenerated when
# any file changes.
set(WB_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_run.cmake)
function(wb_embed out_c symbol base_dir)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} -DSYMBOL=${symbol} -DBASE=${base_dir}
            "-DFILES=${files}" -P ${WB_EMBED_SCRIPT}
    DEPENDS ${files} ${WB_EMBED_SCRIPT}
    COMMENT "Embedding ${symbol}"
    VERBATIM)
endfunction()
