# The C++ flags of every co-simulation build (build_model.cmake) and of the Verilator run-time
# library they share (verilated_runtime.cmake): one place, so that the shared objects are
# compiled exactly as each build would compile them. A build adds only its design's -D and -I
# flags, which the run-time library does not read.
set(DG_COSIM_CXXFLAGS "-std=c++20 -O1")
