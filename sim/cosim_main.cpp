// The co-simulation harness of a generated NPU top (Verilated with --prefix Vtop): an AXI-style
// DRAM model with latency and back-pressure that checks every burst (beat-aligned, 1..256 beats,
// never across 4 KB, inside the buffer it belongs to), a register port driver, and a bit-exact
// comparison of C with the reference GEMM computed here.
//
//   cosim --m M --n N --k K --a-type s8 --b-type s8 [--latency 100] [--stall 0.1] [--seed 1]
//         [--max-cycles N] [--trace FILE.vcd]
//
// Element types: sN / uN (signed / unsigned N-bit, N <= 16; stored in 1 byte up to 8 bits, else
// 2). C is int32, row-major, wrapping like the accumulators. Prints one summary line and exits
// 0 on PASS, 1 on a mismatch or a protocol error, 2 on bad arguments.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "Vtop.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace {

// ---- ports of any width ---------------------------------------------------------------------
template <typename T>
std::enable_if_t<std::is_integral_v<T>> put(T& port, const std::uint8_t* bytes, int n) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes, static_cast<std::size_t>(n));
  port = static_cast<T>(v);
}
template <std::size_t N>
void put(VlWide<N>& port, const std::uint8_t* bytes, int n) {
  for (std::size_t i = 0; i < N; ++i) {
    std::uint32_t w = 0;
    std::memcpy(&w, bytes + 4 * i, std::min<std::size_t>(4, static_cast<std::size_t>(n) - 4 * i));
    port[i] = w;
  }
}
template <typename T>
std::enable_if_t<std::is_integral_v<T>> get(const T& port, std::uint8_t* bytes, int n) {
  std::uint64_t v = port;
  std::memcpy(bytes, &v, static_cast<std::size_t>(n));
}
template <std::size_t N>
void get(const VlWide<N>& port, std::uint8_t* bytes, int n) {
  for (std::size_t i = 0; i < N; ++i) {
    std::uint32_t w = port[i];
    std::memcpy(bytes + 4 * i, &w, std::min<std::size_t>(4, static_cast<std::size_t>(n) - 4 * i));
  }
}

// ---- element formats and the reference ------------------------------------------------------
struct Format {
  int bits = 8, bytes = 1;
  bool is_signed = true;
};

bool parse_format(const std::string& s, Format& f) {
  if (s.size() < 2 || (s[0] != 's' && s[0] != 'u')) return false;
  char* end = nullptr;
  long b = std::strtol(s.c_str() + 1, &end, 10);
  if (*end != '\0' || b < 2 || b > 16) return false;
  f.bits = static_cast<int>(b);
  f.bytes = b <= 8 ? 1 : 2;
  f.is_signed = s[0] == 's';
  return true;
}

std::int64_t decode(const Format& f, const std::uint8_t* p) {
  std::uint32_t raw = p[0] | (f.bytes == 2 ? static_cast<std::uint32_t>(p[1]) << 8 : 0u);
  raw &= (1u << f.bits) - 1;
  if (f.is_signed && (raw >> (f.bits - 1)) != 0) return static_cast<std::int64_t>(raw) - (std::int64_t{1} << f.bits);
  return raw;
}

// ---- the DRAM model --------------------------------------------------------------------------
struct Buffer {
  const char* name;
  std::uint64_t base, bytes;
};

struct Dram {
  std::map<std::uint64_t, std::vector<std::uint8_t>> pages;  // sparse 4 KB pages
  std::uint8_t* at(std::uint64_t a) {
    auto& p = pages[a >> 12];
    if (p.empty()) p.assign(4096, 0);
    return &p[a & 4095];
  }
};

struct Burst {
  std::uint64_t addr;
  unsigned len, done = 0;
  std::uint64_t ready_at = 0;
};

struct Checker {
  int errors = 0;
  void fail(const char* what, std::uint64_t cycle, std::uint64_t addr, unsigned len) {
    if (errors++ < 10) std::fprintf(stderr, "cosim: cycle %" PRIu64 ": %s (address 0x%08" PRIx64 ", %u beats)\n", cycle, what, addr, len);
  }
};

void check_burst(Checker& ck, const Buffer& buf, std::uint64_t cycle, std::uint64_t addr, unsigned len, unsigned beat,
                 unsigned max_burst) {
  if (addr % beat != 0) ck.fail("burst not beat-aligned", cycle, addr, len);
  if (len < 1 || len > max_burst) ck.fail("burst length outside 1..256", cycle, addr, len);
  if ((addr & 4095) + static_cast<std::uint64_t>(len) * beat > 4096) ck.fail("burst crosses a 4 KB boundary", cycle, addr, len);
  if (addr < buf.base || addr + static_cast<std::uint64_t>(len) * beat > buf.base + ((buf.bytes + beat - 1) / beat) * beat)
    ck.fail(buf.name[0] == 'C' ? "write outside C" : buf.name[0] == 'A' ? "read outside A" : "read outside B", cycle, addr,
            len);
}

