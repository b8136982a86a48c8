// Shared by the runtime tests: a tiny check harness (no test framework is available on the GPU
// host) and builders for small GPU modules, written with the module and launch-record writers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "deepgemm/launch_format.h"
#include "deepgemm/module_format.h"
#include "deepgemm/runtime.h"

namespace dgtest {

// ---- Checks
// --------------------------------------------------------------------------------------

inline int g_passed = 0;
inline int g_failed = 0;

inline bool check(bool ok, const std::string& what, const char* file, int line) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::fprintf(stderr, "%s:%d: FAILED: %s\n    dgmm_last_error(): %s\n", file, line, what.c_str(), dgmm_last_error());
  }
  return ok;
}

inline bool check_status(dgmm_status got, dgmm_status want, const char* expr, const char* file, int line) {
  return check(got == want,
               std::string(expr) + " returned " + dgmm_status_string(got) + ", expected " + dgmm_status_string(want),
               file, line);
}

inline bool check_contains(const std::string& text, const std::string& part, const char* expr, const char* file,
                           int line) {
  return check(text.find(part) != std::string::npos,
               std::string(expr) + " = \"" + text + "\" does not contain \"" + part + "\"", file, line);
}

/// Prints the summary line and returns the exit code.
inline int report() {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

#define DG_CHECK(cond) ::dgtest::check(static_cast<bool>(cond), #cond, __FILE__, __LINE__)
#define DG_CHECK_STATUS(expr, want) ::dgtest::check_status((expr), (want), #expr, __FILE__, __LINE__)
#define DG_CHECK_CONTAINS(text, part) ::dgtest::check_contains((text), (part), #text, __FILE__, __LINE__)
/// The last error's status and message after a call that failed.
#define DG_CHECK_ERROR(want, part)                             \
  do {                                                         \
    DG_CHECK_STATUS(dgmm_last_error_code(), (want));           \
    DG_CHECK_CONTAINS(std::string(dgmm_last_error()), (part)); \
  } while (0)

// ---- Modules
// -------------------------------------------------------------------------------------

/// The launch record of the tests' elementwise kernel dg_add (C = A + B over M x N fp32).
inline dg::ko::launch::Launch add_launch(uint32_t m, uint32_t n, uint32_t block = 128, uint32_t smem = 0,
                                         uint32_t carveout = 0, uint32_t cc = 70) {
  dg::ko::launch::Launch l{};
  std::snprintf(l.kernel, sizeof(l.kernel), "%s", "dg_add");
  const uint64_t elems = uint64_t(m) * n;
  l.grid[0] = static_cast<uint32_t>((elems + block - 1) / block);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = block;
  l.block[1] = l.block[2] = 1;
  l.smem_bytes = smem;
  l.carveout_percent = carveout;
  l.compute_capability = cc;
  l.operand_count = 3;
  l.M = m;
  l.N = n;
  l.K = 1;
  l.batch = 1;
  l.K_min = 1;
  l.k_align = 1;
  const char* names[3] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    dg::ko::launch::Operand& o = l.operands[i];
    std::snprintf(o.name, sizeof(o.name), "%s", names[i]);
    o.role = i < 2 ? dg::ko::launch::Role::Input : dg::ko::launch::Role::Output;
    o.bytes = elems * 4;
    o.element_bits = 32;
    o.row_major = true;
    o.ld = n;
  }
  return l;
}

inline std::vector<uint8_t> launch_bytes(const dg::ko::launch::Launch& l) {
  std::vector<uint8_t> out(dg::ko::launch::size_for(l.operand_count));
  dg::ko::launch::write(l, out.data());
  return out;
}

/// What goes into a test module; a section is written when its `has_` flag is set.
struct ModuleParts {
  dg::ko::TargetKind kind = dg::ko::TargetKind::Gpu;
  std::string target = "volta";
  bool has_ptx = true;
  std::string ptx;
  bool has_cubin = false;
  std::vector<uint8_t> cubin;
  bool has_launch = true;
  std::vector<uint8_t> launch;  // the LAUNCH payload, usually launch_bytes(add_launch(...))
};

inline std::vector<uint8_t> build_module(const ModuleParts& p) {
  std::vector<dg::ko::SectionSpec> sections;
  const char plan[] = "{\"note\":\"runtime test module\"}";
  sections.push_back({static_cast<uint32_t>(dg::ko::SectionKind::Plan), 0, "plan",
                      reinterpret_cast<const uint8_t*>(plan), uint32_t(sizeof(plan) - 1)});
  if (p.has_ptx) {
    sections.push_back({static_cast<uint32_t>(dg::ko::SectionKind::Ptx), 0, "ptx",
                        reinterpret_cast<const uint8_t*>(p.ptx.data()), uint32_t(p.ptx.size())});
  }
  if (p.has_cubin) {
    sections.push_back(
        {static_cast<uint32_t>(dg::ko::SectionKind::Cubin), 0, "cubin", p.cubin.data(), uint32_t(p.cubin.size())});
  }
  if (p.has_launch) {
    sections.push_back(
        {static_cast<uint32_t>(dg::ko::SectionKind::Launch), 0, "launch", p.launch.data(), uint32_t(p.launch.size())});
  }
  dg::ko::ModuleSpec spec;
  spec.target_kind = p.kind;
  spec.target_name = p.target.c_str();
  spec.sections = sections.data();
  spec.section_count = uint32_t(sections.size());
  std::vector<uint8_t> out(dg::ko::module_size(spec.sections, spec.section_count));
  size_t written = 0;
  dg::ko::ErrorDetail err;
  if (dg::ko::write(spec, out.data(), out.size(), &written, &err) != dg::ko::Status::Ok) {
    std::fprintf(stderr, "test module cannot be written: %s\n", err.text);
    out.clear();
  }
  return out;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  const std::string s = read_text(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

inline bool write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return bool(out);
}

/// The tests' PTX kernel (tests/gpu/add_f32.ptx), read from the source tree.
inline std::string add_ptx() { return read_text(std::string(DEEPGEMM_GPU_TEST_DIR) + "/add_f32.ptx"); }

/// A valid module running dg_add on an M x N problem.
inline std::vector<uint8_t> add_module(uint32_t m, uint32_t n, uint32_t smem = 0, uint32_t carveout = 0) {
  ModuleParts p;
  p.ptx = add_ptx();
  p.launch = launch_bytes(add_launch(m, n, 128, smem, carveout));
  return build_module(p);
}

}  // namespace dgtest
