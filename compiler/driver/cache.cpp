#include "driver/cache.h"

#include <deepgemm/module_format.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace dg::driver {

namespace fs = std::filesystem;

std::string cache_dir() {
  if (const char* d = std::getenv("DEEPGEMM_CACHE_DIR"); d && *d) return d;
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".deepgemm" / "cache").string();
  return "";
}

std::string cache_key(const std::vector<std::string>& parts) {
  // Two FNV-1a 64-bit hashes with different offsets: a 128-bit key, ample for a local cache.
  std::uint64_t h1 = 14695981039346656037ull, h2 = 0x6c62272e07bb0142ull;
  auto mix = [&](unsigned char c) {
    h1 = (h1 ^ c) * 1099511628211ull;
    h2 = (h2 ^ c) * 1099511628211ull;
    h2 ^= h2 >> 29;
  };
  for (const auto& p : parts) {
    std::uint64_t n = p.size();
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(n >> (8 * i)));
    for (char c : p) mix(static_cast<unsigned char>(c));
  }
  return fmt::format("{:016x}{:016x}", h1, h2);
}

bool write_file_atomic(const std::string& path, const std::string& bytes, std::string& why) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string tmp = fmt::format("{}.tmp.{}.{}.{:x}", path, ::getpid(), counter++, rd());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f || !f.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !f.flush()) {
      why = std::strerror(errno);
      std::error_code ec;
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    why = ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

std::optional<std::vector<std::uint8_t>> cache_lookup(const std::string& dir, const std::string& key, std::string& why) {
  fs::path p = fs::path(dir) / (key + ".ko");
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    why = "absent";
    return std::nullopt;
  }
  std::ifstream in(p, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ko::ModuleView view;
  if (ko::parse(bytes.data(), bytes.size(), &view) != ko::Status::Ok) {
    why = fmt::format("corrupt entry {} ({}); rebuilding", p.string(), view.error());
    fs::remove(p, ec);
    return std::nullopt;
  }
  return bytes;
}

bool cache_store(const std::string& dir, const std::string& key, const std::vector<std::uint8_t>& bytes,
                 std::string& why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    why = fmt::format("cannot create {}: {}", dir, ec.message());
    return false;
  }
  return write_file_atomic((fs::path(dir) / (key + ".ko")).string(), std::string(bytes.begin(), bytes.end()), why);
}

}  // namespace dg::driver
