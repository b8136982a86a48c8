# The C and C++ sources are formatted as .clang-format says (clang-format 14, Debian 12's): fails
# naming every file that `clang-format --dry-run --Werror` would change. Run with -DROOT=<source
# dir> -DCLANG_FORMAT=<clang-format-14>. Fix with: clang-format-14 -i FILE...
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "clang-format-14 not found: toolchain/bootstrap.sh installs it")
endif()
set(sources "")
foreach(dir compiler hdl-gen sim runtime-cuda runtime-baremetal tests bench boards)
  file(GLOB_RECURSE found ${ROOT}/${dir}/*.cpp ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.c)
  list(APPEND sources ${found})
endforeach()
list(FILTER sources EXCLUDE REGEX "/tests/fuzz/corpus/|\\.golden\\.")  # goldens are generated text
list(SORT sources)
set(bad "")
foreach(f ${sources})
  execute_process(COMMAND ${CLANG_FORMAT} --style=file --dry-run --Werror ${f}
                  WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    file(RELATIVE_PATH rel ${ROOT} ${f})
    list(APPEND bad ${rel})
  endif()
endforeach()
list(LENGTH sources n)
if(bad)
  string(REPLACE ";" "\n  " list "${bad}")
  message(FATAL_ERROR "not formatted (clang-format-14 -i FILE):\n  ${list}")
endif()
message(STATUS "${n} sources formatted as .clang-format says")