struct Args {
  std::int64_t m = 0, n = 0, k = 0;
  Format a, b;
  unsigned latency = 100;
  double stall = 0.0;
  std::uint64_t seed = 1, max_cycles = 0;
  std::string trace;
};

int usage(const char* why) {
  std::fprintf(stderr, "cosim: %s\nusage: cosim --m M --n N --k K --a-type sN|uN --b-type sN|uN [--latency C] [--stall P] [--seed S] [--max-cycles N] [--trace F.vcd]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  bool have_a = false, have_b = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + k).c_str());
    std::string v = argv[++i];
    char* end = nullptr;
    if (k == "--m") a.m = std::strtoll(v.c_str(), &end, 10);
    else if (k == "--n") a.n = std::strtoll(v.c_str(), &end, 10);
    else if (k == "--k") a.k = std::strtoll(v.c_str(), &end, 10);
    else if (k == "--latency") a.latency = static_cast<unsigned>(std::strtoul(v.c_str(), &end, 10));
    else if (k == "--stall") a.stall = std::strtod(v.c_str(), &end);
    else if (k == "--seed") a.seed = std::strtoull(v.c_str(), &end, 10);
    else if (k == "--max-cycles") a.max_cycles = std::strtoull(v.c_str(), &end, 10);
    else if (k == "--trace") a.trace = v;
    else if (k == "--a-type") { if (!parse_format(v, a.a)) return usage(("bad --a-type " + v).c_str()); have_a = true; }
    else if (k == "--b-type") { if (!parse_format(v, a.b)) return usage(("bad --b-type " + v).c_str()); have_b = true; }
    else return usage(("unknown option " + k).c_str());
    if (end != nullptr && *end != '\0') return usage(("bad number for " + k + ": " + v).c_str());
  }
  if (a.m <= 0 || a.n <= 0 || a.k <= 0 || !have_a || !have_b) return usage("--m, --n, --k, --a-type and --b-type are required");
  if (a.stall < 0 || a.stall > 0.9) return usage("--stall must be in [0, 0.9]");

  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vtop>(ctx.get());
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> vcd;
  if (!a.trace.empty()) {
    ctx->traceEverOn(true);
    vcd = std::make_unique<VerilatedVcdC>();
    top->trace(vcd.get(), 99);
    vcd->open(a.trace.c_str());
  }
#endif
  // The bus width, from the port: Verilator holds a 32-, 64- or wider data port in exactly that many bytes.
  const unsigned beat_bytes = static_cast<unsigned>(sizeof(top->a_r_data_i));
  const unsigned max_burst = 256;

  std::mt19937_64 rng(a.seed);
  const std::int64_t m = a.m, n = a.n, k = a.k;
  const Buffer A{"A", 0x10000000u, static_cast<std::uint64_t>(m * k * a.a.bytes)};
  const Buffer B{"B", 0x20000000u, static_cast<std::uint64_t>(k * n * a.b.bytes)};
  const Buffer C{"C", 0x30000000u, static_cast<std::uint64_t>(m * n * 4)};
  Dram dram;
  auto fill = [&](const Buffer& buf, const Format& f, std::int64_t count) {
    std::int64_t lo = f.is_signed ? -(std::int64_t{1} << (f.bits - 1)) : 0;
    std::int64_t hi = f.is_signed ? (std::int64_t{1} << (f.bits - 1)) - 1 : (std::int64_t{1} << f.bits) - 1;
    std::uniform_int_distribution<std::int64_t> d(lo, hi);
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint32_t v = static_cast<std::uint32_t>(d(rng));
      for (int byte = 0; byte < f.bytes; ++byte) *dram.at(buf.base + i * f.bytes + byte) = static_cast<std::uint8_t>(v >> (8 * byte));
    }
  };
  fill(A, a.a, m * k);
  fill(B, a.b, k * n);
  for (std::uint64_t i = 0; i < C.bytes; ++i) *dram.at(C.base + i) = 0xa5;  // not zero: every element must be written

  std::uint64_t cycle = 0;
  auto tick = [&] {
    top->clk_i = 0;
    top->eval();
#if VM_TRACE
    if (vcd) vcd->dump(static_cast<std::uint64_t>(2 * cycle));
#endif
    top->clk_i = 1;
    top->eval();
#if VM_TRACE
    if (vcd) vcd->dump(static_cast<std::uint64_t>(2 * cycle + 1));
#endif
    ++cycle;
  };
  // Register port: one access per cycle, read data the cycle after.
  auto reg_write = [&](unsigned off, std::uint32_t v) {
    top->reg_req_i = 1;
    top->reg_we_i = 1;
    top->reg_addr_i = off;
    top->reg_wdata_i = v;
    tick();
    top->reg_req_i = 0;
    top->reg_we_i = 0;
  };
  auto reg_read = [&](unsigned off) {
    top->reg_req_i = 1;
    top->reg_we_i = 0;
    top->reg_addr_i = off;
    tick();
    top->reg_req_i = 0;
    top->eval();
    return static_cast<std::uint32_t>(top->reg_rdata_o);
  };

  top->rst_ni = 0;
  top->clk_i = 0;
  top->eval();
  tick();
  tick();
  top->rst_ni = 1;
  tick();
  reg_write(0x014, static_cast<std::uint32_t>(A.base));
  reg_write(0x018, static_cast<std::uint32_t>(B.base));
  reg_write(0x01c, static_cast<std::uint32_t>(C.base));
  reg_write(0x020, static_cast<std::uint32_t>(m));
  reg_write(0x024, static_cast<std::uint32_t>(n));
  reg_write(0x028, static_cast<std::uint32_t>(k));
  const std::uint64_t start_cycle = cycle;
  reg_write(0x004, 1);

  Checker ck;
  std::deque<Burst> ar[2], aw;
  std::deque<std::vector<std::uint8_t>> w_early;  // write beats ahead of their address
  std::map<std::uint64_t, int> written;              // C bytes written, and how often
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  const Buffer* rbuf[2] = {&A, &B};
  std::uint64_t read_beats = 0, write_beats = 0;
  const std::uint64_t limit = a.max_cycles ? a.max_cycles : 2000000 + static_cast<std::uint64_t>(m * n * k);
  std::vector<std::uint8_t> bytes(beat_bytes);
  bool done = false;
  while (!done && cycle - start_cycle < limit) {
    // Inputs for this cycle, from the model's state (never from the design's outputs).
    const bool ar_ready[2] = {coin(rng) >= a.stall, coin(rng) >= a.stall};
    top->a_ar_ready_i = ar_ready[0];
    top->b_ar_ready_i = ar_ready[1];
    bool r_valid[2];
    for (int p = 0; p < 2; ++p) {
      r_valid[p] = !ar[p].empty() && cycle >= ar[p].front().ready_at && coin(rng) >= a.stall;
      if (r_valid[p]) {
        const Burst& bu = ar[p].front();
        for (unsigned i = 0; i < beat_bytes; ++i) bytes[i] = *dram.at(bu.addr + bu.done * beat_bytes + i);
      } else {
        std::fill(bytes.begin(), bytes.end(), 0);
      }
      if (p == 0) {
        top->a_r_valid_i = r_valid[0];
        put(top->a_r_data_i, bytes.data(), static_cast<int>(beat_bytes));
      } else {
        top->b_r_valid_i = r_valid[1];
        put(top->b_r_data_i, bytes.data(), static_cast<int>(beat_bytes));
      }
    }
    const bool aw_ready = coin(rng) >= a.stall, w_ready = coin(rng) >= a.stall;
    top->c_aw_ready_i = aw_ready;
    top->c_w_ready_i = w_ready;
    top->clk_i = 0;
    top->eval();
    // Handshakes as the design sees them before the edge.
    const bool ar_fire[2] = {top->a_ar_valid_o && ar_ready[0], top->b_ar_valid_o && ar_ready[1]};
    const std::uint64_t ar_addr[2] = {top->a_ar_addr_o, top->b_ar_addr_o};
    const unsigned ar_len[2] = {top->a_ar_len_o, top->b_ar_len_o};
    const bool r_fire[2] = {r_valid[0] && top->a_r_ready_o, r_valid[1] && top->b_r_ready_o};
    const bool aw_fire = top->c_aw_valid_o && aw_ready;
    const std::uint64_t aw_addr = top->c_aw_addr_o;
    const unsigned aw_len = top->c_aw_len_o;
    const bool w_fire = top->c_w_valid_o && w_ready;
    const bool w_last = top->c_w_last_o;
    std::vector<std::uint8_t> wdata(beat_bytes);
    if (w_fire) get(top->c_w_data_o, wdata.data(), static_cast<int>(beat_bytes));
    tick();
    for (int p = 0; p < 2; ++p) {
      if (ar_fire[p]) {
        check_burst(ck, *rbuf[p], cycle, ar_addr[p], ar_len[p], beat_bytes, max_burst);
        ar[p].push_back({ar_addr[p], ar_len[p], 0, cycle + a.latency});
      }
      if (r_fire[p]) {
        ++read_beats;
        if (++ar[p].front().done == ar[p].front().len) ar[p].pop_front();
      }
    }
    if (aw_fire) {
      check_burst(ck, C, cycle, aw_addr, aw_len, beat_bytes, max_burst);
      aw.push_back({aw_addr, aw_len, 0, 0});
    }
    if (w_fire) {
      ++write_beats;
      w_early.push_back(wdata);
      w_early.back().push_back(w_last ? 1 : 0);
    }
    while (!w_early.empty() && !aw.empty()) {
      Burst& bu = aw.front();
      const auto& wb = w_early.front();
      const std::uint64_t at = bu.addr + static_cast<std::uint64_t>(bu.done) * beat_bytes;
      for (unsigned i = 0; i < beat_bytes; ++i) {
        *dram.at(at + i) = wb[i];
        ++written[at + i];
      }
      const bool last_expected = bu.done + 1 == bu.len;
      if ((wb[beat_bytes] != 0) != last_expected) ck.fail("write data last flag does not end its burst", cycle, bu.addr, bu.len);
      w_early.pop_front();
      if (++bu.done == bu.len) aw.pop_front();
    }
    done = top->irq_o;
  }
  const std::uint64_t run_cycles = cycle - start_cycle;
  const std::uint32_t status = reg_read(0x008), error = reg_read(0x00c), hw_cycles = reg_read(0x010), bound = reg_read(0x02c);
  if (!done) ck.fail("the design did not finish", cycle, 0, 0);
  if ((status & 4u) != 0) ck.fail("the design reported ERROR", cycle, error, 0);
  if (!ar[0].empty() || !ar[1].empty() || !aw.empty() || !w_early.empty()) ck.fail("bursts left unfinished at DONE", cycle, 0, 0);

  // The reference, and the comparison.
  std::int64_t mismatches = 0, shown = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint32_t acc = 0;
      for (std::int64_t kk = 0; kk < k; ++kk)
        acc += static_cast<std::uint32_t>(decode(a.a, dram.at(A.base + (i * k + kk) * a.a.bytes)) *
                                          decode(a.b, dram.at(B.base + (kk * n + j) * a.b.bytes)));
      std::uint32_t got = 0;
      for (int byte = 0; byte < 4; ++byte) got |= static_cast<std::uint32_t>(*dram.at(C.base + (i * n + j) * 4 + byte)) << (8 * byte);
      if (got != acc) {
        ++mismatches;
        if (shown++ < 8) std::fprintf(stderr, "cosim: C[%" PRId64 "][%" PRId64 "] = %d, expected %d\n", i, j, static_cast<std::int32_t>(got), static_cast<std::int32_t>(acc));
      }
    }
  std::int64_t twice = 0, missing = 0;
  for (std::uint64_t i = 0; i < C.bytes; ++i) {
    auto it = written.find(C.base + i);
    if (it == written.end()) ++missing;
    else if (it->second > 1) ++twice;
  }
  if (missing) ck.fail("C bytes never written", cycle, static_cast<std::uint64_t>(missing), 0);
  if (twice) ck.fail("C bytes written more than once", cycle, static_cast<std::uint64_t>(twice), 0);
  const bool pass = mismatches == 0 && ck.errors == 0;
  const double macs = static_cast<double>(m) * n * k;
  std::printf("%s: M=%" PRId64 " N=%" PRId64 " K=%" PRId64 " A %c%d B %c%d seed %" PRIu64 ": %" PRIu64
              " cycles (CYCLES %u, plan estimate %u), %" PRId64 " mismatches, %d protocol errors, %.1f MACs/cycle, bus %.1f%% read %.1f%% write\n",
              pass ? "PASS" : "FAIL", m, n, k, a.a.is_signed ? 's' : 'u', a.a.bits, a.b.is_signed ? 's' : 'u', a.b.bits,
              a.seed, run_cycles, hw_cycles, bound, mismatches, ck.errors, macs / static_cast<double>(hw_cycles ? hw_cycles : 1),
              100.0 * static_cast<double>(read_beats) / (2.0 * static_cast<double>(hw_cycles ? hw_cycles : 1)),
              100.0 * static_cast<double>(write_beats) / static_cast<double>(hw_cycles ? hw_cycles : 1));
#if VM_TRACE
  if (vcd) vcd->close();
#endif
  top->final();
  return pass ? 0 : 1;
}
