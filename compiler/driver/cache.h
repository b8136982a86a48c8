// The module cache: $DEEPGEMM_CACHE_DIR, else $HOME/.deepgemm/cache. Entries are keyed by the
// spec text, the hardware model's bytes and the compiler version; writes are atomic (temporary
// file, then rename), so concurrent compiles of one spec are safe; an entry that does not parse
// as a module of this ABI (corrupt, truncated, older format) is rebuilt, never trusted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dg::driver {

/// The cache directory, or "" when neither variable is set.
std::string cache_dir();

/// A 128-bit hex key over the parts (each length-prefixed, so boundaries matter).
std::string cache_key(const std::vector<std::string>& parts);

/// The cached module for `key`, validated; nullopt with `why` ("absent", "corrupt: ...") if none.
std::optional<std::vector<std::uint8_t>> cache_lookup(const std::string& dir, const std::string& key, std::string& why);

/// Store atomically; failures are reported in `why` and otherwise ignored (a cache is optional).
bool cache_store(const std::string& dir, const std::string& key, const std::vector<std::uint8_t>& bytes,
                 std::string& why);

/// Write `bytes` to `path` atomically (temporary file beside it, then rename).
bool write_file_atomic(const std::string& path, const std::string& bytes, std::string& why);

}  // namespace dg::driver
