# The structural placement of seeded bugs (tests/support/rtl_mutate.h) that the formal and
# co-simulation mutants rely on: white space aside, exactly one match, assignments by their signal.
dg_unit_test(rtl_mutate SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rtl_mutate_test.cpp LIBS dg_rtl_mutate)
