#include "hdlgen/tool_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dg::hdlgen {

namespace fs = std::filesystem;

std::string find_yosys() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      fs::path p = fs::path(dir) / "yosys";
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

Scratch::Scratch(const Design& d) {
  static std::atomic<int> serial{0};
  std::error_code ec;
  dir_ = (fs::temp_directory_path(ec) / fmt::format("deepgemm-hdl-{}-{}", ::getpid(), serial++)).string();
  fs::create_directories(dir_, ec);
  for (const auto& f : d.files) {
    std::ofstream(fs::path(dir_) / f.name) << f.text;
    files_.push_back(f.name);
  }
}

Scratch::~Scratch() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string Scratch::file_list() const {
  std::string out;
  for (const auto& f : files_) out += (out.empty() ? "" : " ") + f;
  return out;
}

int Scratch::yosys(const std::string& script, std::string& log) const {
  const std::string tool = find_yosys();
  if (tool.empty()) {
    log = "yosys not found on PATH";
    return 127;
  }
  static std::atomic<int> serial{0};
  const std::string name = fmt::format("run{}.ys", serial++);
  std::ofstream(fs::path(dir_) / name) << script;
  std::string cmd = fmt::format("cd '{}' && '{}' -q -l {}.log -s {} > /dev/null 2>&1", dir_, tool, name, name);
  int rc = std::system(cmd.c_str());
  log = read(name + ".log");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

std::string Scratch::read(const std::string& name) const {
  std::ifstream in(fs::path(dir_) / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace dg::hdlgen
