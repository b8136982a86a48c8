# cmake -DQEMU=qemu-system-riscv32 -DELF=firmware.elf -P run_qemu.cmake
# Boots the firmware; passes when qemu exits 0 (test device) and the pass string was printed.
execute_process(
  COMMAND ${QEMU} -M virt -bios none -nographic -monitor none -kernel ${ELF}
  TIMEOUT 50 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "qemu exited with '${rc}'")
endif()
if(NOT out MATCHES "DGMM-BAREMETAL-PASS")
  message(FATAL_ERROR "no pass string in the output")
endif()
