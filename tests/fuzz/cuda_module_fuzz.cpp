// Fuzz the CUDA runtime's module loading up to the driver: dg::rt::check_module validates the
// container, the launch record (operands against M, N, K), the PTX text and the cubin's ELF
// headers, and with a trusted key the signature, on arbitrary bytes. Invariants: no crash, no
// hang, no leak, no read outside the buffer (ASan); a failure always leaves a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "deepgemm/runtime.h"
#include "module_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so that ASan sees any read past the module's end.
  std::vector<uint8_t> bytes(data, data + size);
  for (const bool trusted : {false, true}) {
    static const unsigned char key[32] = {1, 2, 3};
    dgmm_trust_key(trusted ? key : nullptr);
    dg::rt::CheckedModule m;
    const dgmm_status s = dg::rt::check_module(bytes.data(), bytes.size(), "'fuzz.ko'", &m);
    if (s != DGMM_OK && std::strlen(dgmm_last_error()) == 0) std::abort();  // a refusal says why
    if (trusted && s == DGMM_OK) std::abort();                              // no signature by that key can be forged
  }
  dgmm_trust_key(nullptr);
  return 0;
}
