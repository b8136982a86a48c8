# cmake -DCMD=deepgemm -DSPEC=x.dgml -DWORK=dir -P compile_design.cmake
# Compiles the spec's NPU design (--emit=verilog: after its proofs) into WORK/v and writes
# WORK/design.cmake: the top's name, its bus width (from the m_axi_a_rdata_i port) and the sources
# for Icarus (the generated files in WORK/v).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
include(${SRC}/tests/cosim/models/use_model.cmake)  # MODELS: the spec's test model, if any
execute_process(COMMAND ${CMD} ${MODELS} compile ${SPEC} --emit=verilog -o ${WORK}/v RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "deepgemm compile --emit=verilog failed (${rc}):\n${err}")
endif()
file(GLOB tops RELATIVE ${WORK}/v ${WORK}/v/npu_gemm_*.v)
list(FILTER tops EXCLUDE REGEX "_agu_|_core")
list(LENGTH tops n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one top, got: ${tops}")
endif()
string(REPLACE ".v" "" top ${tops})
file(READ ${WORK}/v/${tops} text)
if(NOT text MATCHES "\\[([0-9]+):0\\] +m_axi_a_rdata_i")
  message(FATAL_ERROR "no m_axi_a_rdata_i port in ${tops}")
endif()
math(EXPR bus_bits "${CMAKE_MATCH_1} + 1")
# The accumulator's and C's widths, from the core's C write-out.
file(READ ${WORK}/v/${top}_core.v core)
if(NOT core MATCHES "\\.AccW\\(([0-9]+)\\), \\.CW\\(([0-9]+)\\)")
  message(FATAL_ERROR "no .AccW(..), .CW(..) in ${top}_core.v")
endif()
set(acc_bits ${CMAKE_MATCH_1})
set(c_bits ${CMAKE_MATCH_2})
# The generated files as they are: Icarus Verilog 11 parses everything the generator emits.
file(GLOB sources ${WORK}/v/*.v)
file(WRITE ${WORK}/design.cmake "set(TOP ${top})\nset(BUS_BITS ${bus_bits})\nset(ACC_BITS ${acc_bits})\nset(C_BITS ${c_bits})\nset(SOURCES \"${sources}\")\n")
message(STATUS "${top}: ${bus_bits}-bit bus")
