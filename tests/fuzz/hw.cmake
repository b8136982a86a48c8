# Hardware-model loader: arbitrary bytes -> from_text against the real schema. Only dg::UserError
# may come out; any other exception, a crash, a hang or a leak is a bug.
dg_fuzz_test(hw_model
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/hw_model_fuzz.cpp
          ${PROJECT_SOURCE_DIR}/compiler/hw/hw_model.cpp
          ${PROJECT_SOURCE_DIR}/compiler/hw/schema_check.cpp
          ${PROJECT_SOURCE_DIR}/compiler/support/error.cpp
          ${PROJECT_SOURCE_DIR}/compiler/support/files.cpp
          ${PROJECT_SOURCE_DIR}/compiler/support/strings.cpp
  LIBS fmt::fmt nlohmann_json::nlohmann_json
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/hw_model)
if(TARGET fuzz_hw_model)
  target_compile_definitions(fuzz_hw_model PRIVATE
    DEEPGEMM_HW_SCHEMA="${PROJECT_SOURCE_DIR}/hw-models/schema.json")
endif()
