# cmake -DIVERILOG=iverilog -DVVP=vvp -DCELLS=.../ice40/cells_sim.v -DTB=mac_dsp_tb.v -DMAC=dg_mac_array.v
#       -DWORK=dir -P mac_dsp_sim.cmake: the MAC array's iCE40 DSP path under Icarus with Yosys's
# SB_MAC16 simulation model (read from the Yosys installation); passes when the testbench prints PASS.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${IVERILOG} -g2012 -DDG_ICE40_DSP -DNO_ICE40_DEFAULT_ASSIGNMENTS -o ${WORK}/mac_dsp.vvp ${TB} ${MAC} ${CELLS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "iverilog failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${VVP} -n ${WORK}/mac_dsp.vvp RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS: " OR out MATCHES "FAIL")
  message(FATAL_ERROR "the DSP path of dg_mac_array did not pass (${rc})")
endif()
