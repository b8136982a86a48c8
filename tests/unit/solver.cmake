dg_unit_test(solver SOURCES solve_test.cpp verify_test.cpp LIBS dg_solve dg_verify)
