#include "codegen/ptx_backend.h"

#include <fmt/format.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/families.h"
#include "codegen/nvptx_emit.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

bool is_m8n8k4(const Plan& p) {
  return p.family == hw::Family::MmaSync && p.instr_m == 8 && p.instr_n == 8 && p.instr_k == 4;
}

class GpuBackend : public PtxBackend {
 public:
  explicit GpuBackend(const hw::HwModel& hw) : hw_(hw) {}

  Artifacts generate(const Plan& plan) override {
    if (std::string why = unsupported_reason(plan, hw_); !why.empty()) throw UserError(why);
    llvm::LLVMContext ctx;
    auto m = std::make_unique<llvm::Module>("deepgemm", ctx);
    std::string family = plan.family == hw::Family::MmaSync ? "" : fmt::format("{}_", plan.family);
    std::string name = fmt::format("dg_gemm_{}{}_{}x{}x{}", family, plan.a_type, plan.tile_m, plan.tile_n, plan.tile_k);
    Artifacts a;
    if (plan.loader == "tma") name += "_tma";
    if (plan.split_k > 1) name += fmt::format("_sk{}", plan.split_k);
    if (plan.loader == "registers")
      name = fmt::format("dg_gemm_{}_{}_{}_{}",
                         plan.b_type == "u4"          ? "u4"
                         : plan.b_type == "int4_e2m1" ? "f4"
                                                      : "w4",
                         plan.a_type, plan.scale_b, plan.c_type);
    a.launch = plan.loader == "registers" ? build_w4a16(plan, hw_, ctx, *m, name)
               : plan.family == hw::Family::Wgmma
                   ? (plan.loader == "tma" ? build_wgmma_tma(plan, ctx, *m, name) : build_wgmma(plan, ctx, *m, name))
               : plan.family == hw::Family::Simt ? build_simt(plan, ctx, *m, name)
               : is_m8n8k4(plan)                 ? build_mma_sync_m8n8k4(plan, ctx, *m, name)
                                                 : build_mma_sync(plan, ctx, *m, name);
    const auto& g = hw_.gpu;
    const std::string& arch = g.arch;
    a.launch.compute_capability = static_cast<std::uint32_t>(std::stoi(arch.substr(3, 2)));
    a.llvm_ir = print_ir(*m);
    a.ptx = emit_ptx(*m, arch, fmt::format("+ptx{}{}", g.ptx_version_major, g.ptx_version_minor));
    a.ptxas = run_ptxas(a.ptx, arch);
    return a;
  }

 private:
  const hw::HwModel& hw_;
};

}  // namespace

