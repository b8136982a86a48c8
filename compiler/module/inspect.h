// module::inspect: what a .ko module holds, for `deepgemm inspect` and for tests.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dg::module {

/// Validates `bytes` (the contents of `file`) with the module reader and prints on `out` the file,
/// its size, ABI, target, flags, header checksum, a table of sections (kind, name, offset, size,
/// CRC32, all verified), the NPU register table when there is one (MMIO base, design ID, one line
/// per register: offset, name, access) and a summary of the plan: its top-level keys with their
/// scalar values (objects and arrays by their size). Returns 0; or 1 after printing
/// `file: error: <why>` on `err` when the module is invalid, its register table is invalid
/// (<deepgemm/npu_regmap.h>) or its plan is not valid JSON.
/// With `trusted_key` (32 bytes), exit 1 unless the module is signed by that key and unaltered.
/// The signature line says who signed (the public key) and whether the signature verifies.
int inspect(const std::vector<uint8_t>& bytes, const std::string& file, std::ostream& out, std::ostream& err,
            const uint8_t* trusted_key = nullptr);

}  // namespace dg::module
