# The folders' walls (DESIGN.md), checked on the sources: Z3 only behind compiler/smt/.
add_test(NAME unit.z3_wall COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/z3_wall.cmake)
set_tests_properties(unit.z3_wall PROPERTIES LABELS unit)
# The sources are formatted as .clang-format says (clang-format 14, which toolchain/bootstrap.sh
# installs): one style in every file.
find_program(DG_CLANG_FORMAT NAMES clang-format-14)
add_test(NAME unit.format COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DCLANG_FORMAT=${DG_CLANG_FORMAT}
                                  -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/format.cmake)
set_tests_properties(unit.format PROPERTIES LABELS unit)