std::string unsupported_reason(const Plan& p, const hw::HwModel& hw) {
  if (!hw.is_gpu()) return "the PTX backend generates code for GPU targets only";
  if (p.family == hw::Family::Npu)
    return fmt::format("the '{}' family has no PTX generator yet (mma.sync, wgmma and simt only)", p.family);
  if (p.loader == "registers") return w4a16_unsupported(p, hw);
  if (!p.weight_conversion.empty())
    return fmt::format("in-register conversion of {} weights is not generated yet", p.b_type);
  const bool half = (p.a_type == "fp16" || p.a_type == "bf16") && p.a_type == p.b_type && p.acc_type == "fp32";
  const bool int8 = p.a_type == "int8" && p.b_type == "int8" && p.acc_type == "int32";
  auto is_fp8 = [](const std::string& t) { return t == "fp8_e4m3" || t == "fp8_e5m2"; };
  const bool fp8 = is_fp8(p.a_type) && is_fp8(p.b_type) && p.acc_type == "fp32";
  const bool f32 = p.a_type == "fp32" && p.b_type == "fp32" && p.acc_type == "fp32";
  // fp16_fma: fp16 inputs accumulated in fp16, on the SIMT family only (simt_unsupported).
  const bool half_acc = p.a_type == "fp16" && p.b_type == "fp16" && p.acc_type == "fp16";
  if (p.family == hw::Family::Simt) {
    if (std::string why = simt_unsupported(p, hw); !why.empty()) return why;
    if (!half && !f32 && !half_acc) return "the SIMT family takes fp32, fp16 or bf16 inputs";
    if (half_acc && p.c_type != "fp16" && p.c_type != "fp32") return "fp16 accumulation writes fp16 or fp32 outputs";
  } else if (f32) {
    return "fp32 inputs run on CUDA cores (the simt family)";
  }
  if (!half && !int8 && !fp8 && !f32 && !(half_acc && p.family == hw::Family::Simt))
    return fmt::format(
        "the {} generator handles fp16 and bf16 inputs with fp32 accumulation, fp8 (e4m3, e5m2) with "
        "fp32 on wgmma, and int8 with int32, only",
        p.family);
  if (fp8 && p.family != hw::Family::Wgmma) return "fp8 inputs are generated on the wgmma family only";
  if ((half || fp8 || f32) && p.c_type != "fp16" && p.c_type != "bf16" && p.c_type != "fp32")
    return "outputs are fp16, bf16 or fp32";
  if (int8 && p.c_type != "int32") return "int8 GEMMs write int32 outputs only";
  if (!p.index.a_row_major || !p.index.c_row_major)
    return fmt::format("the {} generator handles row-major A and C only (B may be either)", p.family);
  if (p.split_k < 1) return "split_k is at least 1";
  if (p.split_k != 1 && !(p.family == hw::Family::Wgmma && p.loader == "tma") && p.family != hw::Family::Simt)
    return "the split-K reduction is generated for the wgmma kernel with the TMA loader and the SIMT kernel only";
  if (p.batch > 65535) return "a batch of more than 65535 matrices (the grid's y extent)";
  if (p.k_dynamic && is_m8n8k4(p)) return "a run-time K range is generated for mma.sync and wgmma (not Volta's m8n8k4)";
  if (p.k_dynamic && p.batch > 1) return "a run-time K with batches is not generated yet";
  if (p.k_dynamic && (p.K_min % p.k_align != 0 || p.K_max % p.k_align != 0))
    return fmt::format(
        "a run-time K is a multiple of {} (A's rows start on 16-byte boundaries); K_min {} and K_max {} "
        "must be too",
        p.k_align, p.K_min, p.K_max);
  if (fp8 && p.index.b_row_major)
    return "fp8 B must be K-major for wgmma m64nNk32, which transposes 16-bit elements only; declare 'B: col_major;' "
           "in the layout block";
  if (int8 && p.index.b_row_major)
    return fmt::format(
        "int8 B must be K-major for {}: {} transposes 16-bit elements only; declare 'B: col_major;' "
        "in the layout block",
        p.family == hw::Family::Wgmma ? "wgmma m64nNk32" : "mma.sync m16n8k32",
        p.family == hw::Family::Wgmma ? "wgmma" : "ldmatrix");
  const std::int64_t per_chunk = int8 || fp8 ? 16 : f32 ? 4 : 8;  // elements per 16-byte load
  // A K that is not a multiple of a 16-byte load's elements (pad_k) is loaded element by element
  // (KernelBuilder::load_operand); N is not.
  if (!is_m8n8k4(p) &&  // (the register-staged Volta loads fall back to 2-byte loads)
      ((p.index.b_row_major && p.N % per_chunk != 0) || p.N % 8 != 0))
    return fmt::format("16-byte loads and paired stores need N to be a multiple of {} (N = {})",
                       p.index.b_row_major ? std::max<std::int64_t>(per_chunk, 8) : 8, p.N);
  if ((p.scale_a != "none" || p.scale_b != "none") && (int8 || p.acc_type != "fp32"))
    return "per-tensor scales multiply an fp32 accumulation only";
  if ((p.alpha != 1 || p.beta != 0) && int8) return "alpha and beta scale a float accumulation only (not int8's int32)";
  if (p.epilogue != "none" && int8)
    return fmt::format("the fused '{}' epilogue is generated for float accumulators only (not int8's int32)",
                       p.epilogue);
  if (p.family == hw::Family::Wgmma && p.loader == "tma") return wgmma_tma_unsupported(p, hw);
  if (p.family == hw::Family::Wgmma) return wgmma_unsupported(p, hw);
  if (p.loader == "tma") return "the TMA loader is generated for the wgmma family only";
  if (p.family == hw::Family::Simt) return "";
  return is_m8n8k4(p) ? mma_sync_m8n8k4_unsupported(p, hw) : mma_sync_unsupported(p, hw);
}

std::unique_ptr<PtxBackend> make_ptx_backend(const hw::HwModel& model) { return std::make_unique<GpuBackend>(model); }

}  // namespace dg::codegen
