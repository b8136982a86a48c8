# The structural placement of seeded bugs (tests/support/rtl_mutate.h) that the formal and
# co-simulation mutants rely on: white space aside, exactly one match, assignments by their signal.
dg_unit_test(rtl_mutate SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rtl_mutate_test.cpp LIBS dg_rtl_mutate)
# The tool rewrites a regular file only: /dev/null is refused, not replaced.
add_test(NAME unit.rtl_mutate_refuses_device COMMAND rtl_mutate /dev/null --assign a 1'b0)
set_tests_properties(unit.rtl_mutate_refuses_device PROPERTIES LABELS unit
                     PASS_REGULAR_EXPRESSION "/dev/null: not a regular file")
