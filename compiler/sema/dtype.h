// Element precisions of the .dgml language: fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 int8 int4 int4_e2m1
// int32, and custom integer widths sN (signed) / uN (unsigned), N in 1..32.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dg {

struct DType {
  enum class Kind { Float, Int };
  Kind kind = Kind::Float;
  int bits = 0;
  bool is_signed = true;
  std::string name;  // canonical name: "fp16", "int8", "s10", "u4"

  bool is_float() const { return kind == Kind::Float; }
  bool is_int() const { return kind == Kind::Int; }
  /// fp8_e4m3 and fp8_e5m2.
  bool is_fp8() const { return kind == Kind::Float && bits == 8; }
  /// int4/int8/int16/int32 and the standard float types are not custom.
  bool is_custom() const;
  /// Largest magnitude of a value (ints: max(|min|, max); floats: the format's max finite).
  double max_abs() const;
  bool operator==(const DType& o) const { return name == o.name; }
};

/// Elements of `t` in a run of `bytes` bytes that starts on an element boundary, rounded up to
/// whole elements: 16 bytes hold 8 fp16, 16 int8 or 32 int4 values. A row of a multiple of it
/// keeps the next row on a `bytes` boundary.
std::int64_t elements_per(const DType& t, std::int64_t bytes);

/// Parse a precision name; nullopt when it is not one.
std::optional<DType> parse_dtype(std::string_view name);

/// Whether `name` is one of the fp8 precisions (a plan's type names).
bool is_fp8(std::string_view name);

/// The standard names, for "did you mean" and messages.
const std::vector<std::string>& dtype_names();

}  // namespace dg
