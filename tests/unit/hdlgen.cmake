# The NPU generator alone: determinism, geometry, refusals (hdlgen_test.cpp).
dg_unit_test(hdlgen SOURCES hdlgen_test.cpp LIBS dg_hdlgen dg_solve dg_sema dg_dgml dg_hw)
# The RTL prover alone (hdl-gen/formal/): unrolling and k-induction on hand-written systems.
dg_unit_test(induction SOURCES induction_test.cpp LIBS dg_formal)
