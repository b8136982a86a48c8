# The .ko module reader (runtime-baremetal/include/deepgemm/module_format.h) and the NPU register
# table reader (npu_regmap.h) on arbitrary bytes.
dg_fuzz_test(module_reader
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/module_reader_fuzz.cpp
  LIBS fmt::fmt
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime-baremetal/include
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/module_reader)
# The CUDA runtime's module loading up to the driver (runtime-cuda/src/module_check.cpp).
dg_fuzz_test(cuda_module
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cuda_module_fuzz.cpp
          ${PROJECT_SOURCE_DIR}/runtime-cuda/src/module_check.cpp
          ${PROJECT_SOURCE_DIR}/runtime-cuda/src/last_error.cpp
          ${PROJECT_SOURCE_DIR}/runtime-baremetal/src/ed25519.cpp
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime-baremetal/include ${PROJECT_SOURCE_DIR}/runtime-cuda/include
           ${PROJECT_SOURCE_DIR}/runtime-cuda/src
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/cuda_module)
if(TARGET fuzz_cuda_module)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/runtime-baremetal/src/ed25519.cpp TARGET_DIRECTORY fuzz_cuda_module
                              PROPERTIES COMPILE_OPTIONS "-ffreestanding;-fno-exceptions;-fno-rtti")
endif()
# The packed 4-bit weight layout (w4_pack.h): header checks and unpack on arbitrary bytes, and
# pack/unpack round trips of arbitrary weights.
dg_fuzz_test(w4_pack
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/w4_pack_fuzz.cpp
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime-baremetal/include
  CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/w4_pack)
