// Module signatures: keygen, compile-side signing (libsodium), the shared check
// (<deepgemm/module_signature.h>, the freestanding verifier), and the refusals of both runtimes
// once they are given a trusted key.
#include <doctest/doctest.h>
#include <sodium.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <deepgemm/baremetal.h>
#include <deepgemm/module_signature.h>

#include "module/sign.h"
#include "module/writer.h"
#include "support/error.h"

namespace fs = std::filesystem;
using namespace dg;

namespace {

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("deepgemm_sign_test_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

module::ModuleContents contents() {
  module::ModuleContents c;
  c.target_kind = ko::TargetKind::Gpu;
  c.target_name = "hopper";
  c.sections.push_back(module::text_section(ko::SectionKind::Plan, R"({"format":"deepgemm-plan-1"})"));
  c.sections.push_back(module::text_section(ko::SectionKind::Ptx, ".version 8.5\n"));
  return c;
}

ko::sig::Check check(const std::vector<uint8_t>& bytes, const uint8_t* key) {
  ko::ModuleView v;
  REQUIRE(ko::parse(bytes.data(), bytes.size(), &v) == ko::Status::Ok);
  return ko::sig::check(v, key);
}

}  // namespace

TEST_CASE("keygen, sign, and the check of every reader") {
  const fs::path dir = temp_dir();
  const std::string key = (dir / "k").string(), other = (dir / "other").string();
  const module::PublicKey pk = module::keygen(key);
  const module::PublicKey opk = module::keygen(other);
  CHECK(module::read_public_key(key + ".pub") == pk);
  CHECK((fs::status(key).permissions() & fs::perms::group_read) == fs::perms::none);
  // A key is never replaced.
  CHECK_THROWS_AS(module::keygen(key), UserError);

  module::ModuleContents c = contents();
  const std::vector<uint8_t> plain = module::write(c);
  CHECK(check(plain, nullptr) == ko::sig::Check::Unsigned);
  module::sign(c, key);
  const std::vector<uint8_t> signed_bytes = module::write(c);
  CHECK(check(signed_bytes, nullptr) == ko::sig::Check::Valid);
  CHECK(check(signed_bytes, pk.data()) == ko::sig::Check::Valid);
  CHECK(check(signed_bytes, opk.data()) == ko::sig::Check::UntrustedKey);
  // Deterministic (Ed25519 signatures are), and signing again replaces the signature.
  module::sign(c, key);
  CHECK(module::write(c) == signed_bytes);
  CHECK(module::sign_bytes(plain, key) == signed_bytes);

  // The signed message agrees with libsodium's verifier.
  {
    ko::ModuleView v;
    REQUIRE(ko::parse(signed_bytes.data(), signed_bytes.size(), &v) == ko::Status::Ok);
    uint8_t msg[ko::sig::kMessageSize];
    REQUIRE(ko::sig::message(v, msg));
    ko::sig::Signature s;
    REQUIRE(ko::sig::read(v, &s) == ko::sig::Check::Valid);
    CHECK(crypto_sign_verify_detached(s.signature, msg, sizeof msg, s.public_key) == 0);
  }

  // Altered after signing (checksums recomputed, as an attacker would): every section's payload,
  // its name, its flags, the target name and the target kind are covered.
  auto altered = [&](auto edit) {
    module::ModuleContents d = c;
    edit(d);
    return check(module::write(d), pk.data());
  };
  CHECK(altered([](module::ModuleContents& d) { d.sections[0].bytes.back() ^= 1; }) == ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) { d.sections[1].name = "ptx2"; }) == ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) { d.sections[1].flags = ko::kSectionFlagOptional; }) ==
        ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) { d.target_name = "ampere"; }) == ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) { d.target_kind = ko::TargetKind::Npu; }) ==
        ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) {
          d.sections.push_back(module::text_section(ko::SectionKind::Proof, "added"));
        }) == ko::sig::Check::BadSignature);
  CHECK(altered([](module::ModuleContents& d) { d.sections.erase(d.sections.begin() + 1); }) ==
        ko::sig::Check::BadSignature);
  // A signature section of the wrong size or magic is malformed, not valid.
  CHECK(altered([](module::ModuleContents& d) { d.sections.back().bytes.pop_back(); }) == ko::sig::Check::Malformed);
  CHECK(altered([](module::ModuleContents& d) { d.sections.back().bytes[0] = 'X'; }) == ko::sig::Check::Malformed);

  // Bad key files are user errors that name the file.
  {
    std::ofstream(dir / "bad.pub") << "deepgemm-ed25519-public-key\nxyz\n";
    CHECK_THROWS_WITH_AS(module::read_public_key((dir / "bad.pub").string()), doctest::Contains("not 64 hex digits"),
                         UserError);
    CHECK_THROWS_WITH_AS(module::sign(c, key + ".pub"), doctest::Contains("is not a secret key file"), UserError);
    CHECK_THROWS_AS(module::read_public_key((dir / "absent.pub").string()), UserError);
  }

  // The bare-metal runtime: with a trusted key, an unsigned module is DGMM_ERROR_UNTRUSTED; the
  // signed one passes the signature and is then refused for what it is (a GPU module).
  REQUIRE(dgmm_trust_key(pk.data()) == DGMM_OK);
  CHECK(dgmm_arena_size(plain.data(), plain.size()) == 0);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_UNTRUSTED);
  CHECK(std::string(dgmm_last_error()).find("not signed") != std::string::npos);
  CHECK(dgmm_arena_size(signed_bytes.data(), signed_bytes.size()) == 0);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_TARGET_MISMATCH);
  REQUIRE(dgmm_trust_key(opk.data()) == DGMM_OK);
  CHECK(dgmm_arena_size(signed_bytes.data(), signed_bytes.size()) == 0);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_UNTRUSTED);
  REQUIRE(dgmm_trust_key(nullptr) == DGMM_OK);
  CHECK(dgmm_arena_size(plain.data(), plain.size()) == 0);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_TARGET_MISMATCH);
  CHECK(std::string(dgmm_status_string(DGMM_ERROR_UNTRUSTED)) == "DGMM_ERROR_UNTRUSTED");
  fs::remove_all(dir);
}

