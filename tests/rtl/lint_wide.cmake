# cmake -DCMD=deepgemm -DSRC=<source dir> -DSPEC=x.dgml -DMODEL=x.json -DBITS=N -DWORK=dir -P lint_wide.cmake
# The design of a model with N-bit bus addresses: its AXI4 ports and AGU addresses are N bits wide,
# it is lint-clean under verilator -Wall (with the protocol checkers bound too, and the proofs'
# tops at that width), and its register header and .svh give the width.
include(${CMAKE_CURRENT_LIST_DIR}/emit_design.cmake)  # sets top and files
math(EXPR hi "${BITS} - 1")
file(READ ${WORK}/v/${top}.v text)
foreach(want "output logic \\[${hi}:0\\] +m_axi_a_araddr_o" "output logic \\[${hi}:0\\] +m_axi_c_awaddr_o"
             "localparam int AddrW = ${BITS},")
  if(NOT text MATCHES "${want}")
    message(FATAL_ERROR "${top}.v lacks '${want}'")
  endif()
endforeach()
file(READ ${WORK}/v/${top}_agu_a.v text)
if(NOT text MATCHES "output logic \\[${hi}:0\\] req_addr_o")
  message(FATAL_ERROR "the AGU's address is not ${BITS} bits")
endif()
file(READ ${WORK}/v/${top}_regs.h text)
if(NOT text MATCHES "_BUS_ADDR_BITS ${BITS}u" OR NOT text MATCHES "_A_BASE_HI_OFFSET 0x030u")
  message(FATAL_ERROR "${top}_regs.h lacks the bus address width or A_BASE_HI")
endif()
file(READ ${WORK}/v/${top}_regs.svh text)
if(NOT text MATCHES "`define DG_REGS_ADDR_BITS ${BITS}\n")
  message(FATAL_ERROR "${top}_regs.svh lacks the bus address width")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/verilator_lint.cmake)
dg_verilator_lint(FILES ${files} LINTS "--top-module,${top}" "--top-module,${top},-DDG_AXI4_CHECK"
                  "--top-module,dg_axi_rd_proof,-GAddrW=${BITS}" "--top-module,dg_axi_wr_proof,-GAddrW=${BITS}")
