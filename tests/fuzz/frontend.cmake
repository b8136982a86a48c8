set(_c ${PROJECT_SOURCE_DIR}/compiler)
file(GLOB _hw_sources ${_c}/hw/*.cpp)
dg_fuzz_test(dgml
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/dgml_fuzz.cpp
          ${_c}/dgml/diag.cpp ${_c}/dgml/lexer.cpp ${_c}/dgml/ast.cpp ${_c}/dgml/parser.cpp
          ${_c}/sema/dtype.cpp ${_c}/sema/problem.cpp ${_c}/sema/decode.cpp ${_c}/sema/gpu_rules.cpp ${_c}/sema/npu_rules.cpp
          ${_hw_sources} ${_c}/support/error.cpp ${_c}/support/files.cpp ${_c}/support/strings.cpp
  LIBS fmt::fmt nlohmann_json::nlohmann_json
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/dgml)
if(TARGET fuzz_dgml)
  target_compile_definitions(fuzz_dgml PRIVATE DEEPGEMM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
