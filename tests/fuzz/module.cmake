# The .ko module reader (runtime-baremetal/include/deepgemm/module_format.h) and the NPU register
# table reader (npu_regmap.h) on arbitrary bytes.
dg_fuzz_test(module_reader
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/module_reader_fuzz.cpp
  LIBS fmt::fmt
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime-baremetal/include
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/module_reader)
