// The stimulus of the Icarus Verilog testbench (tb_npu.sv): random A and B from a seed, laid out
// in DRAM as the NPU reads them, and the C the reference GEMM expects, as $readmemh files of bus
// words.
//
//   stimulus --m M --n N --k K --a-type sN|uN --b-type sN|uN --bus-bits W [--seed S] [--out DIR]
//
// Element types: sN / uN (signed / unsigned N-bit, 2 <= N <= 16), stored as sim/elements.h says
// (a 1- or 2-byte container, 4-bit elements packed two per byte); A is M×K and B K×N, row-major. C is int32 or int64
// (--c-bits), row-major, from accumulators of --acc-bits (32: wrapping two's complement). The operands are drawn
// exactly as the Verilator harness (sim/cosim_main.cpp) draws them for the same seed: std::mt19937_64(seed), uniform
// over the type's range, all of A and then all of B.
//
// Writes DIR/a.hex, DIR/b.hex (the buffers' bytes, zero-padded to whole bus words) and DIR/c.hex
// (the expected C buffer), one W-bit word per line, most significant hex digit first, the word's
// byte i being the buffer's byte (word * W/8 + i). Prints one summary line; exits 0, or 2 on bad
// arguments, 1 when a file cannot be written.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../elements.h"

namespace {

using dg::sim::decode;
using dg::sim::draw;
using dg::sim::Format;
using dg::sim::parse_format;

// Writes the buffer as words of beat bytes; returns the number of words, or -1 on an I/O error.
long write_words(const std::string& path, const std::string& what, const std::vector<std::uint8_t>& buf,
                 unsigned beat) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return -1;
  const std::size_t words = (buf.size() + beat - 1) / beat;
  std::fprintf(f, "// %s: %zu words of %u bits\n", what.c_str(), words, 8 * beat);
  std::string line(2 * beat, '0');
  static const char hex[] = "0123456789abcdef";
  for (std::size_t w = 0; w < words; ++w) {
    for (unsigned i = 0; i < beat; ++i) {
      const std::size_t at = w * beat + i;
      const std::uint8_t byte = at < buf.size() ? buf[at] : 0;
      line[2 * (beat - 1 - i)] = hex[byte >> 4];
      line[2 * (beat - 1 - i) + 1] = hex[byte & 15];
    }
    std::fprintf(f, "%s\n", line.c_str());
  }
  const bool ok = std::ferror(f) == 0;
  return std::fclose(f) == 0 && ok ? static_cast<long>(words) : -1;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "stimulus: %s\nusage: stimulus --m M --n N --k K --a-type sN|uN --b-type sN|uN --bus-bits W [--seed S] "
               "[--out DIR]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t m = 0, n = 0, k = 0, bus_bits = 0;
  int acc_bits = 32, c_bits = 32;
  std::uint64_t seed = 1;
  Format fa, fb;
  bool have_a = false, have_b = false;
  std::string out = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + key).c_str());
    const std::string v = argv[++i];
    char* end = nullptr;
    if (key == "--m")
      m = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--n")
      n = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--k")
      k = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--bus-bits")
      bus_bits = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--seed")
      seed = std::strtoull(v.c_str(), &end, 10);
    else if (key == "--out")
      out = v;
    else if (key == "--acc-bits")
      acc_bits = static_cast<int>(std::strtol(v.c_str(), &end, 10));
    else if (key == "--c-bits")
      c_bits = static_cast<int>(std::strtol(v.c_str(), &end, 10));
    else if (key == "--a-type") {
      if (!parse_format(v, fa)) return usage(("bad --a-type " + v).c_str());
      have_a = true;
    } else if (key == "--b-type") {
      if (!parse_format(v, fb)) return usage(("bad --b-type " + v).c_str());
      have_b = true;
    } else {
      return usage(("unknown option " + key).c_str());
    }
    if (end != nullptr && *end != '\0') return usage(("bad number for " + key + ": " + v).c_str());
  }
  if (m <= 0 || n <= 0 || k <= 0 || !have_a || !have_b)
    return usage("--m, --n, --k, --a-type and --b-type are required");
  if (m > 65536 || n > 65536 || k > 65536 || m * n * k > (std::int64_t{1} << 34)) return usage("M, N, K too large");
  if (bus_bits < 8 || bus_bits > 4096 || bus_bits % 8 != 0)
    return usage("--bus-bits must be a multiple of 8 in 8..4096");
  if ((acc_bits != 32 && acc_bits != 48 && acc_bits != 64) || (c_bits != 32 && c_bits != 64))
    return usage("--acc-bits must be 32, 48 or 64 and --c-bits 32 or 64");
  const auto beat = static_cast<unsigned>(bus_bits / 8);
  const auto c_bytes = static_cast<std::size_t>(c_bits / 8);

  std::mt19937_64 rng(seed);
  const std::vector<std::uint8_t> a = draw(rng, fa, m * k);
  const std::vector<std::uint8_t> b = draw(rng, fb, k * n);

  // The reference GEMM: exact products, summed as the accumulators hold them, then C's elements
  // (dg::sim::c_element: sign-extended, or saturated into an int32 C of wider accumulators).
  std::vector<std::uint8_t> c(static_cast<std::size_t>(m * n) * c_bytes);
  std::uint32_t checksum = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint64_t sum = 0;
      for (std::int64_t kk = 0; kk < k; ++kk)
        sum += static_cast<std::uint64_t>(decode(fa, a.data(), i * k + kk) * decode(fb, b.data(), kk * n + j));
      const auto v = static_cast<std::uint64_t>(dg::sim::c_element(sum, acc_bits, c_bits));
      for (std::size_t byte = 0; byte < c_bytes; ++byte)
        c[static_cast<std::size_t>(i * n + j) * c_bytes + byte] = static_cast<std::uint8_t>(v >> (8 * byte));
      checksum = checksum * 31u + static_cast<std::uint32_t>(v);
    }

  char shape[160];
  std::snprintf(shape, sizeof shape, "M=%" PRId64 " N=%" PRId64 " K=%" PRId64 " A %c%d B %c%d seed %" PRIu64, m, n, k,
                fa.is_signed ? 's' : 'u', fa.bits, fb.is_signed ? 's' : 'u', fb.bits, seed);
  const long wa = write_words(out + "/a.hex", std::string("A of ") + shape, a, beat);
  const long wb = write_words(out + "/b.hex", std::string("B of ") + shape, b, beat);
  const long wc = write_words(out + "/c.hex", std::string("expected C of ") + shape, c, beat);
  if (wa < 0 || wb < 0 || wc < 0) {
    std::fprintf(stderr, "stimulus: cannot write the word files in %s\n", out.c_str());
    return 1;
  }
  std::printf("stimulus: %s: A %ld, B %ld, C %ld words of %" PRId64 " bits; C checksum 0x%08x\n", shape, wa, wb, wc,
              bus_bits, checksum);
  return 0;
}
