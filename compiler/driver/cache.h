// The module cache: $DEEPGEMM_CACHE_DIR, else $HOME/.deepgemm/cache. Entries are keyed by the
// spec text, the hardware model's bytes and the compiler version; writes are atomic (temporary
// file, then rename), so concurrent compiles of one spec are safe; an entry that does not parse
// as a module of this ABI (corrupt, truncated, older format), lacks the key record it was stored
// with, or holds a module for another target is rebuilt, never trusted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <deepgemm/module_format.h>

namespace dg::driver {

/// The cache directory, or "" when neither variable is set.
std::string cache_dir();

/// The NPU proof cache (hdlgen::prove's cache_dir): $DEEPGEMM_PROOF_CACHE_DIR where it is set (set
/// and empty: no proof cache), else the module cache's `proofs` folder, else "".
std::string proof_cache_dir();

/// A 128-bit hex key over the parts (each length-prefixed, so boundaries matter).
std::string cache_key(const std::vector<std::string>& parts);

/// The cached module for `key`, validated: it parses, its key record (KEY.key beside KEY.ko) names
/// `key`, and it is a module for `kind` and `target`; nullopt with `why` ("absent", "... is corrupt
/// ...; rebuilding") otherwise, and a bad entry is removed.
std::optional<std::vector<std::uint8_t>> cache_lookup(const std::string& dir, const std::string& key,
                                                      ko::TargetKind kind, const std::string& target, std::string& why);

/// Store atomically with its key record; failures are reported in `why` and otherwise ignored (a
/// cache is optional).
bool cache_store(const std::string& dir, const std::string& key, ko::TargetKind kind, const std::string& target,
                 const std::vector<std::uint8_t>& bytes, std::string& why);

/// Write `bytes` to `path` atomically (temporary file beside it, then rename).
bool write_file_atomic(const std::string& path, const std::string& bytes, std::string& why);

}  // namespace dg::driver
