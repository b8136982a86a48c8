# cmake -DCMD=deepgemm -DSPEC=x.dgml -DHARNESS=sim/cosim_main.cpp -DWORK=dir -P build_model.cmake
# Compiles the spec's NPU design (--emit=verilog: after its proofs) and Verilates it with the
# co-simulation harness into WORK/obj/cosim.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
execute_process(COMMAND ${CMD} compile ${SPEC} --emit=verilog -o ${WORK}/v RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "deepgemm compile --emit=verilog failed (${rc}):\n${err}")
endif()
file(GLOB tops RELATIVE ${WORK}/v ${WORK}/v/npu_gemm_*.v)
list(FILTER tops EXCLUDE REGEX "_agu_")
list(LENGTH tops n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one top, got: ${tops}")
endif()
string(REPLACE ".v" "" top ${tops})
file(GLOB files ${WORK}/v/*.v)
find_program(VERILATOR verilator REQUIRED)
execute_process(COMMAND ${VERILATOR} --cc --exe --build -j 2 --prefix Vtop --top-module ${top} -Wno-fatal
                        -CFLAGS "-std=c++17 -O1" -Mdir ${WORK}/obj ${files} ${HARNESS} -o cosim
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator failed (${rc}):\n${out}${err}")
endif()
