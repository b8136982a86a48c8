#include "driver/sim.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <vector>

#include <deepgemm/module_format.h>
#include <deepgemm/module_signature.h>

#include "driver/cache.h"
#include "hw/hw_model.h"
#include "module/sign.h"
#include "support/error.h"
#include "support/files.h"
#include "support/strings.h"

namespace dg::driver {

namespace fs = std::filesystem;

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

std::string find_on_path(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    std::size_t at = 0;
    while (at <= p.size()) {
      std::size_t end = p.find(':', at);
      if (end == std::string::npos) end = p.size();
      fs::path cand = fs::path(p.substr(at, end - at)) / name;
      if (end > at && ::access(cand.c_str(), X_OK) == 0) return cand.string();
      at = end + 1;
    }
  }
  return "";
}

/// Where the harness and the runtime sources are: $DEEPGEMM_SOURCE_DIR, <exe>/../share/deepgemm,
/// then the source tree the compiler was built from.
std::string find_sources(const char* argv0) {
  auto ok = [](const fs::path& root) {
    return fs::exists(root / "sim" / "cosim_main.cpp") &&
           fs::exists(root / "runtime-baremetal" / "src" / "runtime.cpp");
  };
  if (const char* env = std::getenv("DEEPGEMM_SOURCE_DIR"); env != nullptr && ok(env)) return env;
  std::error_code ec;
  fs::path exe = fs::canonical(fs::path(argv0), ec);
  if (!ec && ok(exe.parent_path().parent_path() / "share" / "deepgemm"))
    return (exe.parent_path().parent_path() / "share" / "deepgemm").string();
#ifdef DEEPGEMM_SOURCE_DIR
  if (ok(DEEPGEMM_SOURCE_DIR)) return DEEPGEMM_SOURCE_DIR;
#endif
  return "";
}

int exit_code(int status) {
  return status == -1 ? 127 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Why the Verilog text of a module cannot be built and run, or "": the simulator runs it as a
/// program, so only what the generator emits passes. System tasks and functions outside the
/// generator's pure set (`$system`, `$fopen`, Verilator's `$c` C++ blocks), compiler directives other
/// than conditionals (`` `include ``, `` `define `` and its token pasting, `` `systemc_* `` C++
/// blocks) and DPI imports are refused. Comments and string literals are skipped.
std::string unsafe_verilog(const std::string& t) {
  static const std::set<std::string> tasks = {"clog2", "signed", "unsigned", "bits", "fatal", "error"};
  static const std::set<std::string> directives = {"ifdef", "ifndef",          "else",      "elsif",
                                                   "endif", "default_nettype", "timescale", "resetall"};
  auto word = [&](std::size_t at) {
    std::size_t e = at;
    while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
    return t.substr(at, e - at);
  };
  int line = 1;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') {
      ++line;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      for (i += 2; i + 1 < t.size() && !(t[i] == '*' && t[i + 1] == '/'); ++i) line += t[i] == '\n';
      ++i;
    } else if (c == '"') {
      for (++i; i < t.size() && t[i] != '"'; ++i) {
        if (t[i] == '\\')
          ++i;
        else if (t[i] == '\n')
          ++line;
      }
    } else if (c == '$') {
      const std::string w = word(i + 1);
      if (!tasks.count(w)) return fmt::format("line {}: system task or function '${}'", line, w);
    } else if (c == '`') {
      const std::string w = word(i + 1);
      if (!directives.count(w)) return fmt::format("line {}: compiler directive '`{}'", line, w);
    } else if (std::isalpha(static_cast<unsigned char>(c)) &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(t[i - 1])) || t[i - 1] == '_'))) {
      const std::string w = word(i);
      if (w == "import" || w == "export") {
        std::size_t j = i + w.size();
        while (j < t.size() && std::isspace(static_cast<unsigned char>(t[j]))) ++j;
        if (t.compare(j, 4, "\"DPI") == 0) return fmt::format("line {}: a DPI {}", line, w);
      }
      i += w.size() - 1;
    }
  }
  return "";
}

bool plain_verilog_name(const std::string& n) {
  static const std::regex ok("[A-Za-z_][A-Za-z0-9_]{0,63}\\.(v|sv)");
  return std::regex_match(n, ok);
}

