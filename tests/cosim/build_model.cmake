# cmake -DCMD=deepgemm -DSPEC=x.dgml -DSRC=<source dir> -DRTLIB=libdg_baremetal.a -DWORK=dir -P build_model.cmake
# Compiles the spec into WORK/design.ko (its design proved), writes its Verilog (inspect --verilog),
# and Verilates it with the co-simulation harness and the freestanding runtime (RTLIB, built with
# its freestanding flags) into
# WORK/obj/cosim (what `deepgemm sim` builds, here in the test's own directory). With
# -DMUTATE="file.v%%assign%%LHS%%RHS" or "file.v%%code%%FROM%%TO" and -DMUTATOR=rtl_mutate the
# Verilog is altered first (a seeded bug placed by structure: tests/support/rtl_mutate.h).
# With -DMODEL=x.json the spec's target is that hardware model (beside the project's own). With
# -DVRT=dir the Verilator run-time library compiled there (verilated_runtime.cmake) is used.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
include(${SRC}/tests/cosim/models/use_model.cmake)  # MODELS: the spec's test model, if any
execute_process(COMMAND ${CMD} ${MODELS} compile ${SPEC} -o ${WORK}/design.ko RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "deepgemm compile failed (${rc}):\n${err}")
endif()
# The module's own Verilog, as proved (one solve and proof, not two).
execute_process(COMMAND ${CMD} inspect ${WORK}/design.ko --verilog ${WORK}/v RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "deepgemm inspect --verilog failed (${rc}):\n${err}")
endif()
if(DEFINED MUTATE)
  # MUTATE is FILE%%KIND%%A%%B, split here without CMake lists (the code may hold semicolons).
  set(rest "${MUTATE}")
  foreach(i 0 1 2)
    string(FIND "${rest}" "%%" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "MUTATE is not FILE%%assign%%LHS%%RHS or FILE%%code%%FROM%%TO: ${MUTATE}")
    endif()
    string(SUBSTRING "${rest}" 0 ${at} m${i})
    math(EXPR at "${at} + 2")
    string(SUBSTRING "${rest}" ${at} -1 rest)
  endforeach()
  execute_process(COMMAND ${MUTATOR} ${WORK}/v/${m0} --${m1} "${m2}" "${rest}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the mutation does not apply: ${err}")
  endif()
endif()
file(GLOB tops RELATIVE ${WORK}/v ${WORK}/v/npu_gemm_*.v)
list(FILTER tops EXCLUDE REGEX "_agu_|_core")
list(LENGTH tops n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one top, got: ${tops}")
endif()
string(REPLACE ".v" "" top ${tops})
file(READ ${WORK}/v/${top}_core.v text)
string(REGEX MATCH "\\.Rows\\(([0-9]+)\\)" _ "${text}")
set(rows ${CMAKE_MATCH_1})
string(REGEX MATCH "\\.Cols\\(([0-9]+)\\)" _ "${text}")
set(cols ${CMAKE_MATCH_1})
file(GLOB files ${WORK}/v/*.v)
find_program(VERILATOR verilator REQUIRED)
set(rt ${SRC}/runtime-baremetal)
include(${CMAKE_CURRENT_LIST_DIR}/cosim_flags.cmake)  # DG_COSIM_CXXFLAGS
set(verilate ${VERILATOR} --cc --exe --prefix Vtop --top-module ${top} -DDG_AXI4_CHECK -Wno-fatal
    -CFLAGS "${DG_COSIM_CXXFLAGS} -I${rt}/include -I${rt}/src -DTOP_NAME=\\\"${top}\\\" -DPE_ROWS=${rows} -DPE_COLS=${cols}"
    -Mdir ${WORK}/obj ${files} ${SRC}/sim/cosim_main.cpp ${RTLIB} -o cosim)
if(DEFINED VRT)
  # Verilator's run-time library compiled once (verilated_runtime.cmake): its objects go beside
  # the design's, newer than the makefile Verilator just wrote, so make takes them as built.
  execute_process(COMMAND ${verilate} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "verilator failed (${rc}):\n${out}${err}")
  endif()
  foreach(o verilated.o verilated_threads.o)
    file(COPY_FILE ${VRT}/obj/${o} ${WORK}/obj/${o})
    file(TOUCH_NOCREATE ${WORK}/obj/${o})
  endforeach()
  find_program(MAKE_PROGRAM NAMES make gmake REQUIRED)
  execute_process(COMMAND ${MAKE_PROGRAM} -C ${WORK}/obj -f Vtop.mk -j 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  execute_process(COMMAND ${verilate} --build -j 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator failed (${rc}):\n${out}${err}")
endif()
