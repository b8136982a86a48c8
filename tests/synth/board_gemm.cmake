# cmake -DCMD=deepgemm -DSPEC=x.dgml -DVERILATOR=verilator -DWORK=dir -DBOARD=boards/icebreaker
#       -DTB=board_gemm_tb.v -DSPRAM=SB_SPRAM256KA.v -DM=.. -DN=.. -DK=.. -P board_gemm.cmake:
# the generated NPU of SPEC under the board top, simulated with Verilator, run by board_gemm_tb
# through the UART alone; passes when the testbench prints "board_gemm_tb: PASS". The register
# offsets come from the generated top's header, so that the testbench follows the generator.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
execute_process(COMMAND ${CMD} compile ${SPEC} --emit=verilog -o ${WORK}/v RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--emit=verilog failed (${rc}):\n${err}")
endif()
get_filename_component(name ${SPEC} NAME_WE)
set(top npu_gemm_${name}_core)
file(READ ${WORK}/v/${top}.v text)
set(defs -DDG_NPU_TOP=${top} -DGEMM_M=${M} -DGEMM_N=${N} -DGEMM_K=${K})
foreach(reg CTRL STATUS ERROR CYCLES A_BASE B_BASE C_BASE M N K)
  if(NOT text MATCHES "\n//   0x([0-9a-f]+) ${reg} ")
    message(FATAL_ERROR "the header of ${top}.v does not list register ${reg}")
  endif()
  list(APPEND defs "-DREG_${reg}=32'h${CMAKE_MATCH_1}")
endforeach()
file(GLOB design ${WORK}/v/*.v)
execute_process(COMMAND ${VERILATOR} --binary --timing -Wno-fatal -Wno-lint -Wno-style ${defs} --top-module board_gemm_tb
                        -Mdir ${WORK}/obj -j 2 ${TB} ${SPRAM} ${BOARD}/board_top.v ${BOARD}/board_mem.v
                        ${BOARD}/board_bridge.v ${BOARD}/board_uart.v ${design}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator --binary failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${WORK}/obj/Vboard_gemm_tb RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "board_gemm_tb: PASS")
  message(FATAL_ERROR "board_gemm_tb did not pass (${rc})")
endif()
