# The Z3 wall (DESIGN.md): no source outside compiler/smt/ includes a Z3 header (z3++.h, z3.h,
# z3_version.h, ...). Fails naming
# every file that does. Run with -DROOT=<source dir>.
file(GLOB_RECURSE sources RELATIVE ${ROOT}
     ${ROOT}/compiler/*.cpp ${ROOT}/compiler/*.h ${ROOT}/hdl-gen/*.cpp ${ROOT}/hdl-gen/*.h
     ${ROOT}/sim/*.cpp ${ROOT}/sim/*.h ${ROOT}/runtime-cuda/*.cpp ${ROOT}/runtime-cuda/*.h
     ${ROOT}/runtime-baremetal/*.cpp ${ROOT}/runtime-baremetal/*.h ${ROOT}/tests/*.cpp ${ROOT}/tests/*.h)
set(bad "")
foreach(f ${sources})
  if(f MATCHES "^compiler/smt/")
    continue()
  endif()
  file(STRINGS ${ROOT}/${f} hits REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]z3[_a-z+]*\\.h[>\"]")
  if(hits)
    list(APPEND bad ${f})
  endif()
endforeach()
list(LENGTH sources n)
if(bad)
  message(FATAL_ERROR "z3 is included outside compiler/smt/: ${bad}")
endif()
message(STATUS "${n} sources checked: z3 is included in compiler/smt/ only")
