# dg_model_for_spec(SPEC VAR): VAR becomes "-DMODEL=<file>" when SPEC's target is one of the test
# hardware models of this folder (tests/cosim/models/<target>.json), else "": the co-simulation
# scripts then give the compiler that model beside the project's own.
function(dg_model_for_spec spec var)
  file(STRINGS ${spec} target_line REGEX "^target ")
  string(REGEX REPLACE "^target ([A-Za-z0-9_]+).*" "\\1" target "${target_line}")
  set(model "")
  if(EXISTS ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${target}.json)
    set(model -DMODEL=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${target}.json)
  endif()
  set(${var} "${model}" PARENT_SCOPE)
endfunction()
