# cmake -DCMD=deepgemm -DSPEC=npu4_tiny.dgml -DMODEL=hw-models/npu4.json -DWORK=dir -P board_too_big.cmake:
# an npu4 variant with a scratchpad four times deeper (4 banks x 1024 rows x 32 bits) names the
# iCEBreaker too. Its iCE40 mapping needs more block RAMs than the UP5K's 30, so the board is not
# placed: the report says it does not fit and by how much, and the module is still written with
# the figures of the design alone.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/models)
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
file(READ ${MODEL} model)
string(REPLACE "\"name\": \"npu4\"" "\"name\": \"npu4_deep\"" model "${model}")
string(REPLACE "\"spad_rows\": 256" "\"spad_rows\": 1024" model "${model}")
file(WRITE ${WORK}/models/npu4_deep.json "${model}")
get_filename_component(models ${MODEL} DIRECTORY)
file(COPY ${models}/schema.json DESTINATION ${WORK}/models)
file(READ ${SPEC} spec)
string(REPLACE "target npu4;" "target npu4_deep;" spec "${spec}")
file(WRITE ${WORK}/deep.dgml "${spec}")
execute_process(COMMAND ${CMD} --hw-models ${WORK}/models compile ${WORK}/deep.dgml -o ${WORK}/deep.ko --verbose --synth
                        --fpga ice40
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile failed (${rc}):\n${err}")
endif()
if(NOT err MATCHES "Place and route on icebreaker not done: does not fit icebreaker: the design alone needs ([0-9]+) of its 30 block RAMs")
  message(FATAL_ERROR "no does-not-fit verdict:\n${err}")
endif()
set(need ${CMAKE_MATCH_1})
if(need LESS_EQUAL 30)
  message(FATAL_ERROR "the verdict says ${need} block RAMs, which would fit")
endif()
file(STRINGS ${WORK}/deep.ko report REGEX "iCE40 \\(synth_ice40 -dsp\\)|dg_ram_1r1w|does not fit")
string(JOIN "\n" report ${report})
foreach(field "iCE40 \\(synth_ice40 -dsp\\): [0-9]+ LUTs, [0-9]+ flip-flops, [0-9]+ carry cells, ${need} block RAMs"
              "dg_ram_1r1w(#[0-9])? +4 +1 +0 +1 +32768 +1024 x 32" "does not fit icebreaker")
  if(NOT report MATCHES "${field}")
    message(FATAL_ERROR "the module's Synth section lacks '${field}':\n${report}")
  endif()
endforeach()
message(STATUS "does not fit the icebreaker: ${need} of 30 block RAMs")
