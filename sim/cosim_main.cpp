// The co-simulation harness of a generated NPU top (Verilated with --prefix Vtop). Its parts:
// cosim_options.h (the command line, the module's plan text), cosim_system.h (the simulated system:
// clock, AXI4 DRAM model, register port, checks), elements.h (element formats and the reference's
// arithmetic); this file: the runtime's port layer, the operands, the run, the reference and the
// report.
//
//   cosim --module FILE.ko [--m M] [--n N] [--k K] [options]
//                                                 the freestanding runtime (runtime-baremetal/)
//                                                 loads the module and programs the RTL through
//                                                 its port layer, which is this simulation
//   cosim --m M --n N --k K --a-type T --b-type T [options]
//                                                 the harness programs the registers itself
//   options: --latency C (DRAM latency, cycles, of a read's first beat and of a write's response;
//            default 100), --boundary BYTES and --max-burst BEATS (the bus rules bursts are checked
//            against; default 4096 and 256: deepgemm sim passes the model's), --stall P
//            (probability that the DRAM model holds back each ready it drives, and each valid it
//            has not raised yet, in a cycle; default 0), --seed S, --max-cycles N, --inject KIND
//            (read-error: the first A burst is answered SLVERR; write-error: the first C burst;
//            no-rlast: the first A burst's last beat comes without RLAST; the run must then end
//            with the matching ERROR code), --trace FILE.vcd (when Verilated with --trace), --quiet,
//            --base ADDR (A's byte address; B follows 256 MiB above it, C 512 MiB; default
//            0x10000000 on a 32-bit bus, 2^(bits-1) + 0x10000000 on a wider one, so that the high
//            halves of the bases are exercised), --addr-bits N (the design's bus address width,
//            32 to 64: the module's register table gives it, else 32), --expect-error NAME (with
//            --m ...: the START must be refused with that ERROR code, e.g. BASE_RANGE, and no
//            burst issued), --lda/--ldb/--ldc LD (the operand's leading dimension in elements:
//            its rows start LD elements apart inside a larger buffer; the DRAM model fails a burst
//            with a beat wholly between rows and a strobed write on the bytes between C's rows,
//            and those bytes must keep their fill; with
//            --module the runtime sets them, dgmm_set_ld, else the harness writes LDA/LDB/LDC in
//            bytes), --a-layout row|col and --b-layout row|col (the layouts for runs the harness
//            programs: A col is K rows of M elements, B col N rows of K; with --module the plan's)
//
// The design is the generated AXI4 top, Verilated with DG_AXI4_CHECK: the AXI4 protocol checker
// (dg_axi4_check) is bound to its register slave and its three masters, and a rule it finds
// broken, by either side, fails the run. The registers are written and read over AXI4-Lite, one
// transaction at a time. The DRAM model (sparse 4 KB pages) is an AXI4 slave: it serves the A and B
// read bursts after the latency, in order per master (each master has one ID), with RLAST on each
// burst's last beat, and takes the C write bursts, with their byte strobes, answering each after
// the latency once its last beat is in; it checks every burst (beat-aligned, full-width, INCR,
// 1..max beats, never across the boundary, inside the buffer it belongs to, the master's ID) and
// that every byte of C is written exactly once. A and B are
// random (element types sN/uN: stored in 1 byte up to 8 bits, else 2; the value is the low N
// bits, sign- or zero-extended); C must equal the reference GEMM (int32, wrapping) bit for bit.
// Ends with a report and a PASS or FAIL line; exit 0 on PASS, 1 on FAIL, 2 on bad arguments.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>
#include <deepgemm/npu_regs.h>
#include <deepgemm/port.h>

#include "elements.h"

#include "cosim_system.h"

namespace {
using dg::sim::Args;
using dg::sim::Buffer;
using dg::sim::decode;
using dg::sim::Format;
using dg::sim::Inject;
using dg::sim::Options;
using dg::sim::parse_format;
using dg::sim::plan_string;
using dg::sim::refuse;
using dg::sim::Sim;
using dg::sim::usage;

// The port layer of the freestanding runtime, on the simulation: MMIO is the top's register port,
// waiting for the interrupt runs the clock, time is the cycle count.
Sim* g_sim = nullptr;
std::uint64_t g_mmio_base = 0;

void port_check(uintptr_t address) {
  if (address < g_mmio_base || address >= g_mmio_base + 4096 || (address & 3u) != 0)
    g_sim->fail("the runtime accessed an address outside the NPU's register window", address, 0);
}

}  // namespace

extern "C" {
void port_mmio_write32(uintptr_t address, uint32_t value) {
  port_check(address);
  g_sim->reg_write(static_cast<unsigned>(address - g_mmio_base), value);
}
uint32_t port_mmio_read32(uintptr_t address) {
  port_check(address);
  return g_sim->reg_read(static_cast<unsigned>(address - g_mmio_base));
}
void port_wait_irq(uint64_t max_ticks) { g_sim->run(max_ticks == 0 || max_ticks > 4096 ? 4096 : max_ticks); }
uint64_t port_now(void) { return g_sim->cycle(); }
}

