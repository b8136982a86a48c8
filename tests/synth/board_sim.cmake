# cmake -DVERILATOR=verilator -DWORK=dir -DSOURCES="a.v|b.v" -P board_sim.cmake: builds board_tb
# with verilator --binary --timing and runs it; passes when it prints "board_tb: PASS".
string(REPLACE "|" ";" sources "${SOURCES}")
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${VERILATOR} --binary --timing -Wno-fatal -Wno-lint -Wno-style -DDG_NPU_TOP=npu_standin
                        --top-module board_tb -Mdir ${WORK} -j 2 ${sources}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator --binary failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${WORK}/Vboard_tb RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "board_tb: PASS")
  message(FATAL_ERROR "board_tb did not pass (${rc})")
endif()
