#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "codegen/ptx_backend.h"

namespace dg::codegen {

namespace fs = std::filesystem;

namespace {

std::string find_ptxas() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      fs::path p = fs::path(dir) / "ptxas";
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  if (::access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  return "";
}

}  // namespace

PtxasReport run_ptxas(const std::string& ptx, const std::string& arch) {
  PtxasReport r;
  r.tool = find_ptxas();
  if (r.tool.empty()) {
    r.not_run = "ptxas not found";
    return r;
  }
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec) / fmt::format("deepgemm-ptxas-{}-{}", ::getpid(), std::rand());
  fs::create_directories(dir, ec);
  fs::path in = dir / "kernel.ptx", out = dir / "kernel.cubin", log = dir / "ptxas.log";
  std::ofstream(in) << ptx;
  std::string cmd = fmt::format("'{}' -arch={} -O3 -v -o '{}' '{}' > '{}' 2>&1", r.tool, arch, out.string(),
                                in.string(), log.string());
  int rc = std::system(cmd.c_str());
  std::ifstream lf(log);
  std::stringstream ls;
  ls << lf.rdbuf();
  r.log = ls.str();
  r.ran = true;
  if (rc == 0) {
    std::ifstream cf(out, std::ios::binary);
    r.cubin.assign(std::istreambuf_iterator<char>(cf), std::istreambuf_iterator<char>());
    std::smatch m;
    if (std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) r.registers = std::stoi(m[1]);
    if (std::regex_search(r.log, m, std::regex("(\\d+) bytes spill stores, (\\d+) bytes spill loads"))) {
      r.spill_stores = std::stoi(m[1]);
      r.spill_loads = std::stoi(m[2]);
    }
    if (std::regex_search(r.log, m, std::regex("(\\d+) bytes smem"))) r.smem_static = std::stoi(m[1]);
  } else if (r.log.find("is not defined for option 'gpu-name'") != std::string::npos) {
    // A toolkit that dropped the target (CUDA 13 has no sm_70): the PTX is still valid input for
    // the driver's JIT on a newer GPU.
    r.ran = false;
    r.not_run = fmt::format("{} cannot assemble for {} (its toolkit dropped the target)", r.tool, arch);
  } else {
    r.cubin.clear();
    r.log = fmt::format("ptxas failed (exit {}):\n{}", rc, r.log);
  }
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace dg::codegen
