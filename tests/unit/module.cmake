# The .ko module format: writer, reader and inspect (module_test.cpp), the NPU register table of
# the npu_regmap section and its writer in hdl-gen (npu_regmap_test.cpp), plus a build-time check
# that both format headers compile freestanding without any C++ standard library header.
dg_unit_test(module SOURCES module_test.cpp LIBS dg_module)
dg_unit_test(npu_regmap SOURCES npu_regmap_test.cpp LIBS dg_module dg_hdlgen)

if(CMAKE_CXX_COMPILER_ID MATCHES "Clang|GNU")
  set(_fs_src ${CMAKE_CURRENT_SOURCE_DIR}/module_format_freestanding.cpp)
  set(_fs_flags -std=c++20 -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics
      -nostdinc++ -Wall -Wextra -Wpedantic -Werror
      -I${PROJECT_SOURCE_DIR}/runtime-baremetal/include)
  set(_fs_variants host)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Only the compiler's own <stdint.h>/<stddef.h>; and once for a 32-bit bare-metal target.
    list(APPEND _fs_flags -nostdlibinc)
    list(APPEND _fs_variants rv32)
  endif()
  set(_fs_objects)
  foreach(variant ${_fs_variants})
    set(_obj ${CMAKE_CURRENT_BINARY_DIR}/module_format_freestanding_${variant}.o)
    set(_extra)
    if(variant STREQUAL "rv32")
      set(_extra --target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32)
    endif()
    add_custom_command(OUTPUT ${_obj}
      COMMAND ${CMAKE_CXX_COMPILER} ${_fs_flags} ${_extra} -c ${_fs_src} -o ${_obj}
      DEPENDS ${_fs_src} ${PROJECT_SOURCE_DIR}/runtime-baremetal/include/deepgemm/module_format.h
              ${PROJECT_SOURCE_DIR}/runtime-baremetal/include/deepgemm/npu_regmap.h
              ${PROJECT_SOURCE_DIR}/runtime-baremetal/include/deepgemm/w4_pack.h
      COMMENT "Compiling module_format.h freestanding (${variant})" VERBATIM)
    list(APPEND _fs_objects ${_obj})
  endforeach()
  add_custom_target(unit_module_freestanding DEPENDS ${_fs_objects})
  add_dependencies(unit_module unit_module_freestanding)
endif()

# Module signatures: keygen and signing (libsodium), the shared freestanding check, and the
# bare-metal runtime's refusal under a trusted key.
dg_unit_test(sign SOURCES sign_test.cpp LIBS dg_module dg_baremetal dg_baremetal_port_host sodium)
