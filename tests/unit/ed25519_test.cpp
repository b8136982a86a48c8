// deepgemm/ed25519.h: SHA-512 against the FIPS 180-4 examples and libsodium; verify() against the
// RFC 8032 section 7.1 vectors (each accepted; every one-bit change of the message, R, S and the
// key refused; S + L refused), against non-canonical encodings of R and A that a lenient decoder
// would accept, and against libsodium on random keys and messages (fixed, printed seed).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <deepgemm/ed25519.h>
#include <sodium.h>

namespace ed = dg::ed25519;
using Bytes = std::vector<uint8_t>;

namespace {

Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string to_hex(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::string sha512_hex(const Bytes& m) {
  uint8_t d[64];
  ed::sha512(m.data(), m.size(), d);
  return to_hex(d, 64);
}

bool verify(const Bytes& sig, const Bytes& msg, const Bytes& pk) {
  REQUIRE(sig.size() == 64);
  REQUIRE(pk.size() == 32);
  return ed::verify(sig.data(), msg.data(), msg.size(), pk.data());
}

bool sodium_verify(const Bytes& sig, const Bytes& msg, const Bytes& pk) {
  return crypto_sign_verify_detached(sig.data(), msg.data(), msg.size(), pk.data()) == 0;
}

Bytes flipped(Bytes b, size_t bit) {
  b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  return b;
}

struct SodiumInit {
  SodiumInit() { REQUIRE(sodium_init() >= 0); }
};

// RFC 8032 section 7.1, TEST 1, 2, 3, 1024 and SHA(abc).
struct Vector {
  const char* name;
  const char* secret_key;
  const char* public_key;
  const char* message;
  const char* signature;
};

const Vector kVectors[] = {
    {"TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
     "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    {"TEST 1024", "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
     "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
     "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12"
     "ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe57"
     "38829adb26c81b37c93a1b270b20329d658675fc6ea534e0810a4432826bf58c941efb65d57a338b"
     "bd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4fe"
     "ba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e06203b33890cc9b8"
     "32f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
     "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53"
     "f1d8ac70bdcb7ed185ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2"
     "d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6"
     "079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f27088d78b7e883c8759d2c4f5c65adb7553"
     "878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2"
     "cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
     "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae078"
     "4504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8"
     "fcffead94f3c7ca495e056a9b47acdb751fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301"
     "651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8"
     "ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34dff7310fdc82aebfd9"
     "04b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
     "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a"
     "3ca8e1b939ae49e488acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a3"
     "2ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a4"
     "3dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5fb93246f6b1116398a346f1a641f3b041"
     "e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d9"
     "0d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
     "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef"
     "68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0",
     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350"
     "aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"},
    {"TEST SHA(abc)", "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
     "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"},
};

/// The group order L, little-endian.
const Bytes kOrder = from_hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
/// The neutral element (x = 0, y = 1), its encoding with the sign bit set (x = 0 has no negative),
/// and y = p + 1, of either sign: the last three are not encodings of points (RFC 8032 5.1.3).
const Bytes kNeutral = from_hex("0100000000000000000000000000000000000000000000000000000000000000");
const Bytes kNeutralSign = from_hex("0100000000000000000000000000000000000000000000000000000000000080");
const Bytes kPPlus1 = from_hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
const Bytes kPPlus1Sign = from_hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");

/// a + b, 32-byte little-endian integers (no carry out of the top in the uses below).
Bytes add256(const Bytes& a, const Bytes& b) {
  Bytes r(32);
  unsigned carry = 0;
  for (int i = 0; i < 32; ++i) {
    const unsigned s = a[i] + b[i] + carry;
    r[i] = static_cast<uint8_t>(s);
    carry = s >> 8;
  }
  CHECK(carry == 0);
  return r;
}

/// A signature (R, S) of msg under the key of seed for an R of our choosing: S = k a (mod L), so
/// that [S]B = [k]A, which with R the neutral element is the equation [S]B = R + [k]A.
Bytes signature_with_neutral_r(const Bytes& r_bytes, const Bytes& seed, const Bytes& pk, const Bytes& msg) {
  uint8_t h[64];
  crypto_hash_sha512(h, seed.data(), 32);
  h[0] &= 248;  // the secret scalar a: the clamped first half (RFC 8032 section 5.1.5)
  h[31] &= 127;
  h[31] |= 64;
  for (int i = 32; i < 64; ++i) h[i] = 0;
  uint8_t a[32], k[32], s[32];
  crypto_core_ed25519_scalar_reduce(a, h);  // a mod L (a itself is only below 2^255)
  Bytes pre = r_bytes;
  pre.insert(pre.end(), pk.begin(), pk.end());
  pre.insert(pre.end(), msg.begin(), msg.end());
  crypto_hash_sha512(h, pre.data(), pre.size());
  crypto_core_ed25519_scalar_reduce(k, h);
  crypto_core_ed25519_scalar_mul(s, k, a);
  Bytes sig = r_bytes;
  sig.insert(sig.end(), s, s + 32);
  return sig;
}

}  // namespace

TEST_CASE("sha512: FIPS 180-4 examples") {
  auto text = [](const char* s) { return Bytes(s, s + std::string(s).size()); };
  CHECK(sha512_hex(text("abc")) ==
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  CHECK(sha512_hex({}) ==
        "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
        "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
  CHECK(sha512_hex(text("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                        "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")) ==
        "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
        "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");

  // One million 'a', streamed in uneven pieces (some shorter than a block, some longer, some
  // ending exactly on a block boundary).
  const Bytes a(1000, 'a');
  const size_t pieces[] = {1, 127, 128, 129, 0, 7, 255, 256, 1000, 111, 113, 3};
  ed::Sha512 ctx;
  ed::sha512_init(&ctx);
  size_t done = 0;
  for (size_t i = 0; done < 1000000; ++i) {
    const size_t n = std::min(pieces[i % std::size(pieces)], size_t{1000000} - done);
    ed::sha512_update(&ctx, a.data(), n);
    done += n;
  }
  uint8_t d[64];
  ed::sha512_final(&ctx, d);
  CHECK(to_hex(d, 64) ==
        "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
        "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
}

TEST_CASE("sha512: every length up to 600 bytes, in two pieces, agrees with libsodium") {
  SodiumInit init;
  uint8_t seed[randombytes_SEEDBYTES] = {'s', 'h', 'a'};
  Bytes data(600);
  randombytes_buf_deterministic(data.data(), data.size(), seed);
  for (size_t n = 0; n <= data.size(); ++n) {
    uint8_t want[64], got[64];
    crypto_hash_sha512(want, data.data(), n);
    ed::Sha512 ctx;
    ed::sha512_init(&ctx);
    ed::sha512_update(&ctx, data.data(), n / 3);
    ed::sha512_update(&ctx, data.data() + n / 3, n - n / 3);
    ed::sha512_final(&ctx, got);
    CAPTURE(n);
    CHECK(to_hex(got, 64) == to_hex(want, 64));
  }
}

TEST_CASE("ed25519: RFC 8032 section 7.1 vectors") {
  SodiumInit init;
  for (const Vector& v : kVectors) {
    CAPTURE(v.name);
    const Bytes sk = from_hex(v.secret_key), pk = from_hex(v.public_key);
    const Bytes msg = from_hex(v.message), sig = from_hex(v.signature);

    // The vectors as transcribed here are the RFC's: libsodium derives the same key and signature.
    uint8_t sodium_pk[32], sodium_sk[64], sodium_sig[64];
    REQUIRE(crypto_sign_seed_keypair(sodium_pk, sodium_sk, sk.data()) == 0);
    REQUIRE(to_hex(sodium_pk, 32) == v.public_key);
    crypto_sign_detached(sodium_sig, nullptr, msg.data(), msg.size(), sodium_sk);
    REQUIRE(to_hex(sodium_sig, 64) == v.signature);

    CHECK(verify(sig, msg, pk));
    // verify2 at every cut of the message (every 97th of the long one).
    for (size_t cut = 0; cut <= msg.size(); cut += msg.size() > 64 ? 97 : 1) {
      CAPTURE(cut);
      CHECK(ed::verify2(sig.data(), msg.data(), cut, msg.data() + cut, msg.size() - cut, pk.data()));
    }
    CHECK(ed::verify2(sig.data(), msg.data(), msg.size(), nullptr, 0, pk.data()));

    // Every single-bit change of R, S and the key is refused.
    for (size_t bit = 0; bit < 512; ++bit) {
      CAPTURE(bit);
      CHECK_FALSE(verify(flipped(sig, bit), msg, pk));
    }
    for (size_t bit = 0; bit < 256; ++bit) {
      CAPTURE(bit);
      CHECK_FALSE(verify(sig, msg, flipped(pk, bit)));
    }
    // ... and of the message (every 13th bit of the long one); the empty message of TEST 1 gets
    // a byte appended instead.
    for (size_t bit = 0; bit<8 * msg.size(); bit += msg.size()> 64 ? 13 : 1) {
      CAPTURE(bit);
      CHECK_FALSE(verify(sig, flipped(msg, bit), pk));
    }
    Bytes longer = msg;
    longer.push_back(0);
    CHECK_FALSE(verify(sig, longer, pk));
    if (!msg.empty()) CHECK_FALSE(verify(sig, Bytes(msg.begin(), msg.end() - 1), pk));

    // S + L satisfies the equation as well as S does, but is not canonical.
    Bytes s(sig.begin() + 32, sig.end());
    Bytes sig_plus_l(sig.begin(), sig.begin() + 32);
    const Bytes s_plus_l = add256(s, kOrder);
    sig_plus_l.insert(sig_plus_l.end(), s_plus_l.begin(), s_plus_l.end());
    CHECK_FALSE(verify(sig_plus_l, msg, pk));
    CHECK_FALSE(sodium_verify(sig_plus_l, msg, pk));
  }
}

TEST_CASE("ed25519: S = L is refused") {
  // Under the neutral element as key, (R = neutral, S) satisfies the equation exactly when
  // S = 0 (mod L): S = 0 is the control, S = L must be refused for being out of range.
  const Bytes msg = {'k', 'o'};
  Bytes zero_s = kNeutral;
  zero_s.resize(64, 0);
  CHECK(verify(zero_s, msg, kNeutral));
  Bytes l_s = kNeutral;
  l_s.insert(l_s.end(), kOrder.begin(), kOrder.end());
  CHECK_FALSE(verify(l_s, msg, kNeutral));
}

// A lenient decoder would read these encodings as the neutral element (y = 1, x = 0) and accept
// the signatures below; RFC 8032 decoding refuses them. The canonical encoding of the neutral
// element is the control: the equation holds, so the verdict rests on the decoding alone.
TEST_CASE("ed25519: non-canonical encodings of R and of A are refused") {
  SodiumInit init;
  const Bytes msg = {'m', 'o', 'd', 'u', 'l', 'e'};

  SUBCASE("R") {
    const Vector& v = kVectors[0];
    const Bytes seed = from_hex(v.secret_key), pk = from_hex(v.public_key);
    CHECK(verify(signature_with_neutral_r(kNeutral, seed, pk, msg), msg, pk));  // the control
    for (const Bytes* r : {&kNeutralSign, &kPPlus1, &kPPlus1Sign}) {
      CAPTURE(to_hex(r->data(), 32));
      CHECK_FALSE(verify(signature_with_neutral_r(*r, seed, pk, msg), msg, pk));
    }
  }
  SUBCASE("A") {
    // With A the neutral element, [S]B = R + [k]A holds for R = [S]B, whatever the message; so
    // S may be chosen, here also with bit 252 set (S in [2^252, L), which signing gives with
    // probability 2^-128).
    Bytes l_minus_1 = kOrder;
    l_minus_1[0] -= 1;
    const Bytes scalars[] = {from_hex("2a00000000000000000000000000000000000000000000000000000000000000"),
                             from_hex("0100000000000000000000000000000000000000000000000000000000000010"), l_minus_1};
    for (const Bytes& s : scalars) {
      CAPTURE(to_hex(s.data(), 32));
      uint8_t r[32];
      REQUIRE(crypto_scalarmult_ed25519_base_noclamp(r, s.data()) == 0);
      Bytes sig(r, r + 32);
      sig.insert(sig.end(), s.begin(), s.end());
      CHECK(verify(sig, msg, kNeutral));  // the control: small-order keys are not refused
      for (const Bytes* a : {&kNeutralSign, &kPPlus1, &kPPlus1Sign}) {
        CAPTURE(to_hex(a->data(), 32));
        CHECK_FALSE(verify(sig, msg, *a));
      }
    }
  }
}

TEST_CASE("ed25519: 500 random keys and messages agree with libsodium") {
  SodiumInit init;
  // The seed of every random byte below; change it to explore, keep it printed to reproduce.
  uint8_t seed[randombytes_SEEDBYTES];
  for (size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(0xd6 + 7 * i);
  const std::string seed_hex = to_hex(seed, sizeof seed);
  MESSAGE("random keys and messages from seed ", seed_hex);

  for (uint32_t iter = 0; iter < 500; ++iter) {
    uint8_t iter_seed[randombytes_SEEDBYTES];
    for (size_t i = 0; i < sizeof seed; ++i) iter_seed[i] = seed[i];
    for (int i = 0; i < 4; ++i) iter_seed[i] ^= static_cast<uint8_t>(iter >> (8 * i));
    uint8_t rnd[32 + 300 + 20];
    randombytes_buf_deterministic(rnd, sizeof rnd, iter_seed);
    auto rnd32 = [&](int at) {
      return uint32_t{rnd[at]} | uint32_t{rnd[at + 1]} << 8 | uint32_t{rnd[at + 2]} << 16 | uint32_t{rnd[at + 3]} << 24;
    };
    const uint8_t* key_seed = rnd;
    const Bytes msg(rnd + 32, rnd + 32 + rnd32(332) % 301);

    uint8_t pk_raw[32], sk[64], sig_raw[64];
    REQUIRE(crypto_sign_seed_keypair(pk_raw, sk, key_seed) == 0);
    crypto_sign_detached(sig_raw, nullptr, msg.data(), msg.size(), sk);
    const Bytes pk(pk_raw, pk_raw + 32), sig(sig_raw, sig_raw + 64);
    CAPTURE(iter);
    CAPTURE(to_hex(pk.data(), 32));
    CAPTURE(to_hex(msg.data(), msg.size()));

    CHECK(verify(sig, msg, pk));
    const size_t cut = msg.empty() ? 0 : rnd32(336) % (msg.size() + 1);
    CHECK(ed::verify2(sig.data(), msg.data(), cut, msg.data() + cut, msg.size() - cut, pk.data()));

    if (!msg.empty()) {
      const Bytes m = flipped(msg, rnd32(340) % (8 * msg.size()));
      CHECK_FALSE(verify(sig, m, pk));
      CHECK_FALSE(sodium_verify(sig, m, pk));
    }
    const Bytes s = flipped(sig, rnd32(344) % 512);
    CHECK_FALSE(verify(s, msg, pk));
    CHECK_FALSE(sodium_verify(s, msg, pk));
    const Bytes k = flipped(pk, rnd32(348) % 256);
    CHECK(verify(sig, msg, k) == sodium_verify(sig, msg, k));
  }
}
