#include "sema/dtype.h"

#include <charconv>
#include <cmath>
#include <numeric>

namespace dg {

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"fp32", "fp16",      "bf16",  "fp8_e4m3", "fp8_e5m2", "int8",
                                                 "int4", "int4_e2m1", "int16", "int32",    "int64"};
  return names;
}

bool DType::is_custom() const {
  if (is_float()) return false;
  return name[0] == 's' || name[0] == 'u';
}

double DType::max_abs() const {
  if (is_int()) {
    if (is_signed) return std::ldexp(1.0, bits - 1);
    return std::ldexp(1.0, bits) - 1;
  }
  if (name == "fp32") return 3.4028234663852886e38;
  if (name == "fp16") return 65504.0;
  if (name == "bf16") return 3.3895313892515355e38;
  if (name == "fp8_e4m3") return 448.0;
  if (name == "fp8_e5m2") return 57344.0;
  if (name == "int4_e2m1") return 6.0;
  return 0;
}

std::optional<DType> parse_dtype(std::string_view n) {
  auto f = [&](int bits) { return DType{DType::Kind::Float, bits, true, std::string(n)}; };
  auto i = [&](int bits, bool s) { return DType{DType::Kind::Int, bits, s, std::string(n)}; };
  if (n == "fp32") return f(32);
  if (n == "fp16") return f(16);
  if (n == "bf16") return f(16);
  if (n == "fp8_e4m3" || n == "fp8_e5m2") return f(8);
  if (n == "int4_e2m1") return f(4);
  if (n == "int64") return i(64, true);
  if (n == "int32") return i(32, true);
  if (n == "int16") return i(16, true);
  if (n == "int8") return i(8, true);
  if (n == "int4") return i(4, true);
  if (n.size() >= 2 && (n[0] == 's' || n[0] == 'u')) {
    int bits = 0;
    auto r = std::from_chars(n.data() + 1, n.data() + n.size(), bits);
    if (r.ec == std::errc() && r.ptr == n.data() + n.size() && n[1] != '0' && bits >= 1 && bits <= 32)
      return i(bits, n[0] == 's');
  }
  return std::nullopt;
}

std::int64_t elements_per(const DType& t, std::int64_t bytes) {
  return bytes * 8 / std::gcd(bytes * 8, static_cast<std::int64_t>(t.bits));
}

bool is_fp8(std::string_view name) {
  const std::optional<DType> d = parse_dtype(name);
  return d.has_value() && d->is_fp8();
}

}  // namespace dg
