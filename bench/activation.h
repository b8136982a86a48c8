// The benchmark's unfused epilogue: bias and activation as a separate pass over C (activation.cu).
#pragma once

#include <cuda_runtime.h>

namespace dg_bench {

enum Activation : int { kNone = 0, kRelu = 1, kGelu = 2, kGeluTanh = 3, kSilu = 4 };

/// Adds `bias` (N values in C's type, or null) and applies `act` in fp32 to the row-major M×N fp16
/// (or bf16) `c` in place, on `stream`. False when N is not a multiple of 8 or the launch failed.
bool activation_pass(void* c, const void* bias, int m, int n, bool bf16, int act, cudaStream_t stream);

}  // namespace dg_bench
