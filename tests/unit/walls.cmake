# The folders' walls (DESIGN.md), checked on the sources: Z3 only behind compiler/smt/.
add_test(NAME unit.z3_wall COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/z3_wall.cmake)
set_tests_properties(unit.z3_wall PROPERTIES LABELS unit)
