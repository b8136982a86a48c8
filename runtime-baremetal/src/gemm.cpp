#include "gemm.h"

#include "plan_json.h"

namespace dg::bm {
namespace {

constexpr int64_t kMaxDim = 0x7FFFFFFF;

/// An element type of the plan: int4, int8, int16, int32, int64, or a custom width sN / uN.
struct Elem {
  DType type;
  uint8_t bits;
  bool is_signed;
};

/// int4 / int8 / int16 / int32 / int64 (signed, the whole container), or sN / uN with 2 <= N <= 16
/// (4 bits: a nibble, two elements per byte, as int4; else one byte up to 8 bits, two above); an
/// accumulator may also be int48 (held in an int64).
bool parse_dtype(const char* s, Elem* out) {
  const bool is_int = s[0] == 'i' && s[1] == 'n' && s[2] == 't';
  if (!is_int && s[0] != 's' && s[0] != 'u') return false;
  const char* d = is_int ? s + 3 : s + 1;
  uint32_t n = 0;
  const char* q = d;
  for (; *q >= '0' && *q <= '9' && q - d < 3; ++q) n = n * 10 + static_cast<uint32_t>(*q - '0');
  if (q == d || *q != '\0' || *d == '0') return false;
  if (is_int ? (n != 4 && n != 8 && n != 16 && n != 32 && n != 48 && n != 64) : (n < 2 || n > 16)) return false;
  out->type = n == 4    ? DType::Int4
              : n <= 8  ? DType::Int8
              : n <= 16 ? DType::Int16
              : n <= 32 ? DType::Int32
                        : DType::Int64;
  out->bits = static_cast<uint8_t>(n);
  out->is_signed = s[0] != 'u';
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
  bool integer(json::Span obj, const char* key, int64_t lo, int64_t hi, int64_t* out, bool optional = false) {
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
  bool dtype(const char* key, Elem* out) {
    char s[16];
    if (!string(key, s, sizeof s)) return false;
    if (parse_dtype(s, out)) return true;
    fail(PlanStatus::Unsupported, key, "");
    err->str("element type '")
        .str(s)
        .str(
            "' is not supported (int4, int8, int16, int32, int64, "
            "or sN/uN with 2 <= N <= 16)");
    return false;
  }
};

bool str_eq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/// "plan field 'lda': 11" and so on: the start of a message about a leading dimension.
ko::ErrorDetail& ld_field(ko::ErrorDetail* err, const char* key, int64_t ld) {
  return err->str("plan field '").str(key).str("': ").num(static_cast<uint64_t>(ld));
}

}  // namespace

PlanStatus read_plan(const uint8_t* text, size_t size, GemmPlan* out, ko::ErrorDetail* err) {
  Reader r{{reinterpret_cast<const char*>(text), size}, err};
  GemmPlan p{};
  // The whole text first: a plan that is not one well-formed JSON object is refused, as the
  // compiler's own reader (deepgemm inspect) refuses it, whatever the fields read below hold.
  size_t at = 0;
  if (json::validate(r.root, &at) != json::Result::Ok) {
    err->str("plan is not a well-formed JSON object (at byte ").num(at).str(")");
    return PlanStatus::Bad;
  }

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
      !r.integer(r.root, "tile_n", 1, kMaxDim, &tn) || !r.integer(r.root, "tile_k", 1, kMaxDim, &tk)) {
    return r.status;
  }
  r.integer(r.root, "batch", 1, kMaxDim, &batch, true);
  // A K range: "K" holds K_max, K_min is at most that.
  bool k_dynamic = false;
  int64_t k_min = K;
  r.boolean(r.root, "k_dynamic", &k_dynamic);
  int64_t k_align = 1;
  if (k_dynamic) {
    int64_t k_max;
    if (r.integer(r.root, "K_min", 1, K, &k_min)) r.integer(r.root, "K_max", K, K, &k_max);
    r.integer(r.root, "k_align", 1, 1 << 16, &k_align, true);
  }
  // An M range: "M" holds M_max, M_min is at most that.
  bool m_dynamic = false;
  int64_t m_min = M, m_align = 1;
  r.boolean(r.root, "m_dynamic", &m_dynamic);
  if (m_dynamic) {
    r.integer(r.root, "M_min", 1, M, &m_min);
    r.integer(r.root, "m_align", 1, 1 << 16, &m_align, true);
  }
  bool n_dynamic = false;
  int64_t n_min = N, n_align = 1;
  r.boolean(r.root, "n_dynamic", &n_dynamic);
  if (n_dynamic) {
    r.integer(r.root, "N_min", 1, N, &n_min);
    r.integer(r.root, "n_align", 1, 1 << 16, &n_align, true);
  }
  // An NPU design that realigns rows (the layout's byte_rows) takes rows and leading dimensions of
  // any whole number of bytes.
  json::Span layout;
  if (r.get(r.root, "npu_layout", &layout, true)) r.boolean(layout, "byte_rows", &p.byte_rows);
  // A column-major C, planned as its transpose Cᵀ = Bᵀ·Aᵀ.
  r.boolean(r.root, "operands_swapped", &p.swapped);
  if (r.status != PlanStatus::Ok) return r.status;
  Elem e[kOperands], acc;
  if (!r.dtype("a_type", &e[kA]) || !r.dtype("b_type", &e[kB]) || !r.dtype("acc_type", &acc) ||
      !r.dtype("c_type", &e[kC])) {
    return r.status;
  }
  p.acc = acc.type;
  p.acc_bits = acc.bits;
  for (const Elem& x : e) {
    if (x.bits == 48) {
      err->str("int48 is an accumulator type only; A, B and C are int4 to int64");
      return PlanStatus::Unsupported;
    }
  }
  if (e[kA].type == DType::Int64 || e[kB].type == DType::Int64) {
    err->str("A and B must be int4, int8, int16 or int32");
    return PlanStatus::Unsupported;
  }
  if (p.acc != DType::Int32 && p.acc != DType::Int64) {
    err->str("the accumulator must be int32, int48 or int64");
    return PlanStatus::Unsupported;
  }
  const DType c = e[kC].type;
  // An int8 or int16 C is requantized per column (the rq operand).
  p.epi_rq = (c == DType::Int8 || c == DType::Int16) && e[kC].bits == bits(c) && e[kC].is_signed;
  if (c != DType::Int32 && c != DType::Int64 && !p.epi_rq) {
    err->str("C must be int32 or int64, or int8 or int16 (requantized)");
    return PlanStatus::Unsupported;
  }
  // The fused epilogue: none, relu, bias or bias_relu.
  json::Span epi;
  if (r.get(r.root, "epilogue", &epi, true)) {
    char name[24];
    if (json::to_str(epi, name, sizeof name) != json::Result::Ok) {
      r.fail(PlanStatus::Bad, "epilogue", "not a short string");
      return r.status;
    }
    p.epi_bias = str_eq(name, "bias") || str_eq(name, "bias_relu");
    p.epi_relu = str_eq(name, "relu") || str_eq(name, "bias_relu");
    if (!p.epi_bias && !p.epi_relu && !str_eq(name, "none")) {
      err->str("plan field 'epilogue': '").str(name).str("' is not run here (none, relu, bias or bias_relu)");
      return PlanStatus::Unsupported;
    }
  }
  if (r.status != PlanStatus::Ok) return r.status;
  if (p.swapped && (p.epi_bias || p.epi_rq)) {
    err->str("plan field 'operands_swapped': a swapped plan (Cᵀ = Bᵀ·Aᵀ) has no bias or requantization, which ");
    err->str("would apply per row of C");
    return PlanStatus::Unsupported;
  }
  p.M = static_cast<uint32_t>(M);
  p.M_min = static_cast<uint32_t>(m_min);
  p.M_max = p.M;
  p.m_align = static_cast<uint32_t>(m_align);
  p.N_min = static_cast<uint32_t>(n_min);
  p.N_max = static_cast<uint32_t>(N);
  p.n_align = static_cast<uint32_t>(n_align);
  p.N = static_cast<uint32_t>(N);
  p.batch = static_cast<uint32_t>(batch);
  p.batch_max = p.batch;
  p.K_min = static_cast<uint32_t>(k_min);
  p.k_align = static_cast<uint32_t>(k_align);
  p.K_max = static_cast<uint32_t>(K);
  p.tile_m = min_u32(static_cast<uint32_t>(tm), p.M);
  p.tile_n = min_u32(static_cast<uint32_t>(tn), p.N);
  p.tile_k = min_u32(static_cast<uint32_t>(tk), p.K_max);

