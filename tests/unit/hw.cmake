# Hardware models: the four shipped models, the loader's checks and its error messages.
dg_unit_test(hw SOURCES hw_model_test.cpp LIBS dg_hw)
