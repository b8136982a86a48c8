# cmake -DCMD=deepgemm -DSRC=<source dir> -DSPEC=x.dgml [-DMODEL=x.json] -DWORK=dir -P lint_spec.cmake
# Any design: the spec's generated Verilog is lint-clean under verilator -Wall, with the protocol
# checkers bound too.
include(${CMAKE_CURRENT_LIST_DIR}/emit_design.cmake)  # sets top and files
include(${CMAKE_CURRENT_LIST_DIR}/verilator_lint.cmake)
dg_verilator_lint(FILES ${files} LINTS "--top-module,${top}" "--top-module,${top},-DDG_AXI4_CHECK")
