# cmake -DCMD=deepgemm -DSRC=<source dir> -DSPEC=x.dgml [-DMODEL=x.json] -DWORK=dir -P lint_spec.cmake
# Any design: the spec's generated Verilog is lint-clean under verilator -Wall, with the protocol
# checkers bound too.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
include(${SRC}/tests/cosim/models/use_model.cmake)  # MODELS: --hw-models WORK/models
execute_process(COMMAND ${CMD} ${MODELS} compile ${SPEC} --emit=verilog -o ${WORK}/v RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--emit=verilog failed (${rc}):\n${err}")
endif()
file(GLOB tops RELATIVE ${WORK}/v ${WORK}/v/npu_gemm_*.v)
list(FILTER tops EXCLUDE REGEX "_agu_|_core")
string(REPLACE ".v" "" top ${tops})
file(GLOB files ${WORK}/v/*.v)
include(${CMAKE_CURRENT_LIST_DIR}/verilator_lint.cmake)
dg_verilator_lint(FILES ${files} LINTS "--top-module,${top}" "--top-module,${top},-DDG_AXI4_CHECK")
