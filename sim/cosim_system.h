// The simulated system of the co-simulation harness: the Verilated NPU top, its clock, the AXI4
// DRAM model serving its masters (latency, back-pressure, injected errors, every burst checked),
// the AXI4-Lite register port, and the checks and counters the report reads. sim/cosim_main.cpp
// drives it; its header comment says what the model does.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Vtop.h"
#include "cosim_options.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace dg::sim {

// ---- ports of any width -------------------------------------------------------------------------
template <typename T>
std::enable_if_t<std::is_integral_v<T>> put(T& port, const std::uint8_t* bytes, unsigned n) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes, n);
  port = static_cast<T>(v);
}
template <std::size_t N>
void put(VlWide<N>& port, const std::uint8_t* bytes, unsigned n) {
  for (std::size_t i = 0; i < N; ++i) {
    std::uint32_t w = 0;
    std::memcpy(&w, bytes + 4 * i, std::min<std::size_t>(4, n - 4 * i));
    port[i] = w;
  }
}
template <typename T>
std::enable_if_t<std::is_integral_v<T>> get(const T& port, std::uint8_t* bytes, unsigned n) {
  std::uint64_t v = port;
  std::memcpy(bytes, &v, n);
}
template <std::size_t N>
void get(const VlWide<N>& port, std::uint8_t* bytes, unsigned n) {
  for (std::size_t i = 0; i < N; ++i) {
    std::uint32_t w = port[i];
    std::memcpy(bytes + 4 * i, &w, std::min<std::size_t>(4, n - 4 * i));
  }
}

// ---- the DRAM model and the simulation ------------------------------------------------------------------
struct Buffer {
  const char* name = "";
  std::uint64_t base = 0, bytes = 0;
  std::uint64_t row = 0, ld = 0;  // a strided operand's row bytes and leading dimension in bytes (0: packed)
  // A batch's matrices further apart than one matrix: the bytes from one to the next, and one
  // matrix's extent (0, 0: the matrices one after another, as one taller matrix).
  std::uint64_t matrix_stride = 0, matrix_bytes = 0;
  /// Whether byte a lies between rows (a strided operand's gaps), or between matrices.
  bool in_gap(std::uint64_t a) const {
    if (a < base) return false;
    std::uint64_t off = a - base;
    if (matrix_stride != 0 && matrix_stride > matrix_bytes) {
      off %= matrix_stride;
      if (off >= matrix_bytes) return true;
    }
    return ld != 0 && ld != row && off % ld >= row;
  }
  /// Whether a beat of [addr, end) lies wholly between rows: a burst covers rows' bytes only, and
  /// the beats it moves at a row's ends (rows that are not whole beats) hold the row's bytes too.
  bool beat_in_gap(std::uint64_t addr, std::uint64_t end, unsigned beat) const {
    if ((ld == 0 || ld == row) && (matrix_stride == 0 || matrix_stride <= matrix_bytes)) return false;
    for (std::uint64_t b = addr; b < end; b += beat) {
      bool all = true;
      for (std::uint64_t a = b; a < b + beat && all; ++a) all = in_gap(a);
      if (all) return true;
    }
    return false;
  }
};

struct Burst {
  std::uint64_t addr;
  unsigned len, done;
  std::uint64_t ready_at;
  unsigned id = 0;
  unsigned resp = 0;     // the response: 0 OKAY, 2 SLVERR
  bool no_last = false;  // its last beat comes without RLAST (--inject no-rlast)
};

/// A register access over AXI4-Lite, carried out by Sim::step.
struct RegOp {
  bool write = false;
  unsigned addr = 0;
  std::uint32_t data = 0, rdata = 0;
  unsigned resp = 0;
  bool a_done = false, w_done = false, done = false;
};

