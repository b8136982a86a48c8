/* Start-up for qemu-system-riscv32 -M virt -bios none: hart 0 starts here at 0x80000000.
 * Sets the global and stack pointers, installs a trap handler that fails the run, zeroes .bss,
 * calls main and exits through the test device with main's return value. */
  .section .text.start, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  csrr t0, mhartid
  bnez t0, park
  la sp, __stack_top
  la t0, trap_entry
  csrw mtvec, t0
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  call main
  call board_exit
park:
  wfi
  j park

  .balign 4
trap_entry:
  csrr a0, mcause
  csrr a1, mepc
  call board_trap
  j park
