# cmake -DCMD=deepgemm -DSRC=<source dir> -DSPEC=x.dgml [-DMODEL=x.json] -DFETCH=0|1 -DWORK=dir -P lint_epi.cmake
# A design with a fused epilogue: the core instantiates dg_epilogue, and dg_epi_fetch exactly when
# the epilogue has operands to read (FETCH), with their registers in the register header; the
# design is lint-clean under verilator -Wall, with the protocol checkers bound too.
include(${CMAKE_CURRENT_LIST_DIR}/emit_design.cmake)  # sets top and files
file(READ ${WORK}/v/${top}_core.v text)
file(READ ${WORK}/v/${top}_regs.h header)
if(NOT text MATCHES "  dg_epilogue #\\(")
  message(FATAL_ERROR "${top}_core.v does not instantiate dg_epilogue")
endif()
if(FETCH)
  if(NOT text MATCHES "  dg_epi_fetch #\\(" OR NOT EXISTS ${WORK}/v/dg_epi_fetch.v)
    message(FATAL_ERROR "${top}_core.v does not read the epilogue's operands (dg_epi_fetch)")
  endif()
  if(NOT header MATCHES "_BASE_HI_OFFSET 0x0(40|48)u")
    message(FATAL_ERROR "${top}_regs.h lacks the epilogue operands' registers")
  endif()
else()
  if(text MATCHES "dg_epi_fetch" OR EXISTS ${WORK}/v/dg_epi_fetch.v OR header MATCHES "BIAS_BASE|RQ_BASE")
    message(FATAL_ERROR "${top}: an epilogue without operands reads some (dg_epi_fetch, BIAS_BASE or RQ_BASE)")
  endif()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/verilator_lint.cmake)
dg_verilator_lint(FILES ${files} LINTS "--top-module,${top}" "--top-module,${top},-DDG_AXI4_CHECK")
