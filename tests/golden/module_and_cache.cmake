# cmake -DCMD=deepgemm -DSPEC=x.dgml -DWORK=dir -P module_and_cache.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{DEEPGEMM_CACHE_DIR} ${WORK}/cache)
function(run expect_rc)
  execute_process(COMMAND ${CMD} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${ARGN}: exit ${rc}, expected ${expect_rc}\n${out}${err}")
  endif()
  set(OUT "${out}${err}" PARENT_SCOPE)
endfunction()

# 1. A fresh compile writes the module and fills the cache.
run(0 compile ${SPEC} -o ${WORK}/a.ko --verbose)
if(NOT OUT MATCHES "SUCCESS\\] Kernel compiled to" OR OUT MATCHES "Cache hit")
  message(FATAL_ERROR "first compile:\n${OUT}")
endif()
file(GLOB entries ${WORK}/cache/*.ko)
list(LENGTH entries n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one cache entry, found ${n}")
endif()

# 2. inspect shows the target, both sections and good checksums.
run(0 inspect ${WORK}/a.ko)
foreach(want "target: +hopper" "plan +plan" "proof +proof" "tile_m: ")
  if(NOT OUT MATCHES "${want}")
    message(FATAL_ERROR "inspect lacks '${want}':\n${OUT}")
  endif()
endforeach()

# 3. The second compile is a cache hit with identical bytes.
run(0 compile ${SPEC} -o ${WORK}/b.ko --verbose)
if(NOT OUT MATCHES "Cache hit")
  message(FATAL_ERROR "second compile did not hit the cache:\n${OUT}")
endif()
file(SHA256 ${WORK}/a.ko ha)
file(SHA256 ${WORK}/b.ko hb)
if(NOT ha STREQUAL hb)
  message(FATAL_ERROR "cached module differs from the fresh one")
endif()

# 4. --force-rebuild ignores the cache.
run(0 compile ${SPEC} -o ${WORK}/c.ko --verbose --force-rebuild)
if(OUT MATCHES "Cache hit")
  message(FATAL_ERROR "--force-rebuild used the cache:\n${OUT}")
endif()

# 5. A corrupt (here: truncated) entry is rebuilt, never trusted.
list(GET entries 0 entry)
execute_process(COMMAND head -c 100 ${WORK}/a.ko OUTPUT_FILE ${entry})
run(0 compile ${SPEC} -o ${WORK}/d.ko --verbose)
if(NOT OUT MATCHES "corrupt entry" OR OUT MATCHES "Cache hit")
  message(FATAL_ERROR "a truncated cache entry was not rebuilt:\n${OUT}")
endif()
file(SHA256 ${WORK}/d.ko hd)
if(NOT hd STREQUAL ha)
  message(FATAL_ERROR "rebuilt module differs")
endif()

# 6. A corrupt module is rejected by inspect with a precise error and exit code 1.
execute_process(COMMAND head -c 100 ${WORK}/a.ko OUTPUT_FILE ${WORK}/bad.ko)
run(1 inspect ${WORK}/bad.ko)
if(NOT OUT MATCHES "error")
  message(FATAL_ERROR "inspect accepted a truncated module:\n${OUT}")
endif()

# 7. Concurrent compiles of one spec into one empty cache: all succeed with identical modules and
#    leave one complete entry (atomic rename; no torn files, no temporary files left).
file(REMOVE_RECURSE ${WORK}/cache)
execute_process(
  COMMAND ${CMD} compile ${SPEC} -o ${WORK}/p1.ko
  COMMAND ${CMD} compile ${SPEC} -o ${WORK}/p2.ko
  COMMAND ${CMD} compile ${SPEC} -o ${WORK}/p3.ko
  COMMAND ${CMD} compile ${SPEC} -o ${WORK}/p4.ko
  RESULTS_VARIABLE rcs ERROR_VARIABLE err)
foreach(rc ${rcs})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "a concurrent compile failed (${rcs}):\n${err}")
  endif()
endforeach()
foreach(i 1 2 3 4)
  file(SHA256 ${WORK}/p${i}.ko h)
  if(NOT h STREQUAL ha)
    message(FATAL_ERROR "concurrent compile ${i} produced a different module")
  endif()
endforeach()
file(GLOB left ${WORK}/cache/*.ko)
file(GLOB keys ${WORK}/cache/*.key)
list(LENGTH left n)
list(LENGTH keys nk)
if(NOT n EQUAL 1 OR NOT nk EQUAL 1)
  message(FATAL_ERROR "expected exactly one cache entry and its key record after concurrent compiles: ${left} ${keys}")
endif()
run(0 inspect ${left})
