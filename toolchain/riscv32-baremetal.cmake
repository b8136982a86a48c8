# CMake toolchain file for 32-bit RISC-V bare metal (rv32imac, ilp32) with clang-19 and ld.lld-19:
#   cmake -S . -B build/rv32 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchain/riscv32-baremetal.cmake \
#         -DDEEPGEMM_BUILD_COMPILER=OFF && ninja -C build/rv32 dg_baremetal
# builds the freestanding runtime (libdg_baremetal.a) for boards such as boards/qemu-virt-rv32
# (only that target: the hosted parts of the tree do not cross-compile).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_ASM_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_CXX_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_ASM_COMPILER_TARGET riscv32-unknown-elf)

set(_dg_rv32 "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
set(_dg_free "-ffreestanding -ffunction-sections -fdata-sections -nostdlibinc")
set(CMAKE_C_FLAGS_INIT "${_dg_rv32} ${_dg_free}")
set(CMAKE_CXX_FLAGS_INIT "${_dg_rv32} ${_dg_free} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${_dg_rv32}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -fuse-ld=lld --ld-path=ld.lld-19 -Wl,--gc-sections")

# Nothing links without a board's start-up code and linker script: check compilers with a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
