#include "gemm.h"

#include "plan_json.h"

namespace dg::bm {
namespace {

constexpr int64_t kMaxDim = 0x7FFFFFFF;

bool parse_dtype(const char* s, DType* out) {
  auto eq = [](const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return *a == *b;
  };
  if (eq(s, "int8")) *out = DType::Int8;
  else if (eq(s, "int16")) *out = DType::Int16;
  else if (eq(s, "int32")) *out = DType::Int32;
  else if (eq(s, "int64")) *out = DType::Int64;
  else return false;
  return true;
}

struct Reader {
  json::Span root;
  ko::ErrorDetail* err;
  PlanStatus status = PlanStatus::Ok;

  bool fail(PlanStatus s, const char* field, const char* what) {
    if (status == PlanStatus::Ok) {
      status = s;
      err->str("plan field '").str(field).str("': ").str(what);
    }
    return false;
  }
  bool get(json::Span obj, const char* key, json::Span* v, bool optional) {
    const json::Result r = json::find(obj, key, v);
    if (r == json::Result::Ok) return true;
    if (r == json::Result::Missing && optional) return false;
    return fail(PlanStatus::Bad, key, json::describe(r));
  }
  bool integer(json::Span obj, const char* key, int64_t lo, int64_t hi, int64_t* out,
               bool optional = false) {
    json::Span v;
    if (!get(obj, key, &v, optional)) return false;
    const json::Result r = json::to_int(v, lo, hi, out);
    return r == json::Result::Ok || fail(PlanStatus::Bad, key, json::describe(r));
  }
  bool boolean(json::Span obj, const char* key, bool* out) {
    json::Span v;
    if (!get(obj, key, &v, true)) return false;
    const json::Result r = json::to_bool(v, out);
    return r == json::Result::Ok || fail(PlanStatus::Bad, key, json::describe(r));
  }
  bool string(const char* key, char* out, size_t cap) {
    json::Span v;
    if (!get(root, key, &v, false)) return false;
    const json::Result r = json::to_str(v, out, cap);
    return r == json::Result::Ok || fail(PlanStatus::Bad, key, json::describe(r));
  }
  bool dtype(const char* key, DType* out) {
    char s[16];
    if (!string(key, s, sizeof s)) return false;
    if (parse_dtype(s, out)) return true;
    fail(PlanStatus::Unsupported, key, "");
    err->str("element type '").str(s).str("' is not supported (int8, int16, int32, int64)");
    return false;
  }
};

bool str_eq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

}  // namespace

PlanStatus read_plan(const uint8_t* text, size_t size, GemmPlan* out, ko::ErrorDetail* err) {
  Reader r{{reinterpret_cast<const char*>(text), size}, err};
  GemmPlan p;

  char s[32];
  if (!r.string("format", s, sizeof s)) return r.status;
  if (!str_eq(s, "deepgemm-plan-1")) {
    err->str("plan format '").str(s).str("' is not deepgemm-plan-1");
    return PlanStatus::Unsupported;
  }
  if (!r.string("target_kind", s, sizeof s)) return r.status;
  if (!str_eq(s, "npu")) {
    err->str("plan is for a '").str(s).str("' target; this runtime runs NPU plans");
    return PlanStatus::WrongTarget;
  }
  int64_t M, N, K, tm, tn, tk, batch = 1;
  if (!r.integer(r.root, "M", 1, kMaxDim, &M) || !r.integer(r.root, "N", 1, kMaxDim, &N) ||
      !r.integer(r.root, "K", 1, kMaxDim, &K) || !r.integer(r.root, "tile_m", 1, kMaxDim, &tm) ||
      !r.integer(r.root, "tile_n", 1, kMaxDim, &tn) ||
      !r.integer(r.root, "tile_k", 1, kMaxDim, &tk)) {
    return r.status;
  }
  r.integer(r.root, "batch", 0, kMaxDim, &batch, true);
  if (r.status != PlanStatus::Ok) return r.status;
  if (batch != 1) {
    err->str("plan has batch ").num(static_cast<uint64_t>(batch)).str("; only batch 1 is supported");
    return PlanStatus::Unsupported;
  }
  DType a, b, c;
  if (!r.dtype("a_type", &a) || !r.dtype("b_type", &b) || !r.dtype("acc_type", &p.acc) ||
      !r.dtype("c_type", &c)) {
    return r.status;
  }
  if (a == DType::Int64 || b == DType::Int64) {
    err->str("A and B must be int8, int16 or int32");
    return PlanStatus::Unsupported;
  }
  if (p.acc != DType::Int32 && p.acc != DType::Int64) {
    err->str("the accumulator must be int32 or int64");
    return PlanStatus::Unsupported;
  }
  if (bits(c) < bits(p.acc)) {
    err->str("C (").num(bits(c)).str(" bits) is narrower than the accumulator (").num(bits(p.acc));
    err->str(" bits); narrowing epilogues are not supported");
    return PlanStatus::Unsupported;
  }
  p.M = static_cast<uint32_t>(M);
  p.N = static_cast<uint32_t>(N);
  p.K = static_cast<uint32_t>(K);
  p.tile_m = min_u32(static_cast<uint32_t>(tm), p.M);
  p.tile_n = min_u32(static_cast<uint32_t>(tn), p.N);
  p.tile_k = min_u32(static_cast<uint32_t>(tk), p.K);

  // Layout from the plan's index object; row-major and packed when it says nothing.
  const DType types[kOperands] = {a, b, c};
  const uint32_t rows[kOperands] = {p.M, p.K, p.M};
  const uint32_t cols[kOperands] = {p.K, p.N, p.N};
  const char* major_key[kOperands] = {"a_row_major", "b_row_major", "c_row_major"};
  const char* ld_key[kOperands] = {"lda", "ldb", "ldc"};
  json::Span index;
  const bool has_index = r.get(r.root, "index", &index, true);
  if (r.status != PlanStatus::Ok) return r.status;
  for (uint32_t i = 0; i < kOperands; ++i) {
    OperandLayout& o = p.op[i];
    o.rows = rows[i];
    o.cols = cols[i];
    o.type = types[i];
    o.row_major = true;
    int64_t ld = 0;
    if (has_index) {
      r.boolean(index, major_key[i], &o.row_major);
      r.integer(index, ld_key[i], 0, kMaxDim, &ld, true);
      if (r.status != PlanStatus::Ok) return r.status;
    }
    const uint32_t inner = o.row_major ? o.cols : o.rows;
    const uint32_t outer = o.row_major ? o.rows : o.cols;
    if (ld == 0) ld = inner;
    if (ld < inner) {
      err->str("plan field '").str(ld_key[i]).str("': ").num(static_cast<uint64_t>(ld));
      err->str(" is smaller than the ").num(inner).str(" elements of a row or column");
      return PlanStatus::Bad;
    }
    o.ld = static_cast<uint32_t>(ld);
    const uint64_t elems = static_cast<uint64_t>(outer - 1) * o.ld + inner;
    const uint64_t bytes = elems * (bits(o.type) / 8);  // < 2^31 * 2^31 * 8: no overflow
    if (bytes > static_cast<uint64_t>(static_cast<size_t>(-1))) {
      err->str("operand ").chr(static_cast<char>('A' + i)).str(" needs ").num(bytes);
      err->str(" bytes, more than this target can address");
      return PlanStatus::Unsupported;
    }
    o.bytes = static_cast<size_t>(bytes);
  }
  const uint64_t acc_bytes = static_cast<uint64_t>(p.tile_m) * p.tile_n * sizeof(int64_t);
  if (acc_bytes > (static_cast<uint64_t>(static_cast<size_t>(-1)) >> 1)) {
    err->str("the accumulator tile (").num(p.tile_m).str(" x ").num(p.tile_n);
    err->str(") is too large for this target");
    return PlanStatus::Unsupported;
  }
  p.acc_tile_bytes = static_cast<size_t>(acc_bytes);
  *out = p;
  return PlanStatus::Ok;
}

namespace {

int64_t load(const OperandLayout& o, uintptr_t base, uint32_t row, uint32_t col) {
  const size_t idx = o.row_major ? static_cast<size_t>(row) * o.ld + col
                                 : static_cast<size_t>(col) * o.ld + row;
  switch (o.type) {
    case DType::Int8:
      return reinterpret_cast<const int8_t*>(base)[idx];
    case DType::Int16:
      return reinterpret_cast<const int16_t*>(base)[idx];
    case DType::Int32:
      return reinterpret_cast<const int32_t*>(base)[idx];
    case DType::Int64:
      return reinterpret_cast<const int64_t*>(base)[idx];
  }
  return 0;
}

void store(const OperandLayout& o, uintptr_t base, uint32_t row, uint32_t col, int64_t v) {
  const size_t idx = o.row_major ? static_cast<size_t>(row) * o.ld + col
                                 : static_cast<size_t>(col) * o.ld + row;
  switch (o.type) {
    case DType::Int8:
      reinterpret_cast<int8_t*>(base)[idx] = static_cast<int8_t>(v);
      break;
    case DType::Int16:
      reinterpret_cast<int16_t*>(base)[idx] = static_cast<int16_t>(v);
      break;
    case DType::Int32:
      reinterpret_cast<int32_t*>(base)[idx] = static_cast<int32_t>(v);
      break;
    case DType::Int64:
      reinterpret_cast<int64_t*>(base)[idx] = v;
      break;
  }
}

}  // namespace

bool execute(const GemmPlan& p, const uintptr_t addr[kOperands], int64_t* acc,
             ko::ErrorDetail* err) {
  const bool acc32 = p.acc == DType::Int32;
  for (uint32_t m0 = 0; m0 < p.M; m0 += p.tile_m) {
    const uint32_t mt = min_u32(p.tile_m, p.M - m0);
    for (uint32_t n0 = 0; n0 < p.N; n0 += p.tile_n) {
      const uint32_t nt = min_u32(p.tile_n, p.N - n0);
      for (uint32_t i = 0; i < mt * nt; ++i) acc[i] = 0;
      for (uint32_t k0 = 0; k0 < p.K; k0 += p.tile_k) {
        const uint32_t kt = min_u32(p.tile_k, p.K - k0);
        for (uint32_t i = 0; i < mt; ++i) {
          for (uint32_t j = 0; j < nt; ++j) {
            int64_t s = acc[i * nt + j];
            for (uint32_t kk = 0; kk < kt; ++kk) {
              const int64_t x = load(p.op[kA], addr[kA], m0 + i, k0 + kk);
              const int64_t y = load(p.op[kB], addr[kB], k0 + kk, n0 + j);
              // |x|, |y| <= 2^31: the product fits int64; the sum is checked.
              const bool over = __builtin_add_overflow(s, x * y, &s) ||
                                (acc32 && (s < -2147483647 - 1 || s > 2147483647));
              if (over) {
                err->str("accumulator overflow (")
                    .str(acc32 ? "int32" : "int64")
                    .str(") at C[")
                    .num(m0 + i)
                    .str("][")
                    .num(n0 + j)
                    .str("], k = ")
                    .num(k0 + kk);
                return false;
              }
            }
            acc[i * nt + j] = s;
          }
        }
      }
      for (uint32_t i = 0; i < mt; ++i) {
        for (uint32_t j = 0; j < nt; ++j) store(p.op[kC], addr[kC], m0 + i, n0 + j, acc[i * nt + j]);
      }
    }
  }
  return true;
}

}  // namespace dg::bm
