# cmake -DCMD=deepgemm -DSPEC=npu.dgml -DWORK=dir -P proof_cache.cmake
# The NPU proof cache (DEEPGEMM_PROOF_CACHE_DIR): a second compile of the same design reuses every
# module's proof; an entry that is truncated, or claims an unproved property, is ignored and the
# module proved again; an empty DEEPGEMM_PROOF_CACHE_DIR and --force-rebuild prove everything.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_PROOF_CACHE_DIR} ${WORK}/proofs)
set(n 0)
function(compile want_reused)
  math(EXPR n "${n} + 1")
  set(n ${n} PARENT_SCOPE)
  set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/modules${n})  # a fresh module cache: the design is proved
  execute_process(COMMAND ${CMD} compile ${SPEC} --verbose ${ARGN} -o ${WORK}/d${n}.ko RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compile ${n} failed (${rc}):\n${err}")
  endif()
  string(REGEX MATCHALL "all properties proved \\(reused from the proof cache" hits "${err}")
  string(REGEX MATCHALL "all properties proved" proved "${err}")
  list(LENGTH hits got)
  list(LENGTH proved modules)
  if(NOT got EQUAL want_reused)
    message(FATAL_ERROR "compile ${n}: ${got} of ${modules} proofs reused, expected ${want_reused}:\n${err}")
  endif()
  set(modules ${modules} PARENT_SCOPE)
endfunction()
compile(0)  # every module proved and stored
file(GLOB entries ${WORK}/proofs/*.json)
list(LENGTH entries stored)
if(NOT stored EQUAL modules OR modules LESS 2)
  message(FATAL_ERROR "expected one entry per proved module (${modules}), found ${stored}")
endif()
compile(${modules})  # all reused
# A truncated entry and one that claims an unproved property: both proved again (and stored).
list(GET entries 0 first)
list(GET entries 1 second)
file(READ ${first} text)
string(SUBSTRING "${text}" 0 40 cut)
file(WRITE ${first} "${cut}")
file(READ ${second} text)
string(REPLACE "\"proved\": true" "\"proved\": false" text "${text}")
file(WRITE ${second} "${text}")
math(EXPR want "${modules} - 2")
compile(${want})
compile(${modules})  # rewritten
set(ENV{DEEPGEMM_PROOF_CACHE_DIR} "")
compile(0)  # no proof cache
set(ENV{DEEPGEMM_PROOF_CACHE_DIR} ${WORK}/proofs)
compile(0 --force-rebuild)
