# The co-simulation reference of the NPU's fused epilogue (sim/elements.h): bias, ReLU,
# requantization's rounding and saturation, on hand-worked values.
dg_unit_test(epilogue SOURCES epilogue_test.cpp LIBS)
target_include_directories(unit_epilogue PRIVATE ${PROJECT_SOURCE_DIR}/sim)