/// The files of a module's Verilog section, as (name, text) in order; false after saying why on
/// `err`. Each is marked by a "// ---- file: NAME" line; only plain Verilog file names pass (no
/// folders: the names become paths, and Verilator would compile a .cpp or read a .vlt it is given).
bool bundle_files(const std::string& bundle, const std::string& module,
                  std::vector<std::pair<std::string, std::string>>& files, std::ostream& err) {
  const std::string mark = "// ---- file: ";
  for (std::size_t at = bundle.find(mark); at != std::string::npos;) {
    const std::size_t name_end = bundle.find('\n', at);
    if (name_end == std::string::npos) break;
    const std::size_t next = bundle.find(mark, name_end);
    std::string name = bundle.substr(at + mark.size(), name_end - at - mark.size());
    if (!plain_verilog_name(name)) {
      err << fmt::format(
          "{}: error: the Verilog section names a bad file '{}' (a Verilog file name, .v or .sv, "
          "is expected)\n",
          module, name);
      return false;
    }
    for (const auto& f : files) {
      if (f.first == name) {
        err << fmt::format("{}: error: the Verilog section holds the file '{}' twice\n", module, name);
        return false;
      }
    }
    files.emplace_back(name,
                       bundle.substr(name_end + 1, (next == std::string::npos ? bundle.size() : next) - name_end - 1));
    at = next;
  }
  return true;
}

}  // namespace

