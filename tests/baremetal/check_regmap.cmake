# cmake -DCMD=deepgemm -DKO=gemm_int8.ko -P check_regmap.cmake
# The module compiled from an NPU spec carries the generated top's register table, and inspect
# decodes it: the MMIO base of hw-models/npu16.json and each register at its offset with its access.
execute_process(COMMAND ${CMD} inspect ${KO} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "inspect failed (${rc}):\n${out}${err}")
endif()
set(want
    "registers: [0-9]+ \\(base 0x40000000, design id 0x[0-9a-f]+, 32-bit bus addresses\\)\n"
    "\n  0x000  ID +ro\n" "\n  0x004  CTRL +wo\n" "\n  0x008  STATUS +ro\n" "\n  0x00c  ERROR +ro\n"
    "\n  0x010  CYCLES +ro\n" "\n  0x014  A_BASE +rw\n" "\n  0x018  B_BASE +rw\n" "\n  0x01c  C_BASE +rw\n"
    "\n  0x020  M +rw\n" "\n  0x024  N +rw\n" "\n  0x028  K +rw\n" "\n  0x02c  BOUND +ro\n"
    "\n  0x030  A_BASE_HI +rw\n" "\n  0x034  B_BASE_HI +rw\n" "\n  0x038  C_BASE_HI +rw\n"
    "\n  0x04c  LDA +rw\n" "\n  0x050  LDB +rw\n" "\n  0x054  LDC +rw\n")
foreach(line ${want})
  if(NOT out MATCHES "${line}")
    message(FATAL_ERROR "inspect output lacks '${line}':\n${out}")
  endif()
endforeach()