TEST_CASE("the verifier agrees with libsodium on signed random modules") {
  REQUIRE(sodium_init() >= 0);
  const fs::path dir = temp_dir();
  const std::string key = (dir / "k").string();
  const module::PublicKey pk = module::keygen(key);
  std::mt19937_64 rng(20261201);  // fixed seed
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    module::ModuleContents c = contents();
    std::string text(rng() % 2000, ' ');
    for (char& ch : text) ch = static_cast<char>('a' + rng() % 26);
    c.sections.push_back(module::text_section(ko::SectionKind::Proof, text));
    module::sign(c, key);
    std::vector<uint8_t> bytes = module::write(c);
    CHECK(check(bytes, pk.data()) == ko::sig::Check::Valid);
    // One flipped payload bit of the proof, CRC recomputed: rejected by both.
    module::ModuleContents d = c;
    for (auto& s : d.sections)
      if (s.kind == static_cast<uint32_t>(ko::SectionKind::Proof) && !s.bytes.empty())
        s.bytes[rng() % s.bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    const std::vector<uint8_t> bad = module::write(d);
    ko::ModuleView v;
    REQUIRE(ko::parse(bad.data(), bad.size(), &v) == ko::Status::Ok);
    uint8_t msg[ko::sig::kMessageSize];
    REQUIRE(ko::sig::message(v, msg));
    ko::sig::Signature s;
    REQUIRE(ko::sig::read(v, &s) == ko::sig::Check::Valid);
    const bool sodium_ok = crypto_sign_verify_detached(s.signature, msg, sizeof msg, s.public_key) == 0;
    CHECK(sodium_ok == (ko::sig::check(v, nullptr) == ko::sig::Check::Valid));
    CHECK_FALSE(sodium_ok);
  }
  fs::remove_all(dir);
}
