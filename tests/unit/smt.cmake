dg_unit_test(induction SOURCES induction_test.cpp LIBS dg_smt)
