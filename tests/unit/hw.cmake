# Hardware models: the four shipped models, the loader's checks and its error messages.
dg_unit_test(hw SOURCES hw_model_test.cpp LIBS dg_hw)
# The NPU layout and its cycle estimate, against a recorded table of co-simulated cycles.
dg_unit_test(npu_layout SOURCES npu_layout_test.cpp LIBS dg_hw)