int sim(const SimOptions& o, const char* argv0, std::ostream& out, std::ostream& err) {
  (void)out;
  std::string image, why;
  if (!read_file_bounded(o.module, kMaxModuleBytes, image, why)) {
    err << fmt::format("deepgemm: error: cannot read '{}': {}\n", o.module, why);
    return kExitUserError;
  }
  // The simulator writes the trace itself: the path is checked by the rules of every output first
  // (a block device, a directory or the module itself is refused).
  if (std::string why; !o.trace.empty() && !output_path_ok(o.trace, {o.module}, why)) {
    err << fmt::format("deepgemm: error: cannot write the trace to '{}': {}\n", o.trace,
                       is_one_of(o.trace, {o.module}) ? "it is the module being simulated" : why);
    return kExitUserError;
  }
  ko::ModuleView mv;
  if (ko::parse(reinterpret_cast<const std::uint8_t*>(image.data()), image.size(), &mv) != ko::Status::Ok) {
    err << fmt::format("{}: error: not a valid module: {}\n", o.module, mv.error());
    return kExitUserError;
  }
  if (!o.trusted_key.empty()) {
    const module::PublicKey key = module::read_public_key(o.trusted_key);
    const ko::sig::Check c = ko::sig::check(mv, key.data());
    if (c != ko::sig::Check::Valid) {
      err << fmt::format("{}: error: untrusted module: {}\n", o.module, ko::sig::check_message(c));
      return kExitUserError;
    }
  }
  if (mv.target_kind != ko::TargetKind::Npu) {
    err << fmt::format("{}: error: sim co-simulates NPU modules; this one is for a GPU\n", o.module);
    return kExitUserError;
  }
  // The DRAM model checks the bus rules of the module's own hardware model, at its latency unless
  // --latency says otherwise; loaded before the simulator is built, which takes minutes.
  hw::HwModel model;
  try {
    model = hw::load_named(o.hw_dir, mv.target_name);
  } catch (const UserError& e) {
    err << fmt::format("{}: error: the module's hardware model '{}' cannot be loaded: {}\n", o.module, mv.target_name,
                       e.what());
    return kExitUserError;
  }
  auto verilog = mv.find(ko::SectionKind::Verilog);
  if (!verilog.present) {
    err << fmt::format(
        "{}: error: the module holds no Verilog (its design was not generated or not proved: see "
        "'deepgemm compile --verbose')\n",
        o.module);
    return kExitUserError;
  }
  const std::string bundle(reinterpret_cast<const char*>(verilog.data), verilog.size);

  // The files of the bundle, the top's name and the PE array's size.
  std::vector<std::pair<std::string, std::string>> files;
  if (!bundle_files(bundle, o.module, files, err)) return kExitUserError;
  for (const auto& [name, text] : files) {
    if (std::string why = unsafe_verilog(text); !why.empty()) {
      err << fmt::format(
          "{}: error: the module's Verilog is not what deepgemm generates, and is not built or run: "
          "{}, {}\n",
          o.module, name, why);
      return kExitUserError;
    }
  }
  // The top is the first file; the PE array's size is in the core's (the second).
  std::smatch mt, mr, mc;
  if (files.size() < 2 ||
      !std::regex_search(files[0].second, mt, std::regex("\nmodule (npu_gemm_[A-Za-z0-9_]+) \\(")) ||
      !std::regex_search(files[1].second, mr, std::regex("\\.Rows\\(([0-9]+)\\)")) ||
      !std::regex_search(files[1].second, mc, std::regex("\\.Cols\\(([0-9]+)\\)"))) {
    err << fmt::format("{}: error: the Verilog section does not hold a generated NPU top\n", o.module);
    return kExitUserError;
  }
  const std::string top = mt[1].str();

  const std::string src = find_sources(argv0);
  if (src.empty()) {
    err << "deepgemm: error: cannot find the co-simulation harness (sim/cosim_main.cpp) and the runtime sources; set "
           "DEEPGEMM_SOURCE_DIR to the DeepGEMM source tree\n";
    return kExitUserError;
  }
  const std::string verilator = find_on_path("verilator");
  if (verilator.empty()) {
    err << "deepgemm: error: verilator not found on PATH (toolchain/bootstrap.sh installs it)\n";
    return kExitUserError;
  }
  const std::vector<std::string> sources = {"sim/cosim_main.cpp", "runtime-baremetal/src/plan_json.cpp",
                                            "runtime-baremetal/src/gemm.cpp", "runtime-baremetal/src/runtime.cpp"};
  std::vector<std::string> key_parts = {bundle, o.trace.empty() ? "" : "trace"};
  for (const auto& s : sources) {
    std::string text;
    read_file((fs::path(src) / s).string(), text);
    key_parts.push_back(text);
  }
  std::error_code ec;
  for (const char* dir : {"sim", "runtime-baremetal/include/deepgemm", "runtime-baremetal/src"})
    for (const auto& e : fs::directory_iterator(fs::path(src) / dir, ec))
      if (e.path().extension() == ".h") {
        std::string text;
        read_file(e.path().string(), text);
        key_parts.push_back(e.path().filename().string() + text);
      }
  std::string cdir = cache_dir();
  const fs::path work =
      (cdir.empty() ? fs::temp_directory_path(ec) / "deepgemm-sim" : fs::path(cdir) / "sim") / cache_key(key_parts);
  const fs::path exe = work / "cosim";
  if (o.rebuild || !fs::exists(exe)) {
    // Build in a fresh directory beside the entry, then move the simulator into place.
    const fs::path tmp = fs::path(work.string() + fmt::format(".tmp{}", ::getpid()));
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp / "v", ec);
    if (ec) {
      err << fmt::format("deepgemm: error: cannot create '{}': {}\n", tmp.string(), ec.message());
      return kExitUserError;
    }
    std::string list;
    for (const auto& [name, text] : files) {
      std::ofstream(tmp / "v" / name) << text;
      list += " " + shell_quote((tmp / "v" / name).string());
    }
    list += " " + shell_quote((fs::path(src) / sources[0]).string());
    // The runtime core refuses hosted builds: compile it with its freestanding flags first.
    const std::string cxx = std::getenv("CXX") != nullptr ? std::getenv("CXX") : "c++";
    for (std::size_t i = 1; i < sources.size(); ++i) {
      const fs::path obj = tmp / fmt::format("runtime{}.o", i);
      std::string cc = fmt::format(
          "{} -std=c++20 -O1 -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -I{} -I{} -c {} -o {} >> "
          "{} 2>&1",
          cxx, shell_quote((fs::path(src) / "runtime-baremetal" / "include").string()),
          shell_quote((fs::path(src) / "runtime-baremetal" / "src").string()),
          shell_quote((fs::path(src) / sources[i]).string()), shell_quote(obj.string()),
          shell_quote((tmp / "build.log").string()));
      if (exit_code(std::system(cc.c_str())) != 0) {
        std::string log;
        read_file((tmp / "build.log").string(), log);
        err << fmt::format("deepgemm: error: compiling the runtime for the simulator failed:\n{}", log);
        return kExitUserError;
      }
      list += " " + shell_quote(obj.string());
    }
    std::string cflags =
        fmt::format("-std=c++20 -O1 -I{} -DTOP_NAME=\\\"{}\\\" -DPE_ROWS={} -DPE_COLS={}",
                    (fs::path(src) / "runtime-baremetal" / "include").string(), top, mr[1].str(), mc[1].str());
    // DG_AXI4_CHECK: the top binds the AXI4 protocol checker to each of its interfaces.
    std::string cmd = fmt::format(
        "{} --cc --exe --build -j 2 --prefix Vtop --top-module {} -DDG_AXI4_CHECK -Wno-fatal {} -CFLAGS {} -Mdir {} -o "
        "cosim{} > {} 2>&1",
        shell_quote(verilator), top, o.trace.empty() ? "" : "--trace", shell_quote(cflags),
        shell_quote((tmp / "obj").string()), list, shell_quote((tmp / "build.log").string()));
    err << fmt::format(
        "deepgemm sim: Verilating {} with the harness and the runtime (once per design; a minute or two "
        "for a 16x16 array)...\n",
        top);
    auto t0 = std::chrono::steady_clock::now();
    int rc = exit_code(std::system(cmd.c_str()));
    if (rc != 0 || !fs::exists(tmp / "obj" / "cosim")) {
      std::string log;
      read_file((tmp / "build.log").string(), log);
      if (log.size() > 4000) log = "...\n" + log.substr(log.size() - 4000);
      err << fmt::format("deepgemm: error: building the simulator failed (verilator exit {}):\n{}", rc, log);
      return kExitUserError;
    }
    fs::create_directories(work, ec);
    fs::rename(tmp / "obj" / "cosim", exe, ec);
    fs::remove_all(tmp, ec);
    if (ec) {
      err << fmt::format("deepgemm: error: cannot store the simulator in '{}': {}\n", work.string(), ec.message());
      return kExitUserError;
    }
    if (o.verbose)
      err << fmt::format("deepgemm sim: built {} ({:.1f} s)\n", exe.string(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  } else if (o.verbose) {
    err << fmt::format("deepgemm sim: using the simulator in {}\n", exe.string());
  }
  const unsigned latency = o.latency_given ? o.latency : static_cast<unsigned>(model.npu.dram_latency_cycles);
  // The simulator reads the very bytes checked above (signature, Verilog), from a private copy:
  // the module file may change after the checks.
  const fs::path copy =
      fs::temp_directory_path(ec) / fmt::format("deepgemm-sim-{}-{}.ko", ::getpid(), cache_key({image}));
  std::string why_copy;
  if (!write_file_atomic(copy.string(), image, why_copy)) {
    err << fmt::format("deepgemm: error: cannot write '{}': {}\n", copy.string(), why_copy);
    return kExitUserError;
  }
  std::string cmd = fmt::format("{} --module {} --latency {} --boundary {} --max-burst {} --stall {} --seed {}",
                                shell_quote(exe.string()), shell_quote(copy.string()), latency,
                                model.npu.bus_boundary_bytes, model.npu.bus_max_burst_beats, o.stall, o.seed);
  if (o.m != 0) cmd += fmt::format(" --m {}", o.m);
  if (o.n != 0) cmd += fmt::format(" --n {}", o.n);
  if (o.k != 0) cmd += fmt::format(" --k {}", o.k);
  for (int i = 0; i < 3; ++i)
    if (o.ld[i] != 0) cmd += fmt::format(" --ld{} {}", "abc"[i], o.ld[i]);
  if (o.batch != 0) cmd += fmt::format(" --batch {}", o.batch);
  for (int i = 0; i < 3; ++i)
    if (o.stride[i] >= 0) cmd += fmt::format(" --stride-{} {}", "abc"[i], o.stride[i]);
  if (o.max_cycles != 0) cmd += fmt::format(" --max-cycles {}", o.max_cycles);
  if (!o.trace.empty()) cmd += " --trace " + shell_quote(o.trace);
  if (!o.base.empty()) cmd += " --base " + shell_quote(o.base);
  std::fflush(nullptr);
  int rc = exit_code(std::system(cmd.c_str()));
  fs::remove(copy, ec);
  return rc == 0 ? 0 : kExitUserError;
}

int extract_verilog(const std::vector<std::uint8_t>& image, const std::string& module, const std::string& dir,
                    std::ostream& out, std::ostream& err) {
  ko::ModuleView mv;
  if (ko::parse(image.data(), image.size(), &mv) != ko::Status::Ok) {
    err << fmt::format("{}: error: not a valid module: {}\n", module, mv.error());
    return kExitUserError;
  }
  auto verilog = mv.find(ko::SectionKind::Verilog);
  if (!verilog.present) {
    err << fmt::format("{}: error: the module holds no Verilog ({})\n", module,
                       mv.target_kind == ko::TargetKind::Npu
                           ? "its design was not generated or not proved: see 'deepgemm compile --verbose'"
                           : "it is for a GPU");
    return kExitUserError;
  }
  std::vector<std::pair<std::string, std::string>> files;
  if (!bundle_files(std::string(reinterpret_cast<const char*>(verilog.data), verilog.size), module, files, err))
    return kExitUserError;
  if (files.empty()) {
    err << fmt::format("{}: error: the Verilog section holds no file\n", module);
    return kExitUserError;
  }
  if (std::string why; !write_output_files(dir, files, {module}, why)) {
    err << fmt::format("deepgemm: error: {} (the Verilog)\n", why);
    return kExitUserError;
  }
  out << fmt::format("verilog: {} files written to {}\n", files.size(), dir);
  return 0;
}

}  // namespace dg::driver