int main(int argc, char** argv) {
  Args args;
  if (const int rc = parse_args(argc, argv, args); rc >= 0) return rc;
  Options& o = args.o;
  const std::string& module_path = args.module_path;
  std::int64_t &m = args.m, &n = args.n, &k = args.k;
  std::int64_t k_max = 0;  // the plan's largest K (0: not known)
  std::int64_t batch = 1;  // the plan's batch (or --batch's): matrices one after the other
  bool swapped = false;    // the plan's "operands_swapped": a column-major C, run as Cᵀ = Bᵀ·Aᵀ
  std::int64_t* ld = args.ld;
  int &acc_bits = args.acc_bits, &c_bits = args.c_bits;
  dg::sim::Epilogue epi;  // the plan's fused epilogue
  Format &fa = args.fa, &fb = args.fb;
  const bool have_a = args.have_a, have_b = args.have_b;

  // The module, loaded by the runtime.
  std::vector<std::uint8_t> image;
  std::vector<unsigned char> arena;
  dgmm_handle h = nullptr;
  std::string top_name = "the NPU";
  if (!module_path.empty()) {
    if (have_a || have_b)
      return usage(
          "--module takes the problem from the module: no --a-type/--b-type (--m, --n and --k choose "
          "M, N and K inside the plan's ranges)");
    // Bounded: a module's file size is a 32-bit field; only a regular file is read.
    std::FILE* f = std::fopen(module_path.c_str(), "rb");
    if (f == nullptr) return refuse("cannot read " + module_path);
    struct stat st {};
    if (::fstat(::fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uint64_t>(st.st_size) > 0xFFFFFFF0ull) {
      std::fclose(f);
      return refuse(module_path + ": not a regular file of at most 4 GB");
    }
    image.resize(static_cast<std::size_t>(st.st_size));
    const std::size_t got = std::fread(image.data(), 1, image.size(), f);
    std::fclose(f);
    if (got != image.size()) return refuse("cannot read " + module_path);
    dg::ko::ModuleView mv;
    if (dg::ko::parse(image.data(), image.size(), &mv) != dg::ko::Status::Ok)
      return refuse(module_path + ": not a valid module: " + mv.error());
    auto plan = mv.find(dg::ko::SectionKind::Plan);
    auto regs = mv.find(dg::ko::SectionKind::NpuRegmap);
    if (!plan.present) return refuse(module_path + ": the module has no plan");
    if (!regs.present)
      return refuse(module_path +
                    ": the module has no NPU register table (not an NPU module, or its Verilog was not emitted)");
    dg::ko::regmap::View rv;
    if (dg::ko::regmap::parse(regs.data, regs.size, &rv) != dg::ko::regmap::Status::Ok)
      return refuse(module_path + ": bad register table: " + rv.error());
    g_mmio_base = rv.mmio_base;
    if (o.addr_bits != 0 && o.addr_bits != rv.addr_bits)
      return usage("--addr-bits " + std::to_string(o.addr_bits) + ": the module's design has " +
                   std::to_string(rv.addr_bits) + "-bit bus addresses");
    o.addr_bits = rv.addr_bits;
    const std::string plan_text(reinterpret_cast<const char*>(plan.data), plan.size);
    if (!parse_format(plan_string(plan_text, "a_type"), fa) || !parse_format(plan_string(plan_text, "b_type"), fb))
      return refuse(module_path + ": input types " + plan_string(plan_text, "a_type") + "×" +
                    plan_string(plan_text, "b_type") + " are not simulated (sN/uN up to 16 bits)");
    // int32, int48, int64: the width after "int".
    const std::string acc_type = plan_string(plan_text, "acc_type"), c_type = plan_string(plan_text, "c_type");
    acc_bits = acc_type.rfind("int", 0) == 0 ? std::atoi(acc_type.c_str() + 3) : 0;
    c_bits = c_type.rfind("int", 0) == 0 ? std::atoi(c_type.c_str() + 3) : 0;
    // The fused epilogue: the plan's op_type, and requantization for an int8 or int16 C.
    const std::string op = plan_string(plan_text, "epilogue");
    epi.bias = op == "bias" || op == "bias_relu";
    epi.relu = op == "relu" || op == "bias_relu";
    epi.requant = c_bits == 8 || c_bits == 16;
    epi.out_bits = c_bits;
    if (!op.empty() && op != "none" && !epi.bias && !epi.relu)
      return refuse(module_path + ": the plan's epilogue '" + op + "' is not simulated (relu, bias, bias_relu)");
    const std::size_t need = dgmm_arena_size(image.data(), image.size());
    if (need == 0) return refuse(std::string("the runtime refused the module: ") + dgmm_last_error());
    arena.resize(need + DGMM_ARENA_ALIGN);  // the runtime aligns the arena itself
    h = dgmm_load_image(image.data(), image.size(), arena.data(), arena.size());
    if (h == nullptr) return refuse(std::string("the runtime refused the module: ") + dgmm_last_error());
    if (dgmm_set_engine(h, DGMM_ENGINE_NPU) != DGMM_OK)
      return refuse(std::string("the runtime cannot drive the NPU: ") + dgmm_last_error());
    // M, N and K, then the leading dimensions (a row of A follows K): the runtime refuses at the call
    // what the NPU cannot run.
    if (m != 0 && (m < 0 || m > 0xffffffff || dgmm_set_m(h, static_cast<std::uint32_t>(m)) != DGMM_OK))
      return usage(std::string("--m: ") + (m < 0 || m > 0xffffffff ? "not an M" : dgmm_last_error()));
    if (n != 0 && (n < 0 || n > 0xffffffff || dgmm_set_n(h, static_cast<std::uint32_t>(n)) != DGMM_OK))
      return usage(std::string("--n: ") + (n < 0 || n > 0xffffffff ? "not an N" : dgmm_last_error()));
    if (k != 0 && dgmm_set_k(h, static_cast<std::uint32_t>(k)) != DGMM_OK)
      return refuse(std::string("--k: ") + dgmm_last_error());
    for (int i = 0; i < 3; ++i)
      if (ld[i] != 0 && dgmm_set_ld(h, i == 0 ? "A" : i == 1 ? "B" : "C", static_cast<std::uint32_t>(ld[i])) != DGMM_OK)
        return refuse(std::string("--ld") + "abc"[i] + ": " + dgmm_last_error());
    // --batch and --stride-*: the runtime's dgmm_set_batch and dgmm_set_batch_stride, which refuse
    // at the call what the plan or the NPU cannot take.
    if (args.batch != -1 && (args.batch < 1 || args.batch > 0xffffffff ||
                             dgmm_set_batch(h, static_cast<std::uint32_t>(args.batch)) != DGMM_OK))
      return refuse(std::string("--batch: ") + (args.batch < 1 ? "not a batch" : dgmm_last_error()));
    for (int i = 0; i < 3; ++i)
      if (args.stride[i] != -1 && dgmm_set_batch_stride(h,
                                                        i == 0   ? "A"
                                                        : i == 1 ? "B"
                                                                 : "C",
                                                        static_cast<std::uint64_t>(args.stride[i])) != DGMM_OK)
        return refuse(std::string("--stride-") + "abc"[i] + ": " + dgmm_last_error());
    std::uint32_t um = 0, un = 0, uk = 0, kmin = 0, kmax = 0;
    dgmm_problem(h, &um, &un, &uk, nullptr, nullptr, nullptr);
    // A batch: matrix b of each operand follows matrix b - 1 (rows × ld elements on), so the
    // operands are matrices of batch × rows rows (the design's loop walks them, or the runtime
    // starts one run a matrix on a design without it).
    if (plan_text.find("\"b_row_major\": false") != std::string::npos) args.b_col = true;
    if (plan_text.find("\"a_row_major\": false") != std::string::npos) args.a_col = true;
    // A column-major C: the plan is the transpose's, Cᵀ = Bᵀ·Aᵀ. The runtime speaks the spec's names
    // (its M, N, A, B and lda, ldb); from here on the harness works in the plan's, as the design does.
    swapped = plan_text.find("\"operands_swapped\": true") != std::string::npos;
    if (swapped) {
      std::swap(um, un);
      std::swap(ld[0], ld[1]);
      std::swap(args.stride[0], args.stride[1]);
    }
    if (const auto at = plan_text.find("\"batch\": "); at != std::string::npos)
      batch = std::max<std::int64_t>(1, std::strtoll(plan_text.c_str() + at + 9, nullptr, 10));
    if (args.batch != -1) batch = args.batch;
    if (dgmm_k_range(h, &kmin, &kmax) == DGMM_OK) k_max = kmax;
    m = um;
    n = un;
    k = uk;
  } else if (m <= 0 || n <= 0 || k <= 0 || !have_a || !have_b) {
    return usage("give --module, or --m, --n, --k, --a-type and --b-type");
  }
  // --batch: the BATCH register the harness writes (a design of a batched plan; 0 and values past
  // the plan's batch are for --expect-error BATCH), with the strides of matrices one after another.
  if (args.batch != -1 && h == nullptr) {
    if (args.batch < 0 || args.batch > 65535) return usage("--batch must be 0 to 65535");
    batch = std::max<std::int64_t>(1, args.batch);
  }
  if (k_max == 0) k_max = k;
  // Packed where not given; a given one holds its row (the runtime checked it for --module; the
  // registers take any, which --expect-error LD uses).
  // B's memory rows: K rows of N elements, or N rows of K when it is column-major; A's M rows of K,
  // or K rows of M.
  const bool b_col = args.b_col, a_col = args.a_col;
  const std::int64_t b_rows = b_col ? n : k, b_inner = b_col ? k : n;
  const std::int64_t a_rows = a_col ? k : m, a_inner = a_col ? m : k;
  const std::int64_t packed[3] = {a_inner, b_inner, n};
  for (int i = 0; i < 3; ++i) {
    if (ld[i] < 0 || ld[i] > 0x7fffffff) return usage(std::string("--ld") + "abc"[i] + " must be 1 to 2^31 - 1");
    if (ld[i] == 0) ld[i] = packed[i];
    if (ld[i] < packed[i] && o.expect_error.empty())
      return usage(std::string("--ld") + "abc"[i] + " is smaller than a row of " + "ABC"[i]);
  }
  if ((acc_bits != 32 && acc_bits != 48 && acc_bits != 64) ||
      (c_bits != 32 && c_bits != 64 && !(epi.requant && (c_bits == 8 || c_bits == 16))))
    return usage(
        "the accumulator must be 32, 48 or 64 bits and C 32 or 64, or a plan's requantized int8 or int16 (--acc-bits, "
        "--c-bits, or the plan's types)");
  if (o.boundary == 0 || o.max_burst == 0) return usage("--boundary and --max-burst must be positive");
  if (o.addr_bits == 0) o.addr_bits = 32;
  if (o.addr_bits < 32 || o.addr_bits > 64) return usage("--addr-bits must be 32 to 64");
  // The design's address ports: 32 bits wide up to 32, 64 above (Verilator's types).
  constexpr unsigned kPortBits = 8 * sizeof(std::declval<Vtop&>().m_axi_a_araddr_o);
  if ((o.addr_bits > 32) != (kPortBits > 32))
    return usage(std::string("the design's bus addresses are ") + (kPortBits > 32 ? "wider than 32 bits" : "32 bits") +
                 ", not " + std::to_string(o.addr_bits) + " (--addr-bits)");
  std::uint64_t error_want = 0;
  if (!o.expect_error.empty()) {
    if (h != nullptr) return usage("--expect-error is for runs the harness programs (--m ...)");
    error_want = dg::npu_regs::kErrorCodeCount;
    for (const auto& e : dg::npu_regs::kErrorCodes)
      if (o.expect_error == e.name && e.code != 0) error_want = e.code;
    if (error_want == dg::npu_regs::kErrorCodeCount)
      return usage("--expect-error " + o.expect_error + ": not an ERROR code's name");
  }
  // The operands: 256 MiB apart from A's address, above 4 GiB on a bus wider than 32 bits.
  if (!o.base_given) o.base = o.addr_bits > 32 ? (std::uint64_t{1} << (o.addr_bits - 1)) + 0x10000000u : 0x10000000u;

  // A batch's matrices: stride[i] elements apart, rows × ld (one after the other) unless given;
  // a given stride is 0 (an input shared by every matrix) or at least one matrix.
  const std::int64_t rows_of[3] = {a_rows, b_rows, m};
  std::int64_t matrix[3], stride[3];
  for (int i = 0; i < 3; ++i) {
    matrix[i] = (rows_of[i] - 1) * ld[i] + packed[i];
    stride[i] = args.stride[i] == -1 ? rows_of[i] * ld[i] : args.stride[i];
    if (args.stride[i] != -1 && (stride[i] != 0 || i == 2) && stride[i] < matrix[i])
      return usage(std::string("--stride-") + "abc"[i] + " " + std::to_string(stride[i]) +
                   ": the harness simulates strides of 0 (inputs) or at least one matrix (" +
                   std::to_string(matrix[i]) + " elements)");
    if (args.stride[i] != -1 && h == nullptr && args.batch == -1)
      return usage(std::string("--stride-") + "abc"[i] + " needs --batch (the BATCH register) or --module");
  }
  Sim sim(o);
  g_sim = &sim;
  const unsigned beat = sim.beat();
  // Each operand: its rows ld elements apart, the last one ending the buffer; a batch's matrices
  // stride elements apart (by default one after the other, as one matrix of batch × rows rows).
  const std::int64_t a_elems = (batch - 1) * stride[0] + matrix[0], b_elems = (batch - 1) * stride[1] + matrix[1];
  const unsigned c_bytes = static_cast<unsigned>(c_bits / 8);
  Buffer A{"A", o.base, fa.size(a_elems), fa.size(a_inner), ld[0] == a_inner ? 0 : fa.size(ld[0])};
  Buffer B{"B", o.base + 0x10000000u, fb.size(b_elems), fb.size(b_inner), ld[1] == b_inner ? 0 : fb.size(ld[1])};
  Buffer C{"C", o.base + 0x20000000u, static_cast<std::uint64_t>((batch - 1) * stride[2] + matrix[2]) * c_bytes,
           static_cast<std::uint64_t>(n) * c_bytes, ld[2] == n ? 0 : static_cast<std::uint64_t>(ld[2]) * c_bytes};
  if (args.stride[0] != -1) A.matrix_stride = fa.size(stride[0]), A.matrix_bytes = fa.size(matrix[0]);
  if (args.stride[1] != -1) B.matrix_stride = fb.size(stride[1]), B.matrix_bytes = fb.size(matrix[1]);
  if (args.stride[2] != -1)
    C.matrix_stride = static_cast<std::uint64_t>(stride[2]) * c_bytes,
    C.matrix_bytes = static_cast<std::uint64_t>(matrix[2]) * c_bytes;
  sim.set_buffers(A, B, C);
  // The epilogue's operands: bias (N int32), rq (N records of 8 bytes).
  const Buffer Bias{"bias", o.base + 0x30000000u, epi.bias ? static_cast<std::uint64_t>(n) * 4 : 0};
  const Buffer Rq{"rq", o.base + 0x38000000u, epi.requant ? static_cast<std::uint64_t>(n) * 8 : 0};
  sim.set_epi_buffers(Bias, Rq);
  std::mt19937_64 rng(o.seed);
  auto fill = [&](const Buffer& buf, const std::vector<std::uint8_t>& bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i) *sim.at(buf.base + i) = bytes[i];
  };
  fill(A, dg::sim::draw(rng, fa, a_elems));
  fill(B, dg::sim::draw(rng, fb, b_elems));
  // Every element must be written, and the bytes between rows must keep this value.
  for (std::uint64_t i = 0; i < C.bytes; ++i) *sim.at(C.base + i) = 0xa5;
  // Bias within ±2^20 (and a few at the int32 extremes, so that the sum saturates); multipliers
  // over the whole int32 range with shifts around the accumulator's magnitude (some columns
  // saturate, some round), shift 0 on a few; zero points in ±64.
  std::vector<dg::sim::EpiColumn> cols(static_cast<std::size_t>(n));
  {
    std::uniform_int_distribution<std::int32_t> bias_d(-(1 << 20), 1 << 20), mult_d(INT32_MIN, INT32_MAX);
    std::uniform_int_distribution<int> shift_d(acc_bits / 2 + 18, acc_bits / 2 + 28), zp_d(-64, 64), pick(0, 15);
    for (std::int64_t j = 0; j < n; ++j) {
      dg::sim::EpiColumn& c = cols[static_cast<std::size_t>(j)];
      const int p = pick(rng);
      c.bias = p == 0 ? INT32_MAX : p == 1 ? INT32_MIN : bias_d(rng);
      c.mult = mult_d(rng);
      c.shift = p == 2 ? 0u : static_cast<unsigned>(shift_d(rng));
      c.zp = static_cast<std::int16_t>(zp_d(rng));
      if (epi.bias)
        for (int b = 0; b < 4; ++b)
          *sim.at(Bias.base + static_cast<std::uint64_t>(j) * 4 + b) =
              static_cast<std::uint8_t>(static_cast<std::uint32_t>(c.bias) >> (8 * b));
      if (epi.requant) {
        std::uint8_t rec[8];
        dg::sim::put_rq_record(c, rec);
        for (int b = 0; b < 8; ++b) *sim.at(Rq.base + static_cast<std::uint64_t>(j) * 8 + b) = rec[b];
      }
    }
  }

  const std::uint64_t limit =
      o.max_cycles ? o.max_cycles
                   : 4000000 * static_cast<std::uint64_t>(batch) + static_cast<std::uint64_t>(batch * m * n * k / 64);
  const std::uint64_t cycle0 = sim.cycle();
  const auto wall0 = std::chrono::steady_clock::now();
  std::uint32_t hw_cycles = 0, bound = 0, status = 0, error = 0;
  bool finished = false;
  std::string runtime_error;
  bool refused = false;  // the runtime refused the bind or the launch: the NPU never started
  if (h != nullptr) {
    // The real runtime programs the NPU: bind the buffers' physical addresses, launch, wait.
    bound = sim.reg_read(dg::npu_regs::reg("BOUND").offset);
    sim.progress_hook(bound);
    // (Swapped, the plan's A is the spec's B.)
    if (dgmm_bind_input(h, swapped ? "B" : "A", A.base) != DGMM_OK ||
        dgmm_bind_input(h, swapped ? "A" : "B", B.base) != DGMM_OK || dgmm_bind_output(h, "C", C.base) != DGMM_OK ||
        (epi.bias && dgmm_bind_input(h, "bias", Bias.base) != DGMM_OK) ||
        (epi.requant && dgmm_bind_input(h, "rq", Rq.base) != DGMM_OK)) {
      runtime_error = std::string("bind: ") + dgmm_last_error();
      refused = true;
    } else if (dgmm_launch(h) != DGMM_OK) {
      runtime_error = std::string("launch: ") + dgmm_last_error();
      refused = true;
    } else {
      dgmm_status s = dgmm_wait_timeout(dgmm_sync(h), limit);
      if (s != DGMM_OK) {
        runtime_error = std::string("wait: ") + dgmm_status_string(s) + ": " + dgmm_last_error();
      } else {
        std::uint64_t c = 0;
        dgmm_npu_cycles(h, &c);
        hw_cycles = static_cast<std::uint32_t>(c);
        finished = true;
      }
    }
    status = sim.reg_read(dg::npu_regs::reg("STATUS").offset);
    error = sim.reg_read(dg::npu_regs::reg("ERROR").offset);
    // Refused by the runtime before the NPU started (a bind or launch check): its reason alone.
    if (refused && o.inject == Inject::None && o.expect_error.empty()) {
      sim.end_progress();
      dgmm_unload(h);
      return refuse("the runtime refused the " + runtime_error);
    }
  } else {
    bound = sim.reg_read(dg::npu_regs::reg("BOUND").offset);
    sim.progress_hook(bound);
    sim.reg_write(dg::npu_regs::reg("A_BASE").offset, static_cast<std::uint32_t>(A.base));
    sim.reg_write(dg::npu_regs::reg("B_BASE").offset, static_cast<std::uint32_t>(B.base));
    sim.reg_write(dg::npu_regs::reg("C_BASE").offset, static_cast<std::uint32_t>(C.base));
    sim.reg_write(dg::npu_regs::reg("A_BASE_HI").offset, static_cast<std::uint32_t>(A.base >> 32));
    sim.reg_write(dg::npu_regs::reg("B_BASE_HI").offset, static_cast<std::uint32_t>(B.base >> 32));
    sim.reg_write(dg::npu_regs::reg("C_BASE_HI").offset, static_cast<std::uint32_t>(C.base >> 32));
    sim.reg_write(dg::npu_regs::reg("M").offset, static_cast<std::uint32_t>(m));
    sim.reg_write(dg::npu_regs::reg("N").offset, static_cast<std::uint32_t>(n));
    sim.reg_write(dg::npu_regs::reg("K").offset, static_cast<std::uint32_t>(k));
    // The leading dimensions in bytes, where given (else the reset value, 0: packed).
    // A design without them (the model's npu.ld_registers false) reads them as 0: refused here.
    const std::uint32_t ld_bytes[3] = {static_cast<std::uint32_t>(fa.size(ld[0])),
                                       static_cast<std::uint32_t>(fb.size(ld[1])),
                                       static_cast<std::uint32_t>(ld[2] * c_bytes)};
    constexpr std::uint32_t ld_reg[3] = {dg::npu_regs::reg("LDA").offset, dg::npu_regs::reg("LDB").offset,
                                         dg::npu_regs::reg("LDC").offset};
    for (int i = 0; i < 3; ++i) {
      if (ld[i] == packed[i]) continue;
      const std::uint32_t at = ld_reg[i];
      sim.reg_write(at, ld_bytes[i]);
      if (sim.reg_read(at) != ld_bytes[i])
        return usage(std::string("--ld") + "abc"[i] +
                     ": the design has no leading-dimension registers (its model's npu.ld_registers is false); it "
                     "reads and writes packed rows");
    }
    if (args.batch != -1) {
      // BATCH and the strides in bytes (a design without them is refused).
      const std::uint32_t stride_bytes[3] = {static_cast<std::uint32_t>(fa.size(stride[0])),
                                             static_cast<std::uint32_t>(fb.size(stride[1])),
                                             static_cast<std::uint32_t>(stride[2] * c_bytes)};
      constexpr std::uint32_t stride_reg[3] = {dg::npu_regs::reg("A_STRIDE").offset,
                                               dg::npu_regs::reg("B_STRIDE").offset,
                                               dg::npu_regs::reg("C_STRIDE").offset};
      const std::uint32_t at = dg::npu_regs::reg("BATCH").offset;
      sim.reg_write(at, static_cast<std::uint32_t>(args.batch));
      if (sim.reg_read(at) != static_cast<std::uint32_t>(args.batch))
        return usage("--batch: the design has no BATCH register (its plan's batch is 1)");
      for (int i = 0; i < 3; ++i) sim.reg_write(stride_reg[i], stride_bytes[i]);
    }
    sim.reg_write(dg::npu_regs::reg("CTRL").offset, dg::npu_regs::mask("CTRL", "START"));
    sim.run(error_want != 0 ? 1000 : limit);  // a refused START: a while, to see that nothing moves
    finished = sim.irq();
    status = sim.reg_read(dg::npu_regs::reg("STATUS").offset);
    error = sim.reg_read(dg::npu_regs::reg("ERROR").offset);
    hw_cycles = sim.reg_read(dg::npu_regs::reg("CYCLES").offset);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  // (A batch: from before the first run's START, the runtime starting each.)
  const std::uint64_t sim_cycles = batch > 1 ? sim.cycle() - cycle0 : sim.cycle() - sim.last_start();
  sim.end_progress();
  if (error_want != 0) {
    // The START must have been refused with that code: ERROR set, not BUSY, nothing on the bus.
    const std::uint32_t got = (error & dg::npu_regs::mask("ERROR", "CODE")) >> dg::npu_regs::field("ERROR", "CODE").lsb;
    const bool refused =
        (status & dg::npu_regs::mask("STATUS", "ERROR")) != 0 && (status & dg::npu_regs::mask("STATUS", "BUSY")) == 0;
    const bool quiet_bus = sim.bursts(0) + sim.bursts(1) + sim.bursts(2) == 0;
    std::printf("co-simulation of %s (Verilator), a START expected to be refused; A at 0x%" PRIx64 ", B at 0x%" PRIx64
                ", C at 0x%" PRIx64 " on a %u-bit bus: STATUS 0x%x, ERROR %u\n",
                TOP_NAME, A.base, B.base, C.base, o.addr_bits, status, got);
    const bool pass = refused && got == error_want && quiet_bus && sim.protocol_errors() == 0;
    if (pass)
      std::printf("PASS: the START was refused with ERROR %u (%s), no burst issued\n", got, o.expect_error.c_str());
    else
      std::printf("FAIL: expected the START refused with ERROR %" PRIu64 " (%s)%s\n", error_want,
                  o.expect_error.c_str(), quiet_bus ? "" : "; bursts were issued");
    std::fflush(stdout);
    return pass ? 0 : 1;
  }
  if (o.inject != Inject::None) {
    // The injected bus problem must end the run (DONE, not BUSY) with its ERROR code; the checker
    // must have seen the broken rule of a no-RLAST burst, and nothing broken otherwise.
    const char* want = o.inject == Inject::ReadError    ? "BUS_READ"
                       : o.inject == Inject::WriteError ? "BUS_WRITE"
                                                        : "BUS_PROTOCOL";
    const std::uint32_t code = o.inject == Inject::ReadError    ? dg::npu_regs::error_code("BUS_READ")
                               : o.inject == Inject::WriteError ? dg::npu_regs::error_code("BUS_WRITE")
                                                                : dg::npu_regs::error_code("BUS_PROTOCOL");
    const std::uint32_t got = (error & dg::npu_regs::mask("ERROR", "CODE")) >> dg::npu_regs::field("ERROR", "CODE").lsb;
    const bool ended =
        (status & dg::npu_regs::mask("STATUS", "ERROR")) != 0 && (status & dg::npu_regs::mask("STATUS", "BUSY")) == 0;
    const bool checker_ok = o.inject == Inject::NoRlast ? sim.protocol_errors() > 0 : sim.protocol_errors() == 0;
    std::printf("co-simulation of %s (Verilator) with an injected bus problem (%s): STATUS 0x%x, ERROR %u%s\n",
                TOP_NAME,
                o.inject == Inject::ReadError    ? "SLVERR on A's first read"
                : o.inject == Inject::WriteError ? "SLVERR on C's first write"
                                                 : "no RLAST on A's first read",
                status, got, runtime_error.empty() ? "" : ("; runtime: " + runtime_error).c_str());
    const bool pass =
        ended && got == code && checker_ok && sim.errors() == 0 && (h == nullptr || !runtime_error.empty());
    if (pass)
      std::printf("PASS: the run ended with ERROR %u (%s)%s\n", code, want,
                  o.inject == Inject::NoRlast ? "; the protocol checker reported the broken rule" : "");
    else
      std::printf("FAIL: expected the run to end with ERROR %u (%s)%s; %d protocol rules broken, %d harness errors\n",
                  code, want, h != nullptr && runtime_error.empty() ? " and the runtime to report it" : "",
                  sim.protocol_errors(), sim.errors());
    std::fflush(stdout);
    if (h != nullptr) dgmm_unload(h);
    return pass ? 0 : 1;
  }
  if (!runtime_error.empty()) sim.fail(("runtime: " + runtime_error).c_str());
  if (!finished) sim.fail("the design did not finish");
  if ((status & 4u) != 0) sim.fail("the design reported ERROR", error, 0);
  if (finished && !sim.idle()) sim.fail("bursts left unfinished at DONE");
  if (sim.protocol_errors() != 0) sim.fail("the AXI4 protocol checker found rules broken (see above)");

  // The reference, and the comparison.
  std::int64_t mismatches = 0, shown = 0, saturated = 0;
  if (finished) {
    // A and B as the DRAM model holds them (its pages are sparse), contiguous.
    std::vector<std::uint8_t> a_bytes(A.bytes), b_bytes(B.bytes);
    for (std::uint64_t i = 0; i < A.bytes; ++i) a_bytes[i] = *sim.at(A.base + i);
    for (std::uint64_t i = 0; i < B.bytes; ++i) b_bytes[i] = *sim.at(B.base + i);
    const std::uint8_t* a_mem = a_bytes.data();
    const std::uint8_t* b_mem = b_bytes.data();
    // The exact sum, wrapped to the accumulator's width (two's complement), then C: sign-extended,
    // or saturated to int32 from a wider accumulator.
    // Row i of C (of all batch × M): row i % M of matrix i / M, from that matrix's A and B.
    auto expected = [&](std::int64_t i, std::int64_t j) {
      const std::int64_t a0 = i / m * stride[0], b0 = i / m * stride[1];  // this matrix's A and B
      std::uint64_t sum = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const std::int64_t a_at = a0 + (a_col ? kk * ld[0] + i % m : i % m * ld[0] + kk);
        sum += static_cast<std::uint64_t>(decode(fa, a_mem, a_at) *
                                          decode(fb, b_mem, b0 + (b_col ? j * ld[1] + kk : kk * ld[1] + j)));
      }
      return dg::sim::c_element_epi(sum, acc_bits, c_bits, epi, cols[static_cast<std::size_t>(j)]);
    };
    for (std::int64_t i = 0; i < batch * m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t want = expected(i, j);
        std::uint64_t raw = 0;
        for (unsigned byte = 0; byte < c_bytes; ++byte)
          raw |= static_cast<std::uint64_t>(*sim.at(
                     C.base + static_cast<std::uint64_t>(i / m * stride[2] + i % m * ld[2] + j) * c_bytes + byte))
                 << (8 * byte);
        const std::int64_t got = c_bytes == 1   ? static_cast<std::int8_t>(raw)
                                 : c_bytes == 2 ? static_cast<std::int16_t>(raw)
                                 : c_bytes == 4 ? static_cast<std::int32_t>(raw)
                                                : static_cast<std::int64_t>(raw);
        if (got != want && shown++ < 8)
          std::fprintf(stderr, "cosim: C[%" PRId64 "][%" PRId64 "] = %" PRId64 ", expected %" PRId64 "\n", i, j, got,
                       want);
        mismatches += got != want;
        if (epi.requant) {
          const std::int64_t top = (std::int64_t{1} << (c_bits - 1)) - 1;
          saturated += want == top || want == -top - 1;
        } else {
          saturated += c_bits < acc_bits && (want == INT32_MIN || want == INT32_MAX);
        }
      }

    std::int64_t twice = 0, missing = 0, gap_written = 0, gap_changed = 0;
    for (std::uint64_t b = 0; b < sim.written().size(); ++b) {
      const std::uint8_t times = sim.written()[b];
      if (C.in_gap(C.base + b)) {
        gap_written += times != 0;
        gap_changed += *sim.at(C.base + b) != 0xa5;
        continue;
      }
      missing += times == 0;
      twice += times > 1;
    }
    if (missing) sim.fail("bytes of C never written", static_cast<std::uint64_t>(missing));
    if (twice) sim.fail("bytes of C written more than once", static_cast<std::uint64_t>(twice));
    if (gap_written || gap_changed)
      sim.fail("bytes between the rows of C written", static_cast<std::uint64_t>(gap_written + gap_changed));
  }

  // The report.
  const double cyc = hw_cycles ? static_cast<double>(hw_cycles) : 1.0;
  const std::int64_t pes = static_cast<std::int64_t>(PE_ROWS) * PE_COLS;
  const double macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const bool pass = finished && mismatches == 0 && sim.errors() == 0;
  std::printf("co-simulation of %s (Verilator), %s; seed %" PRIu64 ", DRAM latency %u cycles, back-pressure %.0f%%\n",
              TOP_NAME, h != nullptr ? "programmed by the freestanding runtime" : "registers programmed by the harness",
              o.seed, o.latency, 100 * o.stall);
  std::printf("  problem      C[%" PRId64 "x%" PRId64 "] = A[%" PRId64 "x%" PRId64
              "] %s%s x B %s%s, int%d (%d-bit accumulators)%s\n",
              m, n, m, k, fa.name().c_str(), a_col ? " column-major (K rows of M)" : "", fb.name().c_str(),
              b_col ? " column-major (N rows of K)" : "", c_bits, acc_bits,
              batch > 1 ? (", a batch of " + std::to_string(batch) + ": " +
                           (sim.starts() == 1 ? std::string("one START, the design's batch loop")
                                              : std::to_string(sim.starts()) + " STARTs, one a matrix"))
                              .c_str()
                        : "");
  if (swapped)
    std::printf(
        "  swapped      the spec's C is column-major: the design computes Cᵀ = Bᵀ·Aᵀ, the problem above (A "
        "is the spec's B, M its N)\n");
  std::printf("  operands     A at 0x%" PRIx64 ", B at 0x%" PRIx64 ", C at 0x%" PRIx64 " (%u-bit bus addresses)\n",
              A.base, B.base, C.base, o.addr_bits);
  // (The spec's lda and ldb: swapped, the plan's A is the spec's B.)
  if (A.ld != 0 || B.ld != 0 || C.ld != 0)
    std::printf("  strides      lda %" PRId64 ", ldb %" PRId64 ", ldc %" PRId64 " elements (rows %" PRIu64 ", %" PRIu64
                ", %" PRIu64
                " bytes apart); the bytes between C's rows "
                "untouched\n",
                ld[swapped ? 1 : 0], ld[swapped ? 0 : 1], ld[2],
                swapped ? (B.ld ? B.ld : B.row) : (A.ld ? A.ld : A.row),
                swapped ? (A.ld ? A.ld : A.row) : (B.ld ? B.ld : B.row), C.ld ? C.ld : C.row);
  if (epi.bias || epi.relu || epi.requant) {
    std::string what = epi.bias && epi.relu ? "relu(A·B + bias)"
                       : epi.bias           ? "A·B + bias"
                       : epi.relu           ? "relu(A·B)"
                                            : "A·B";
    if (epi.requant) what = "requantized to int" + std::to_string(c_bits) + " of " + what;
    char at[96] = "";
    if (epi.bias && epi.requant)
      std::snprintf(at, sizeof at, " (bias at 0x%" PRIx64 ", rq at 0x%" PRIx64 ")", Bias.base, Rq.base);
    else if (epi.bias || epi.requant)
      std::snprintf(at, sizeof at, " (%s at 0x%" PRIx64 ")", epi.bias ? "bias" : "rq", epi.bias ? Bias.base : Rq.base);
    std::printf("  epilogue     %s%s\n", what.c_str(), at);
  }
  if (finished && (c_bits < acc_bits || epi.requant))
    std::printf("  saturation   %" PRId64 " of %" PRId64 " elements of C saturated to int%d (the reference's count)\n",
                saturated, m * n, epi.requant ? c_bits : 32);
  if (!finished || (status & 4u) != 0) {
    // No run to measure: the design refused the configuration or never signalled DONE.
    std::printf("  cycles       none measured: the run did not finish%s\n",
                (status & 4u) != 0 ? " (the NPU refused it: see the ERROR register above)" : "");
  } else {
    if (batch > 1)
      std::printf("  cycles       %u (CYCLES over the batch; the plan's estimate, %u, is for one matrix)\n", hw_cycles,
                  bound);
    else if (k_max == k)
      std::printf("  cycles       %u (CYCLES register; plan estimate %u, %+.1f%%)\n", hw_cycles, bound,
                  bound ? 100.0 * (static_cast<double>(hw_cycles) - bound) / bound : 0.0);
    else
      std::printf("  cycles       %u (CYCLES register; the plan's estimate, %u, is for its largest K, %" PRId64 ")\n",
                  hw_cycles, bound, k_max);
    std::printf("  MAC array    %.1f useful MACs per cycle of %" PRId64 " PEs: %.1f%% utilization\n", macs / cyc, pes,
                100.0 * macs / (cyc * static_cast<double>(pes)));
    std::printf("  DRAM bus     A+B read %.1f%% of two ports, C write %.1f%%; %" PRIu64 "/%" PRIu64 "/%" PRIu64
                " bursts (A/B/C)\n",
                100.0 * static_cast<double>(sim.read_beats()) / (2 * cyc),
                100.0 * static_cast<double>(sim.write_beats()) / cyc, sim.bursts(0), sim.bursts(1), sim.bursts(2));
    std::printf("  speed        %.0f simulated cycles per second (%" PRIu64 " cycles in %.2f s)\n",
                static_cast<double>(sim_cycles) / (wall > 0 ? wall : 1e-9), sim_cycles, wall);
  }
  if (pass)
    std::printf("PASS: C equals the reference GEMM bit for bit (%" PRId64
                " elements); every burst legal, every C byte written once\n",
                batch * m * n);
  else if (!finished)
    std::printf("FAIL: the run did not finish; %d protocol or run errors (see above)\n", sim.errors());
  else
    std::printf("FAIL: %" PRId64 " of %" PRId64 " C elements differ, %d protocol or run errors (see above)\n",
                mismatches, batch * m * n, sim.errors());
  std::fflush(stdout);
  if (h != nullptr) dgmm_unload(h);
  return pass ? 0 : 1;
}
