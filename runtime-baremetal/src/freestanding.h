// Included first by every source of the freestanding core: refuses a hosted build, so that nothing
// in the core can come to depend on an OS or a C library by accident.
#pragma once

#if __STDC_HOSTED__
#error "the DeepGEMM bare-metal runtime core must be compiled with -ffreestanding"
#endif
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "the DeepGEMM bare-metal runtime core must be compiled with -fno-exceptions"
#endif
#if defined(__cpp_rtti) || defined(__GXX_RTTI)
#error "the DeepGEMM bare-metal runtime core must be compiled with -fno-rtti"
#endif

#include <stddef.h>
#include <stdint.h>
