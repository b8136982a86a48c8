# Packed 4-bit weights: the shared packer and layout (<deepgemm/w4_pack.h>) and the launch
# record's packed-layout field.
dg_unit_test(w4_pack SOURCES w4_pack_test.cpp LIBS)
target_include_directories(unit_w4_pack PRIVATE ${PROJECT_SOURCE_DIR}/runtime-baremetal/include)
