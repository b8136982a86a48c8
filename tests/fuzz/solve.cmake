# The front end through the solver on small budgets: specs that parse are checked and solved.
# Every compiler source on that path is compiled here, instrumented; Z3 is linked as a library.
set(_c ${PROJECT_SOURCE_DIR}/compiler)
file(GLOB _solve_fuzz_sources ${_c}/dgml/*.cpp ${_c}/sema/*.cpp ${_c}/hw/*.cpp ${_c}/plan/*.cpp ${_c}/smt/*.cpp
     ${_c}/solve/*.cpp ${_c}/support/*.cpp)
dg_fuzz_test(solve
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/solve_fuzz.cpp ${_solve_fuzz_sources}
  LIBS fmt::fmt nlohmann_json::nlohmann_json z3::libz3
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/solve)
if(TARGET fuzz_solve)
  target_compile_definitions(fuzz_solve PRIVATE DEEPGEMM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
