#include "module/sign.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <deepgemm/module_signature.h>

#include "support/error.h"
#include "support/files.h"

namespace dg::module {
namespace {

constexpr const char* kSecretHeader = "deepgemm-ed25519-secret-key";
constexpr const char* kPublicHeader = "deepgemm-ed25519-public-key";

void init_sodium() {
  if (sodium_init() < 0) throw InternalError("libsodium could not be initialized");
}

std::string to_hex(const std::uint8_t* p, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", p[i]);
  return s;
}

/// 2n hex digits into n bytes; false when the text is anything else.
bool from_hex(const std::string& text, std::uint8_t* out, std::size_t n) {
  if (text.size() != 2 * n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned v = 0;
    for (int j = 0; j < 2; ++j) {
      const char c = text[2 * i + j];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    out[i] = static_cast<std::uint8_t>(v);
  }
  return true;
}

/// The hex line of a key file whose first line is `header` (or, if `bare_ok`, a file of hex alone).
std::string key_hex(const std::string& path, const char* header, bool bare_ok) {
  std::string text, why;
  if (!read_file_bounded(path, 4096, text, why)) throw UserError(fmt::format("cannot read key '{}': {}", path, why));
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
    at = end + 1;
  }
  if (lines.size() == 2 && lines[0] == header) return lines[1];
  if (bare_ok && lines.size() == 1) return lines[0];
  throw UserError(fmt::format("'{}' is not a {} file (a line '{}' and a line of hex)", path,
                              header == std::string(kSecretHeader) ? "secret key" : "public key", header));
}

/// Creates `path` with `text`, failing if it exists.
void create_new(const std::string& path, const std::string& text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, mode);
  if (fd < 0)
    throw UserError(fmt::format("cannot create '{}': {}{}", path, std::strerror(errno),
                                errno == EEXIST ? " (a key is never replaced; choose another name)" : ""));
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (::close(fd) != 0 || !ok) throw UserError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

}  // namespace

std::string hex(const PublicKey& key) { return to_hex(key.data(), key.size()); }

PublicKey keygen(const std::string& path) {
  init_sodium();
  std::uint8_t seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  randombytes_buf(seed, sizeof seed);
  crypto_sign_seed_keypair(pk, sk, seed);
  create_new(path, fmt::format("{}\n{}\n", kSecretHeader, to_hex(seed, sizeof seed)), 0600);
  sodium_memzero(seed, sizeof seed);
  sodium_memzero(sk, sizeof sk);
  try {
    create_new(path + ".pub", fmt::format("{}\n{}\n", kPublicHeader, to_hex(pk, sizeof pk)), 0644);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  PublicKey out;
  std::copy(pk, pk + 32, out.begin());
  return out;
}

void check_secret_key(const std::string& path) {
  std::uint8_t seed[crypto_sign_SEEDBYTES];
  const bool ok = from_hex(key_hex(path, kSecretHeader, false), seed, sizeof seed);
  sodium_memzero(seed, sizeof seed);
  if (!ok) throw UserError(fmt::format("'{}': the secret key is not 64 hex digits", path));
}

std::vector<std::uint8_t> sign_bytes(const std::vector<std::uint8_t>& module, const std::string& key_path) {
  ko::ModuleView view;
  if (ko::parse(module.data(), module.size(), &view) != ko::Status::Ok)
    throw InternalError(fmt::format("the module to sign does not parse: {}", view.error()));
  ModuleContents c;
  c.target_kind = view.target_kind;
  c.target_name = view.target_name;
  c.flags = view.flags;
  ko::SectionInfo si;
  for (std::uint32_t i = 0; view.section(i, &si); ++i)
    c.sections.push_back({si.kind, si.name, std::vector<std::uint8_t>(si.data, si.data + si.size), si.flags});
  sign(c, key_path);
  return write(c);
}

PublicKey read_public_key(const std::string& path) {
  PublicKey out;
  if (!from_hex(key_hex(path, kPublicHeader, true), out.data(), out.size()))
    throw UserError(fmt::format("'{}': the public key is not 64 hex digits", path));
  return out;
}

void sign(ModuleContents& contents, const std::string& key_path) {
  init_sodium();
  std::uint8_t seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  if (!from_hex(key_hex(key_path, kSecretHeader, false), seed, sizeof seed))
    throw UserError(fmt::format("'{}': the secret key is not 64 hex digits", key_path));
  crypto_sign_seed_keypair(pk, sk, seed);
  sodium_memzero(seed, sizeof seed);
  // The message covers the other sections only: lay the module out without a signature first.
  auto& secs = contents.sections;
  secs.erase(std::remove_if(secs.begin(), secs.end(), [](const Section& s) { return s.kind == ko::sig::kSectionKind; }),
             secs.end());
  const std::vector<std::uint8_t> unsigned_bytes = write(contents);
  ko::ModuleView view;
  if (ko::parse(unsigned_bytes.data(), unsigned_bytes.size(), &view) != ko::Status::Ok)
    throw InternalError(fmt::format("the module to sign does not parse: {}", view.error()));
  std::uint8_t msg[ko::sig::kMessageSize], sig[crypto_sign_BYTES];
  if (!ko::sig::message(view, msg)) throw InternalError("no signature message for a valid module");
  crypto_sign_detached(sig, nullptr, msg, sizeof msg, sk);
  sodium_memzero(sk, sizeof sk);
  Section s;
  s.kind = ko::sig::kSectionKind;
  s.name = "signature";
  s.flags = ko::kSectionFlagOptional;
  s.bytes.resize(ko::sig::kPayloadSize);
  ko::sig::encode(pk, sig, s.bytes.data());
  secs.push_back(std::move(s));
}

}  // namespace dg::module