class Sim {
 public:
  explicit Sim(const Options& o) : opt_(o), rng_(o.seed ^ 0x9e3779b97f4a7c15ull) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->errorLimit(1 << 30);  // a broken AXI4 rule ($error in the checker) is counted, the run goes on
    top_ = std::make_unique<Vtop>(ctx_.get());
#if VM_TRACE
    if (!o.trace.empty()) {
      ctx_->traceEverOn(true);
      vcd_ = std::make_unique<VerilatedVcdC>();
      top_->trace(vcd_.get(), 99);
      vcd_->open(o.trace.c_str());
    }
#else
    if (!o.trace.empty())
      std::fprintf(stderr, "cosim: warning: --trace ignored (the model was Verilated without --trace)\n");
#endif
    beat_ = static_cast<unsigned>(sizeof(top_->m_axi_a_rdata_i));  // the data ports are the bus's bytes wide
    rbeat_.resize(beat_);
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    step();
    step();
    top_->rst_ni = 1;
    step();
  }
  ~Sim() {
#if VM_TRACE
    if (vcd_) vcd_->close();
#endif
    top_->final();
  }

  unsigned beat() const { return beat_; }
  std::uint64_t cycle() const { return cycle_; }
  bool irq() const { return top_->irq_o; }
  int errors() const { return errors_; }
  /// Rules the bound AXI4 protocol checkers found broken (each reported on stdout by $error).
  int protocol_errors() const { return ctx_->errorCount(); }
  std::uint64_t read_beats() const { return read_beats_; }
  std::uint64_t write_beats() const { return write_beats_; }
  std::uint64_t bursts(int p) const { return bursts_[p]; }
  std::uint64_t last_start() const { return start_cycle_; }
  /// START writes so far.
  unsigned starts() const { return starts_; }

  /// The fused epilogue's operands, read on B's channels as well.
  void set_epi_buffers(const Buffer& bias, const Buffer& rq) {
    epi_buf_[0] = bias;
    epi_buf_[1] = rq;
  }
  void set_buffers(const Buffer& a, const Buffer& b, const Buffer& c) {
    buf_[0] = a;
    buf_[1] = b;
    buf_[2] = c;
    written_.assign(c.bytes, 0);
  }
  std::uint8_t* at(std::uint64_t a) {
    auto& p = pages_[a >> 12];
    if (p.empty()) p.assign(4096, 0);
    return &p[a & 4095];
  }
  /// How often each byte of C was written (saturating at 2).
  const std::vector<std::uint8_t>& written() const { return written_; }

  void fail(const char* what, std::uint64_t addr = 0, unsigned len = 0) {
    if (errors_++ < 10)
      std::fprintf(stderr, "cosim: cycle %" PRIu64 ": %s (address 0x%08" PRIx64 ", %u beats)\n", cycle_, what, addr,
                   len);
  }

  static constexpr unsigned kCtrl = dg::npu_regs::reg("CTRL").offset;

  // The registers, over AXI4-Lite: one transaction at a time, each carried by step().
  std::uint32_t reg_access(bool write, unsigned offset, std::uint32_t v) {
    reg_ = RegOp{};
    reg_.write = write;
    reg_.addr = offset & 0xfffu;
    reg_.data = v;
    active_ = true;
    for (int i = 0; i < 1000 && !reg_.done; ++i) step();
    active_ = false;
    if (!reg_.done)
      fail("the register slave did not answer within 1000 cycles", offset, 0);
    else if (reg_.resp != 0)
      fail(write ? "a register write was answered with an error" : "a register read was answered with an error", offset,
           0);
    return reg_.rdata;
  }
  void reg_write(unsigned offset, std::uint32_t v) {
    const bool start = offset == kCtrl && (v & dg::npu_regs::mask("CTRL", "START")) != 0;
    reg_access(true, offset, v);
    if (start) {
      start_cycle_ = cycle_ - 1;  // the write took effect at the last edge
      ++starts_;
    }
  }
  std::uint32_t reg_read(unsigned offset) { return reg_access(false, offset, 0); }
  /// Runs until the interrupt or for `cycles` cycles.
  void run(std::uint64_t cycles) {
    for (std::uint64_t i = 0; i < cycles && !top_->irq_o; ++i) step();
  }
  void progress_hook(std::uint64_t estimate) { estimate_ = estimate; }

  /// One clock cycle: the DRAM model and the register master drive the design's inputs from
  /// their own state (never from the design's outputs), handshakes are taken as the design sees
  /// them before the edge. A VALID the model has raised stays up until its handshake.
  void step() {
    std::vector<std::uint8_t>& bytes = rbeat_;
    bool ar_ready[2], r_valid[2];
    for (int p = 0; p < 2; ++p) {
      ar_ready[p] = coin();
      r_valid[p] = r_held_[p] || (!ar_[p].empty() && cycle_ >= ar_[p].front().ready_at && coin());
      std::fill(bytes.begin(), bytes.end(), 0);
      unsigned rid = 0, rresp = 0;
      bool rlast = false;
      if (r_valid[p]) {
        const Burst& bu = ar_[p].front();
        for (unsigned i = 0; i < beat_; ++i) bytes[i] = *at(bu.addr + std::uint64_t{bu.done} * beat_ + i);
        rid = bu.id;
        rresp = bu.resp;
        rlast = bu.done + 1 == bu.len && !bu.no_last;
      }
      if (p == 0) {
        top_->m_axi_a_arready_i = ar_ready[0];
        top_->m_axi_a_rvalid_i = r_valid[0];
        top_->m_axi_a_rid_i = rid;
        top_->m_axi_a_rresp_i = rresp;
        top_->m_axi_a_rlast_i = rlast;
        put(top_->m_axi_a_rdata_i, bytes.data(), beat_);
      } else {
        top_->m_axi_b_arready_i = ar_ready[1];
        top_->m_axi_b_rvalid_i = r_valid[1];
        top_->m_axi_b_rid_i = rid;
        top_->m_axi_b_rresp_i = rresp;
        top_->m_axi_b_rlast_i = rlast;
        put(top_->m_axi_b_rdata_i, bytes.data(), beat_);
      }
    }
    const bool aw_ready = coin(), w_ready = coin();
    const bool b_valid = b_held_ || (!b_.empty() && cycle_ >= b_.front().ready_at && coin());
    top_->m_axi_c_awready_i = aw_ready;
    top_->m_axi_c_wready_i = w_ready;
    top_->m_axi_c_bvalid_i = b_valid;
    top_->m_axi_c_bid_i = b_valid ? b_.front().id : 0;
    top_->m_axi_c_bresp_i = b_valid ? b_.front().resp : 0;
    // The register master.
    top_->s_axil_awvalid_i = active_ && reg_.write && !reg_.a_done;
    top_->s_axil_awaddr_i = reg_.addr;
    top_->s_axil_awprot_i = 0;
    top_->s_axil_wvalid_i = active_ && reg_.write && !reg_.w_done;
    top_->s_axil_wdata_i = reg_.data;
    top_->s_axil_wstrb_i = 0xf;
    top_->s_axil_bready_i = 1;
    top_->s_axil_arvalid_i = active_ && !reg_.write && !reg_.a_done;
    top_->s_axil_araddr_i = reg_.addr;
    top_->s_axil_arprot_i = 0;
    top_->s_axil_rready_i = 1;
    top_->clk_i = 0;
    top_->eval();
    if (active_) {
      if (reg_.write) {
        reg_.a_done = reg_.a_done || top_->s_axil_awready_o;
        reg_.w_done = reg_.w_done || top_->s_axil_wready_o;
        if (top_->s_axil_bvalid_o) {
          reg_.done = true;
          reg_.resp = top_->s_axil_bresp_o;
        }
      } else {
        reg_.a_done = reg_.a_done || top_->s_axil_arready_o;
        if (top_->s_axil_rvalid_o) {
          reg_.done = true;
          reg_.resp = top_->s_axil_rresp_o;
          reg_.rdata = static_cast<std::uint32_t>(top_->s_axil_rdata_o);
        }
      }
    }
    const bool ar_fire[2] = {top_->m_axi_a_arvalid_o && ar_ready[0], top_->m_axi_b_arvalid_o && ar_ready[1]};
    const std::uint64_t ar_addr[2] = {top_->m_axi_a_araddr_o, top_->m_axi_b_araddr_o};
    const unsigned ar_len[2] = {top_->m_axi_a_arlen_o + 1u, top_->m_axi_b_arlen_o + 1u};
    const unsigned ar_size[2] = {top_->m_axi_a_arsize_o, top_->m_axi_b_arsize_o};
    const unsigned ar_burst[2] = {top_->m_axi_a_arburst_o, top_->m_axi_b_arburst_o};
    const unsigned ar_id[2] = {top_->m_axi_a_arid_o, top_->m_axi_b_arid_o};
    const bool r_fire[2] = {r_valid[0] && top_->m_axi_a_rready_o, r_valid[1] && top_->m_axi_b_rready_o};
    const bool aw_fire = top_->m_axi_c_awvalid_o && aw_ready;
    const std::uint64_t aw_addr = top_->m_axi_c_awaddr_o;
    const unsigned aw_len = top_->m_axi_c_awlen_o + 1u, aw_size = top_->m_axi_c_awsize_o,
                   aw_burst = top_->m_axi_c_awburst_o, aw_id = top_->m_axi_c_awid_o;
    const bool w_fire = top_->m_axi_c_wvalid_o && w_ready;
    const bool b_fire = b_valid && top_->m_axi_c_bready_o;
    std::vector<std::uint8_t> wbeat;
    if (w_fire) {
      // The beat's bytes, then its strobes (one byte each), then its last flag.
      wbeat.resize(2 * beat_ + 1);
      get(top_->m_axi_c_wdata_o, wbeat.data(), beat_);
      std::uint64_t strb = 0;
      get(top_->m_axi_c_wstrb_o, reinterpret_cast<std::uint8_t*>(&strb), std::min<unsigned>(8, (beat_ + 7) / 8));
      for (unsigned i = 0; i < beat_; ++i) wbeat[beat_ + i] = (strb >> i) & 1u;
      wbeat[2 * beat_] = top_->m_axi_c_wlast_o ? 1 : 0;
    }
#if VM_TRACE
    if (vcd_) vcd_->dump(2 * cycle_);
#endif
    top_->clk_i = 1;
    top_->eval();
#if VM_TRACE
    if (vcd_) vcd_->dump(2 * cycle_ + 1);
#endif
    ++cycle_;
    ctx_->time(cycle_);  // $error messages of the protocol checker carry the cycle
    for (int p = 0; p < 2; ++p) {
      r_held_[p] = r_valid[p] && !r_fire[p];
      if (ar_fire[p]) {
        // B's channels carry the epilogue's operands too.
        const Buffer* target = &buf_[p];
        for (const Buffer& e : epi_buf_)
          if (p == 1 && e.bytes != 0 && ar_addr[p] >= e.base && ar_addr[p] < e.base + e.bytes) target = &e;
        check_burst(*target, ar_addr[p], ar_len[p], ar_size[p], ar_burst[p], ar_id[p], p);
        Burst bu{ar_addr[p], ar_len[p], 0, cycle_ + opt_.latency, ar_id[p]};
        if (p == 0 && bursts_[0] == 0 && opt_.inject == Inject::ReadError) bu.resp = 2;
        if (p == 0 && bursts_[0] == 0 && opt_.inject == Inject::NoRlast) bu.no_last = true;
        ar_[p].push_back(bu);
        ++bursts_[p];
      }
      if (r_fire[p]) {
        ++read_beats_;
        if (++ar_[p].front().done == ar_[p].front().len) ar_[p].pop_front();
      }
    }
    b_held_ = b_valid && !b_fire;
    if (b_fire) b_.pop_front();
    if (aw_fire) {
      check_burst(buf_[2], aw_addr, aw_len, aw_size, aw_burst, aw_id, 2);
      aw_.push_back({aw_addr, aw_len, 0, 0, aw_id, bursts_[2] == 0 && opt_.inject == Inject::WriteError ? 2u : 0u});
      ++bursts_[2];
    }
    if (w_fire) {
      ++write_beats_;
      w_.push_back(std::move(wbeat));
    }
    while (!w_.empty() && !aw_.empty()) {  // AXI lets write data run ahead of its address
      Burst& bu = aw_.front();
      const auto& wb = w_.front();
      const std::uint64_t a = bu.addr + std::uint64_t{bu.done} * beat_;
      for (unsigned i = 0; i < beat_; ++i) {
        if (wb[beat_ + i] == 0) continue;  // strobe off: the byte is not written
        if (buf_[2].in_gap(a + i)) fail("write strobe on the bytes between rows of C", bu.addr, bu.len);
        *at(a + i) = wb[i];
        // (A beat outside C is already reported by check_burst.)
        if (a + i >= buf_[2].base && a + i - buf_[2].base < written_.size() && written_[a + i - buf_[2].base] < 2)
          ++written_[a + i - buf_[2].base];
      }
      if ((wb[2 * beat_] != 0) != (bu.done + 1 == bu.len))
        fail("write data: WLAST does not end its burst", bu.addr, bu.len);
      w_.pop_front();
      if (++bu.done == bu.len) {
        // The response, after the latency, once the burst's last beat is in.
        b_.push_back({bu.addr, bu.len, 0, cycle_ + opt_.latency, bu.id, bu.resp});
        aw_.pop_front();
      }
    }
    if (!opt_.quiet && (cycle_ & 0xffff) == 0) progress();
  }

  bool idle() const { return ar_[0].empty() && ar_[1].empty() && aw_.empty() && w_.empty() && b_.empty(); }
  void end_progress() {
    if (progress_shown_ && tty_) std::fputc('\n', stderr);
  }

 private:
  bool coin() { return opt_.stall <= 0 || uni_(rng_) >= opt_.stall; }

  void check_burst(const Buffer& buf, std::uint64_t addr, unsigned len, unsigned size, unsigned burst, unsigned id,
                   unsigned want_id) {
    const std::uint64_t end = addr + std::uint64_t{len} * beat_;
    if (addr % beat_ != 0) fail("burst not beat-aligned", addr, len);
    if ((1u << size) != beat_) fail("burst of narrow transfers (AxSIZE is not the bus width)", addr, len);
    if (burst != 1) fail("burst not INCR", addr, len);
    if (id != want_id) fail("burst with another master's ID", addr, len);
    if (len < 1 || len > opt_.max_burst) fail("burst length outside 1..max burst", addr, len);
    if (addr % opt_.boundary + std::uint64_t{len} * beat_ > opt_.boundary)
      fail("burst crosses the bus boundary", addr, len);
    if (addr < buf.base || end > buf.base + (buf.bytes + beat_ - 1) / beat_ * beat_) {
      std::string what = std::string("burst outside the ") + buf.name + " buffer";
      fail(what.c_str(), addr, len);
    } else if (buf.beat_in_gap(addr, end, beat_)) {
      std::string what = std::string("burst on the bytes between rows of ") + buf.name;
      fail(what.c_str(), addr, len);
    }
  }

  void progress() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_progress_ < std::chrono::milliseconds(tty_ ? 200 : 5000)) return;
    last_progress_ = now;
    progress_shown_ = true;
    const std::uint64_t run = cycle_ - start_cycle_;
    if (estimate_ != 0)
      std::fprintf(stderr, "%scosim: %" PRIu64 " cycles simulated (%.0f%% of the plan's estimate)%s", tty_ ? "\r" : "",
                   run, 100.0 * static_cast<double>(run) / static_cast<double>(estimate_), tty_ ? "" : "\n");
    else
      std::fprintf(stderr, "%scosim: %" PRIu64 " cycles simulated%s", tty_ ? "\r" : "", run, tty_ ? "" : "\n");
    std::fflush(stderr);
  }

  Options opt_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uni_{0.0, 1.0};
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> vcd_;
#endif
  unsigned beat_ = 16;
  std::uint64_t cycle_ = 0, start_cycle_ = 0, estimate_ = 0;
  unsigned starts_ = 0;
  std::map<std::uint64_t, std::vector<std::uint8_t>> pages_;
  std::vector<std::uint8_t> written_;  // per byte of C
  std::vector<std::uint8_t> rbeat_;    // one read beat, reused every cycle
  std::deque<Burst> ar_[2], aw_, b_;
  Buffer epi_buf_[2];                                 // bias, rq (empty when the design has none)
  bool r_held_[2] = {false, false}, b_held_ = false;  // a VALID raised and not yet taken
  RegOp reg_;
  bool active_ = false;  // a register access is in progress
  std::deque<std::vector<std::uint8_t>> w_;
  Buffer buf_[3];
  int errors_ = 0;
  std::uint64_t read_beats_ = 0, write_beats_ = 0, bursts_[3] = {0, 0, 0};
  bool tty_ = isatty(2) != 0, progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace dg::sim
