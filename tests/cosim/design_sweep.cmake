# cmake -DCMD=deepgemm -DSRC=source -DWORK=dir -P design_sweep.cmake
# `deepgemm sweep` end to end on tests/cosim/design_sweep/sweep.json: two variants of the npu4 model
# (one the generator refuses: a 3-row array whose XOR bank mapping needs its rows to divide the 4 banks) at two DRAM latencies, the solver's plan and the
# next-best one each. The buildable points are compiled, proved and co-simulated bit-exactly, the
# refused ones are rows that say why, the table and plot are written, and a rerun runs nothing.
# Sweep files with a wrong field are refused naming it; a sweep with synthesis tabulates its
# iCE40 figures.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
set(sweep ${SRC}/tests/cosim/design_sweep/sweep.json)
execute_process(COMMAND ${CMD} sweep ${sweep} -o ${WORK}/out -j 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "deepgemm sweep exited ${rc}")
endif()
foreach(f sweep.csv sweep.json sweep.svg)
  if(NOT EXISTS ${WORK}/out/${f})
    message(FATAL_ERROR "no ${f}")
  endif()
endforeach()
file(STRINGS ${WORK}/out/sweep.csv rows)
list(LENGTH rows n)
# header, two plans at each latency of 2x4, one refused row at each latency of 3x4xor
if(NOT n EQUAL 7)
  message(FATAL_ERROR "sweep.csv has ${n} lines, not 7:\n${rows}")
endif()
file(READ ${WORK}/out/sweep.csv csv)
string(REGEX MATCHALL "\"2x4,dram_latency_cycles=[0-9]+\",small,[01],PASS," pass "${csv}")
list(LENGTH pass np)
if(NOT np EQUAL 4)
  message(FATAL_ERROR "not four co-simulated plans that PASS:\n${csv}")
endif()
string(REGEX MATCHALL "\"3x4xor,dram_latency_cycles=[0-9]+\",small,0,refused,[^\n]*npu.spad_bank_map is xor[^\n]*npu.pe_rows \\(3\\) does not divide" refused "${csv}")
list(LENGTH refused nr)
if(NOT nr EQUAL 2)
  message(FATAL_ERROR "the 3-row XOR variants are not refused naming npu.spad_bank_map:\n${csv}")
endif()
if(NOT out MATCHES "estimate against co-simulation: 4 plans")
  message(FATAL_ERROR "no summary of the estimate's error")
endif()
# A rerun resumes: nothing left to run.
execute_process(COMMAND ${CMD} sweep ${sweep} -o ${WORK}/out RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0 OR NOT err MATCHES "0 to run")
  message(FATAL_ERROR "the rerun did not resume (exit ${rc}):\n${err}")
endif()
# The bus address width varies too; npu4's board decodes 32-bit addresses, so a 40-bit variant is
# a row that says why (nothing is built for it), and with no point left the sweep exits 1.
file(WRITE ${WORK}/addr.json "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"vary\": {\"bus_addr_bits\": [40]}}")
file(COPY ${SRC}/tests/cosim/design_sweep/small.dgml DESTINATION ${WORK})
execute_process(COMMAND ${CMD} sweep ${WORK}/addr.json -o ${WORK}/addr RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${WORK}/addr/sweep.csv csv)
if(NOT rc EQUAL 1 OR NOT csv MATCHES "bus_addr_bits=40,small,0,refused,[^\n]*npu.bus_addr_bits is 40 and npu.board")
  message(FATAL_ERROR "a bus_addr_bits variant (exit ${rc}):\n${csv}\n${err}")
endif()
# Wrong sweep files: exit 1 naming the field.
foreach(bad "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"vary\": {\"pe_rowz\": [2]}}|'pe_rowz' is not an npu field"
            "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"alternatives\": 99}|'alternatives' must be an integer"
            "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"vary\": {\"spad_bank_map\": [1]}}|'spad_bank_map' takes string values"
            "{\"format\": \"deepgemm-sweep-1\", \"specs\": [], \"model\": \"npu4\"}|'specs' must be a non-empty array"
            "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"colour\": 1}|unknown field 'colour'"
            "[1, 2]|not a JSON object")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 text)
  list(GET parts 1 want)
  file(WRITE ${WORK}/bad.json "${text}")
  file(COPY ${SRC}/tests/cosim/design_sweep/small.dgml DESTINATION ${WORK})
  execute_process(COMMAND ${CMD} sweep ${WORK}/bad.json -o ${WORK}/bad RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "${want}")
    message(FATAL_ERROR "sweep file ${text}: exit ${rc}, expected 1 and '${want}':\n${err}")
  endif()
endforeach()
# A sweep whose every point is refused measured nothing: exit 1, the table still written.
file(WRITE ${WORK}/refused.json "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"variants\": [{\"name\": \"x\", \"pe_rows\": 3, \"spad_bank_map\": \"xor\"}]}")
execute_process(COMMAND ${CMD} sweep ${WORK}/refused.json -o ${WORK}/refused RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "no point could be built" OR NOT EXISTS ${WORK}/refused/sweep.csv)
  message(FATAL_ERROR "a sweep of refused points only: exit ${rc}, expected 1:\n${err}")
endif()
# Synthesis in a sweep: the FPGA figures land in the table, and the ASIC flow's (npu4: 4 banks and
# 2 accumulator buffers, 6 memory macros).
file(WRITE ${WORK}/synth.json "{\"format\": \"deepgemm-sweep-1\", \"specs\": [\"small.dgml\"], \"model\": \"npu4\", \"synth\": [\"ice40\", \"asic\"]}")
execute_process(COMMAND ${CMD} sweep ${WORK}/synth.json -o ${WORK}/synth RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(READ ${WORK}/synth/sweep.csv csv)
if(NOT rc EQUAL 0 OR NOT csv MATCHES "ice40_luts,ice40_ffs,ice40_brams,ice40_dsps,asic_gates,asic_ffs,asic_macros,asic_macro_bits"
   OR NOT csv MATCHES "\nbase,small,0,PASS,[^\n]*,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,6,[0-9]+,2,4,")
  message(FATAL_ERROR "a sweep with synthesis (exit ${rc}) has no iCE40 or ASIC figures:\n${csv}\n${err}")
endif()
