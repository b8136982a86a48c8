# compile --from-plan's path: saved plans read, matched to a spec and solved with their schedule.
set(_c ${PROJECT_SOURCE_DIR}/compiler)
file(GLOB _plan_fuzz_sources ${_c}/dgml/*.cpp ${_c}/sema/*.cpp ${_c}/hw/*.cpp ${_c}/plan/*.cpp ${_c}/smt/*.cpp
     ${_c}/solve/*.cpp ${_c}/support/*.cpp)
dg_fuzz_test(plan
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/plan_fuzz.cpp ${_plan_fuzz_sources}
  LIBS fmt::fmt nlohmann_json::nlohmann_json z3::libz3
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/plan)
if(TARGET fuzz_plan)
  target_compile_definitions(fuzz_plan PRIVATE DEEPGEMM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
