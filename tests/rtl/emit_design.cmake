# include() from an RTL test script (CMD, SRC, SPEC, WORK and optionally MODEL set): compiles SPEC
# to Verilog in WORK/v, with the model beside the project's when MODEL is given, and sets `top`
# (the design's top module) and `files` (its Verilog files).
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
