# cmake -DIVERILOG=iverilog -DVVP=vvp -DSTIMULUS=dg_icarus_stimulus -DTB=tb_npu.sv -DDESIGN=dir -DWORK=dir
#       -DM= -DN= -DK= -DA_TYPE=sN|uN -DB_TYPE=sN|uN -DLATENCY= -DSTALL=per-mille -DSEED= -DMAX_CYCLES= [-DWRONG_C=1]
#       -P run_tb.cmake
# One Icarus co-simulation run of the design compiled by compile_design.cmake into DESIGN: the
# stimulus for the seed, the testbench elaborated for the shape, vvp; prints the testbench's
# PASS or FAIL line (the test's verdict). With WRONG_C the expected C's last word is altered
# first, and the run must fail on exactly that word: the check itself is checked.
include(${DESIGN}/design.cmake)
math(EXPR C_BYTES "${C_BITS} / 8")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${STIMULUS} --m ${M} --n ${N} --k ${K} --a-type ${A_TYPE} --b-type ${B_TYPE}
                        --bus-bits ${BUS_BITS} --acc-bits ${ACC_BITS} --c-bits ${C_BITS} --seed ${SEED} --out ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stimulus failed (${rc}):\n${out}${err}")
endif()
message("${out}")
if(WRONG_C)
  file(STRINGS ${WORK}/c.hex lines)
  list(LENGTH lines n)
  math(EXPR last "${n} - 1")
  math(EXPR word "${n} - 2")   # the first line is a comment
  list(GET lines ${last} w)
  string(SUBSTRING "${w}" 0 1 d)
  if(d STREQUAL "0")
    set(d 1)
  else()
    set(d 0)
  endif()
  string(SUBSTRING "${w}" 1 -1 rest)
  list(REMOVE_AT lines ${last})
  list(APPEND lines "${d}${rest}")
  list(JOIN lines "\n" text)
  file(WRITE ${WORK}/c.hex "${text}\n")
endif()
foreach(t A B)
  string(REGEX REPLACE "^[su]" "" bits "${${t}_TYPE}")
  if(bits GREATER 8)
    set(${t}_BYTES 2)
  else()
    set(${t}_BYTES 1)
  endif()
endforeach()
execute_process(COMMAND ${IVERILOG} -g2012 -DDG_TOP=${TOP} -DDG_AXI4_CHECK -s tb_npu -o ${WORK}/tb.vvp
                        -Ptb_npu.BusBits=${BUS_BITS} -Ptb_npu.M=${M} -Ptb_npu.N=${N} -Ptb_npu.K=${K}
                        -Ptb_npu.AElemBytes=${A_BYTES} -Ptb_npu.BElemBytes=${B_BYTES} -Ptb_npu.CElemBytes=${C_BYTES} -Ptb_npu.Latency=${LATENCY}
                        -Ptb_npu.StallPermille=${STALL} -Ptb_npu.Seed=${SEED} -Ptb_npu.MaxCycles=${MAX_CYCLES}
                        ${DESIGN}/v/${TOP}_regs.svh ${TB} ${SOURCES}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "iverilog failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${VVP} -n ${WORK}/tb.vvp +a=${WORK}/a.hex +b=${WORK}/b.hex +c=${WORK}/c.hex
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(WRONG_C)
  string(REPLACE "FAIL" "fail" out "${out}${err}")   # expected here: not the test's verdict
  message("${out}")
  if(rc EQUAL 0 OR NOT out MATCHES "tb_npu: C word ${word} [^\n]*got"
     OR NOT out MATCHES "fail: [^\n]* 1 of [0-9]+ C words wrong, 0 protocol errors")
    message(FATAL_ERROR "FAIL: the altered expected word ${word} was not reported alone (vvp exited with ${rc})")
  endif()
  message("PASS: the testbench reports the altered C word ${word} and nothing else")
  return()
endif()
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS: ")
  message(FATAL_ERROR "FAIL: vvp exited with ${rc}")
endif()
