// --detect-gpu: ask the CUDA driver (libcuda, loaded at run time) what GPU is here.
#pragma once

#include <ostream>

namespace dg::driver {

/// Prints the GPUs found (name, sm_XX, SM count, memory) and returns 0, or prints
/// "no NVIDIA GPU found: <reason>" and returns 2.
int detect_gpu(std::ostream& out, std::ostream& err);

}  // namespace dg::driver
