# cmake -DCMD=deepgemm -DSPEC=x.dgml -DWORK=dir -DFMAX_MIN=MHz [-DREQUIRE_FIT=ON] -P check_board.cmake:
# compiles (--synth) an NPU spec whose model names the iCEBreaker and reads the place-and-route
# report, from the --verbose line and from the module's Synth section. A design that fits must be
# within the UP5K, meet the 12 MHz board clock and reach FMAX_MIN MHz, with every figure in the
# module. One that does not fit must say so with what it needs (nextpnr's packed utilisation),
# and fails the check only with REQUIRE_FIT.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
execute_process(COMMAND ${CMD} compile ${SPEC} -o ${WORK}/board.ko --verbose --synth RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile failed (${rc}):\n${err}")
endif()
file(STRINGS ${WORK}/board.ko report REGEX "place and route on icebreaker|yosys synth_ice40 -top board_top|nextpnr: |estimated fmax|  bitstream: ")
string(JOIN "\n" report ${report})
set(fields "[0-9]+ LUT4, [0-9]+ flip-flops, [0-9]+ carry cells; ")
if(err MATCHES "Place and route on icebreaker \\(iCE40 UP5K \\(sg48\\)\\): ([0-9]+)/5280 logic cells[^\n]*fmax ([0-9.]+) MHz \\(board clock 12 MHz\\)")
  set(cells ${CMAKE_MATCH_1})
  set(fmax ${CMAKE_MATCH_2})
  message(STATUS "fits the icebreaker: ${cells}/5280 logic cells, fmax ${fmax} MHz")
  if(fmax LESS FMAX_MIN)
    message(FATAL_ERROR "fmax ${fmax} MHz is below the floor of ${FMAX_MIN} MHz")
  endif()
  list(APPEND fields "place and route on icebreaker \\(iCE40 UP5K \\(sg48\\), top board_top" "logic cells [0-9]+/5280"
       "block RAMs [0-9]+/30" "SPRAMs 4/4" "DSPs [0-9]+/8" "I/Os 6/96" "estimated fmax [0-9.]+ MHz; board clock 12 MHz: met"
       "bitstream: [0-9]+ bytes \\(icepack\\)")
  # The bitstream, from the module the cache now holds: an iCE40 UP5K image.
  execute_process(COMMAND ${CMD} compile ${SPEC} -o ${WORK}/again.ko --synth --bitstream ${WORK}/board.bin
                  RESULT_VARIABLE rc ERROR_VARIABLE err2)
  set(bits 0)
  if(rc EQUAL 0 AND EXISTS ${WORK}/board.bin)
    file(SIZE ${WORK}/board.bin bits)
  endif()
  if(NOT rc EQUAL 0 OR bits LESS 100000)
    message(FATAL_ERROR "--bitstream failed (${rc}, ${bits} bytes):\n${err2}")
  endif()
  message(STATUS "bitstream: ${bits} bytes")
elseif(err MATCHES "Place and route on icebreaker not done: nextpnr-ice40 failed \\(exit [0-9]+\\); the design does not fit the iCE40 UP5K \\(sg48\\): ([^\n]*)")
  message(STATUS "does not fit the icebreaker: ${CMAKE_MATCH_1}")
  if(REQUIRE_FIT)
    message(FATAL_ERROR "the design does not fit the board:\n${err}")
  endif()
  list(APPEND fields "place and route on icebreaker: not done: nextpnr-ice40 failed \\(exit [0-9]+\\); the design does not fit")
  # No bitstream then, and --bitstream says why.
  execute_process(COMMAND ${CMD} compile ${SPEC} -o ${WORK}/again.ko --synth --bitstream ${WORK}/board.bin
                  RESULT_VARIABLE rc ERROR_VARIABLE err2)
  if(rc EQUAL 0 OR NOT err2 MATCHES "no bitstream for '[^']*': place and route on icebreaker: not done: nextpnr-ice40 failed")
    message(FATAL_ERROR "--bitstream without a placed design: expected an error, got (${rc}):\n${err2}")
  endif()
else()
  message(FATAL_ERROR "no place-and-route line, or neither figures nor a does-not-fit message:\n${err}")
endif()
foreach(field ${fields})
  if(NOT report MATCHES "${field}")
    message(FATAL_ERROR "the module's Synth section lacks '${field}':\n${report}")
  endif()
endforeach()
# The design alone: the coarse per-module breakdown with its memories kept as memories (the
# scratchpad banks and accumulator buffers), and each FPGA family's figures.
file(STRINGS ${WORK}/board.ko synth REGEX "^synthesis \\(|^  coarse|^    (module|dg_|npu_gemm)|^  (iCE40|ECP5|Xilinx)")
string(JOIN "\n" synth ${synth})
foreach(field "synthesis \\(Yosys; memories kept as memories; [0-9.]+ s\\):"
              "coarse \\(synth -run :fine\\): [0-9]+ cells, [0-9]+ flip-flop bits, [0-9]+ memories of [0-9]+ bits"
              "module +instances +cells +ff bits +memories +memory bits +words x bits"
              "dg_ram_1r1w(#[0-9])? +4 +1 +0 +1 +8192 +256 x 32" "dg_mac_array +1 +[0-9]+ +[0-9]+ +0 +0"
              "iCE40 \\(synth_ice40 -dsp\\): [0-9]+ LUTs, [0-9]+ flip-flops, [0-9]+ carry cells, [0-9]+ block RAMs \\(SB_RAM40_4K\\), [0-9]+ DSPs \\(SB_MAC16\\)"
              "ECP5 \\(synth_ecp5\\): [0-9]+ LUTs, [0-9]+ flip-flops, [0-9]+ carry cells, [0-9]+ block RAMs \\(DP16KD\\), [0-9]+ DSPs \\(MULT18X18D\\)"
              "Xilinx 7-series \\(synth_xilinx -family xc7 -noiopad\\): [0-9]+ LUTs, [0-9]+ flip-flops, [0-9]+ carry cells, [0-9]+ block RAMs \\(RAMB36E1\\), [0-9]+ DSPs \\(DSP48E1\\)")
  if(NOT synth MATCHES "${field}")
    message(FATAL_ERROR "the module's Synth section lacks '${field}':\n${synth}")
  endif()
endforeach()
