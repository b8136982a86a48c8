# cmake -DCMD=deepgemm -DSRC=<source dir> -DSPEC=x.dgml [-DMODEL=x.json] -DWORK=dir -P lint_ws.cmake
# A weight-stationary design: the core instantiates dg_engine_ws (and the output-stationary engine's
# files are not in the design), and the design is lint-clean under verilator -Wall, with the
# protocol checkers bound too, and so is the engine's proof top (dg_engine_ws_proof).
include(${CMAKE_CURRENT_LIST_DIR}/emit_design.cmake)  # sets top and files
file(READ ${WORK}/v/${top}_core.v text)
if(NOT text MATCHES "  dg_engine_ws #\\(\n")
  message(FATAL_ERROR "${top}_core.v does not instantiate dg_engine_ws")
endif()
if(EXISTS ${WORK}/v/dg_engine.v OR EXISTS ${WORK}/v/dg_mac_array.v OR NOT EXISTS ${WORK}/v/dg_ws_array.v)
  message(FATAL_ERROR "the design's engine files are not the weight-stationary ones")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/verilator_lint.cmake)
dg_verilator_lint(FILES ${files} LINTS "--top-module,${top}" "--top-module,${top},-DDG_AXI4_CHECK"
                  "--top-module,dg_engine_ws_proof")
