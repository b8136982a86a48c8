# cmake -DCMD=deepgemm -DSRC=<source dir> -DWORK=dir -DMODEL=x.json -DSPEC=x.dgml -DMATCH=regex -P bad_model.cmake
# Compiles SPEC with MODEL beside the project's hardware models: the compiler must exit 1 with a
# diagnostic matching MATCH (and write no module).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${SRC}/tests/cosim/models/use_model.cmake)  # MODELS: --hw-models WORK/models
execute_process(COMMAND ${CMD} ${MODELS} compile ${SPEC} -o ${WORK}/x.ko RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1, got ${rc}:\n${out}${err}")
endif()
if(NOT err MATCHES "${MATCH}")
  message(FATAL_ERROR "the diagnostic does not match '${MATCH}':\n${err}")
endif()
if(EXISTS ${WORK}/x.ko)
  message(FATAL_ERROR "a module was written")
endif()
message(STATUS "${err}")
