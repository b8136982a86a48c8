#include "driver/cache.h"

#include <deepgemm/module_format.h>
#include <fmt/format.h>
#include <unistd.h>

#include "support/files.h"

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

std::string proof_cache_dir() {
  if (const char* d = std::getenv("DEEPGEMM_PROOF_CACHE_DIR")) return d;
  const std::string c = cache_dir();
  return c.empty() ? "" : (fs::path(c) / "proofs").string();
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
  return write_output_file(path, bytes, {}, why);
}

namespace {

/// The text stored beside an entry: what it was made for.
std::string key_record(const std::string& key, ko::TargetKind kind, const std::string& target) {
  return fmt::format("deepgemm cache entry\nkey {}\ntarget {} {}\n", key, kind == ko::TargetKind::Gpu ? "gpu" : "npu",
                     target);
}

}  // namespace

std::optional<std::vector<std::uint8_t>> cache_lookup(const std::string& dir, const std::string& key,
                                                      ko::TargetKind kind, const std::string& target,
                                                      std::string& why) {
  fs::path p = fs::path(dir) / (key + ".ko"), k = fs::path(dir) / (key + ".key");
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    why = "absent";
    return std::nullopt;
  }
  auto reject = [&](const std::string& reason) -> std::optional<std::vector<std::uint8_t>> {
    why = fmt::format("corrupt entry {} ({}); rebuilding", p.string(), reason);
    if (fs::is_regular_file(fs::symlink_status(p, ec))) fs::remove(p, ec);
    if (fs::is_regular_file(fs::symlink_status(k, ec))) fs::remove(k, ec);
    return std::nullopt;
  };
  std::vector<std::uint8_t> bytes;
  std::string record, err;
  if (!read_file_bounded(p.string(), kMaxModuleBytes, bytes, err)) return reject("cannot be read: " + err);
  if (!read_file_bounded(k.string(), 4096, record, err)) return reject("no key record: " + err);
  ko::ModuleView view;
  if (ko::parse(bytes.data(), bytes.size(), &view) != ko::Status::Ok) return reject(view.error());
  if (record != key_record(key, kind, target)) return reject("its key record is for another key");
  if (view.target_kind != kind || std::string(view.target_name) != target)
    return reject(fmt::format("a module for {} {}, not for this spec's {}",
                              view.target_kind == ko::TargetKind::Gpu ? "GPU" : "NPU", view.target_name, target));
  return bytes;
}

bool cache_store(const std::string& dir, const std::string& key, ko::TargetKind kind, const std::string& target,
                 const std::vector<std::uint8_t>& bytes, std::string& why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    why = fmt::format("cannot create {}: {}", dir, ec.message());
    return false;
  }
  // The key record first: a module without one is never served.
  return write_file_atomic((fs::path(dir) / (key + ".key")).string(), key_record(key, kind, target), why) &&
         write_file_atomic((fs::path(dir) / (key + ".ko")).string(), std::string(bytes.begin(), bytes.end()), why);
}

}  // namespace dg::driver
