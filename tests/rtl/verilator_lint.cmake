# dg_verilator_lint(FILES <files> LINTS <lint>...): each LINT is a ';'-list of verilator options
# (a --top-module and its defines or parameters) under which the files must be
# `verilator --lint-only -Wall` clean; the first that is not stops the test with verilator's words.
function(dg_verilator_lint)
  cmake_parse_arguments(arg "" "" "FILES;LINTS" ${ARGN})
  find_program(VERILATOR verilator REQUIRED)
  foreach(lint ${arg_LINTS})
    string(REPLACE "," ";" lint "${lint}")
    execute_process(COMMAND ${VERILATOR} --lint-only -Wall ${lint} ${arg_FILES}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE lout ERROR_VARIABLE lerr)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "verilator --lint-only -Wall ${lint}:\n${lout}${lerr}")
    endif()
  endforeach()
endfunction()
