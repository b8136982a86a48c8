# cmake -DWORK=dir -P verilated_runtime.cmake
# Compiles Verilator's own run-time library (verilated.o, verilated_threads.o) once, by the makefile
# Verilator writes and with the C++ flags of every co-simulation build (cosim_flags.cmake), which
# then takes these objects instead of compiling them again. The objects depend on Verilator and on
# those flags only, not on the design.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/cosim_flags.cmake)  # DG_COSIM_CXXFLAGS
file(WRITE ${WORK}/dg_vrt.v "module dg_vrt (input logic clk_i);\nendmodule\n")
find_program(VERILATOR verilator REQUIRED)
find_program(MAKE_PROGRAM NAMES make gmake REQUIRED)
execute_process(COMMAND ${VERILATOR} --cc --prefix Vtop --top-module dg_vrt -CFLAGS "${DG_COSIM_CXXFLAGS}"
                        -Mdir ${WORK}/obj ${WORK}/dg_vrt.v
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${MAKE_PROGRAM} -C ${WORK}/obj -f Vtop.mk -j 2 verilated.o verilated_threads.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the Verilator run-time library did not compile (${rc}):\n${out}${err}")
endif()