  // Layout from the plan's index object; row-major and packed when it says nothing. In a K-range
  // plan, an operand laid out along K (A row-major, B column-major) has packed rows or columns
  // whose stride is the run-time K, as in the generated NPU; the plan gives it as K_max.
  const char* major_key[kOperands] = {"a_row_major", "b_row_major", "c_row_major"};
  const char* ld_key[kOperands] = {"lda", "ldb", "ldc"};
  json::Span index;
  const bool has_index = r.get(r.root, "index", &index, true);
  if (r.status != PlanStatus::Ok) return r.status;
  for (uint32_t i = 0; i < kOperands; ++i) {
    OperandLayout& o = p.op[i];
    o.type = e[i].type;
    o.value_bits = e[i].bits;
    o.is_signed = e[i].is_signed;
    o.row_major = true;
    int64_t ld = 0;
    if (has_index) {
      r.boolean(index, major_key[i], &o.row_major);
      r.integer(index, ld_key[i], 0, kMaxDim, &ld, true);
      if (r.status != PlanStatus::Ok) return r.status;
    }
    // The inner dimension (along a row or column) at K_max.
    const uint32_t inner = i == kA   ? (o.row_major ? p.K_max : p.M)
                           : i == kB ? (o.row_major ? p.N : p.K_max)
                                     : (o.row_major ? p.N : p.M);
    o.ld_is_k = k_dynamic && i != kC && o.row_major == (i == kA);
    o.ld_is_n = n_dynamic && i != kA && o.row_major;
    // (A column-major A's columns follow the run-time M where the plan packs them; a padded plan
    // stride holds every M of the range.)
    o.ld_is_m = m_dynamic && i == kA && !o.row_major && (ld == 0 || ld == inner);
    if (ld == 0) ld = inner;
    if (ld < inner) {
      ld_field(err, ld_key[i], ld).str(" is smaller than the ").num(inner).str(" elements of a row or column");
      return PlanStatus::Bad;
    }
    if (o.ld_is_k && ld != inner) {
      ld_field(err, ld_key[i], ld);
      err->str(" pads a K-range operand (its rows or columns are packed: the stride is the run-time K)");
      return PlanStatus::Unsupported;
    }
    if (o.ld_is_n && ld != inner) {
      ld_field(err, ld_key[i], ld);
      err->str(" pads an N-range operand (its rows are packed: the stride is the run-time N)");
      return PlanStatus::Unsupported;
    }
    // Two 4-bit elements per byte: a row or column starts on a byte only after an even ld.
    if (o.type == DType::Int4 && (ld & 1) != 0) {
      ld_field(err, ld_key[i], ld);
      err->str(
          " is odd: 4-bit elements are packed two per byte, and each row or column must start "
          "on a byte");
      return PlanStatus::Unsupported;
    }
    o.ld = static_cast<uint32_t>(ld);
    o.plan_ld = o.ld;
    o.ld_set = false;
  }
  const uint32_t too_large = set_k(&p, p.K_max);
  if (too_large != kOperands) {
    err->str("operand ").chr(static_cast<char>('A' + too_large));
    err->str(" is larger than this target can address");
    return PlanStatus::Unsupported;
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

uint32_t set_m(GemmPlan* p, uint32_t m) {
  p->M = m;
  return set_k(p, p->K);
}

uint32_t set_n(GemmPlan* p, uint32_t n) {
  p->N = n;
  return set_k(p, p->K);
}

uint32_t set_k(GemmPlan* p, uint32_t k) {
  p->K = k;
  const uint32_t rows[kOperands] = {p->M, k, p->M};
  const uint32_t cols[kOperands] = {k, p->N, p->N};
  uint32_t too_large = kOperands;
  for (uint32_t i = kOperands; i-- > 0;) {
    OperandLayout& o = p->op[i];
    o.rows = rows[i];
    o.cols = cols[i];
    if (o.ld_is_k && !o.ld_set) o.ld = k;
    if (o.ld_is_n && !o.ld_set) o.ld = p->N;
    if (o.ld_is_m && !o.ld_set) o.ld = p->M;
    const uint32_t inner = o.row_major ? o.cols : o.rows;
    const uint32_t outer = o.row_major ? o.rows : o.cols;
    // One matrix: its last row (column) ends (outer - 1) × ld + inner elements in; the batch's
    // matrices are outer × ld elements apart (ld is even for 4-bit elements: whole bytes).
    const uint64_t elems = static_cast<uint64_t>(outer - 1) * o.ld + inner;                 // < 2^62
    const uint64_t stride = o.stride_set ? o.stride : static_cast<uint64_t>(outer) * o.ld;  // < 2^62
    // Counted in half-bytes first (one per 4-bit element, 16 per int64): below 2^63 while
    // elems < 2^59; an operand of 2^58 bytes or more is beyond any target anyway.
    const uint64_t half = bits(o.type) / 4;
    const uint64_t bytes = (elems * half + 1) / 2, stride_bytes = stride * half / 2;
    // The whole batch: (batch - 1) strides and the last matrix; batch < 2^31, stride < 2^59.
    const bool fits = (elems >> 59) == 0 && (stride >> 59) == 0 &&
                      (p->batch <= 1 || stride_bytes <= ((uint64_t{1} << 62) - bytes) / (p->batch - 1));
    const uint64_t total = fits ? uint64_t{p->batch - 1} * stride_bytes + bytes : 0;
    if (!fits || total > static_cast<uint64_t>(static_cast<size_t>(-1))) too_large = i;
    o.bytes = static_cast<size_t>(total);
    o.matrix_bytes = static_cast<size_t>(bytes);
    o.batch_stride = stride_bytes;
  }
  return too_large;
}

namespace {

// Little-endian containers: every target of the runtime is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the runtime reads little-endian elements");

/// An input element: the low value_bits bits of its container, sign- or zero-extended. A 4-bit
/// element is the low nibble of byte idx / 2 for an even idx, the high nibble for an odd one.
int64_t load(const OperandLayout& o, uintptr_t base, uint32_t row, uint32_t col) {
  const size_t idx = o.row_major ? static_cast<size_t>(row) * o.ld + col : static_cast<size_t>(col) * o.ld + row;
  uint32_t raw;
  switch (o.type) {
    case DType::Int4:
      raw = static_cast<uint32_t>(reinterpret_cast<const uint8_t*>(base)[idx / 2]) >> (idx % 2 * 4);
      break;
    case DType::Int8: raw = reinterpret_cast<const uint8_t*>(base)[idx]; break;
    case DType::Int16: raw = reinterpret_cast<const uint16_t*>(base)[idx]; break;
    default:  // int32 (inputs are never int64)
      raw = reinterpret_cast<const uint32_t*>(base)[idx];
      break;
  }
  const uint32_t shift = 32u - o.value_bits;
  raw <<= shift;
  return o.is_signed ? static_cast<int64_t>(static_cast<int32_t>(raw) >> shift) : static_cast<int64_t>(raw >> shift);
}

void store(const OperandLayout& o, uintptr_t base, uint32_t row, uint32_t col, int64_t v) {
  const size_t idx = o.row_major ? static_cast<size_t>(row) * o.ld + col : static_cast<size_t>(col) * o.ld + row;
  // C is int32 or int64 (read_plan refuses others); an int32 C of wider accumulators saturates.
  if (o.type == DType::Int32) {
    const int64_t lo = -2147483647 - 1, hi = 2147483647;
    reinterpret_cast<int32_t*>(base)[idx] = static_cast<int32_t>(v < lo ? lo : v > hi ? hi : v);
  } else {
    reinterpret_cast<int64_t*>(base)[idx] = v;
  }
}

}  // namespace

bool execute(const GemmPlan& p, const uintptr_t addr[kOperands], int64_t* acc, ko::ErrorDetail* err) {
  // The accumulator's range: sums outside it are an error (the solver proves they do not occur).
  const int64_t acc_max = p.acc_bits >= 64 ? int64_t{0x7FFFFFFFFFFFFFFF} : (int64_t{1} << (p.acc_bits - 1)) - 1;
  const int64_t acc_min = -acc_max - 1;
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
              // |x|, |y| <= 2^31 (inputs are at most 32 bits): the product fits int64; the sum is
              // checked.
              const bool over = __builtin_add_overflow(s, x * y, &s) || s < acc_min || s > acc_max;
              if (over) {
                err->str("accumulator overflow (int")
                    .num(p.acc_bits)
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
