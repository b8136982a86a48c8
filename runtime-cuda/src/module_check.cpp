#include "module_check.h"

#include <cstring>
#include <mutex>
#include <string>

#include "deepgemm/module_format.h"
#include "deepgemm/module_signature.h"
#include "last_error.h"

namespace dg::rt {

namespace {
// Set by dgmm_trust_key; read by every load. Guarded: loads may run on several threads.
std::mutex g_key_mutex;
bool g_key_set = false;
uint8_t g_key[32];
thread_local uint8_t t_key[32];
}  // namespace

void set_trusted_key(const uint8_t* key) {
  std::lock_guard<std::mutex> lock(g_key_mutex);
  g_key_set = key != nullptr;
  if (key != nullptr) std::memcpy(g_key, key, 32);
}

const uint8_t* trusted_key() {
  std::lock_guard<std::mutex> lock(g_key_mutex);
  if (!g_key_set) return nullptr;
  std::memcpy(t_key, g_key, 32);
  return t_key;
}

namespace {

std::string quoted(std::string_view s) {
  std::string out;  // appended: `"literal" + std::string&&` trips a false -Wrestrict in GCC 12
  out.reserve(s.size() + 2);
  out.push_back('"');
  out.append(s);
  out.push_back('"');
  return out;
}

// The launch record's 4-byte operand name field: printable ASCII, then NUL padding (launch::parse
// checks only the first byte).
bool operand_name_ok(const uint8_t* field) {
  size_t n = 0;
  while (n < 4 && field[n] >= 0x21 && field[n] <= 0x7e) ++n;
  if (n == 0) return false;
  for (size_t i = n; i < 4; ++i) {
    if (field[i] != 0) return false;
  }
  return true;
}

uint16_t rd16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint64_t rd64(const uint8_t* p) { return uint64_t(ko::load_u32(p)) | uint64_t(ko::load_u32(p + 4)) << 32; }
bool fits(uint64_t offset, uint64_t size, uint64_t total) { return offset <= total && size <= total - offset; }

// The driver takes a cubin without its size and finds its extent in the ELF headers, so every
// offset in them must stay inside the section. Returns "" when the image is a little-endian ELF64
// image for NVIDIA CUDA whose program and section headers and their contents lie within `size`
// bytes, else what is wrong.
std::string cubin_problem(const uint8_t* p, uint64_t size) {
  constexpr uint16_t kMachineCuda = 190;  // EM_CUDA
  constexpr uint32_t kNoBits = 8;         // SHT_NOBITS: a section with no bytes in the file
  if (size < 64 || std::memcmp(p,
                               "\x7f"
                               "ELF",
                               4) != 0)
    return "not an ELF image";
  if (p[4] != 2 || p[5] != 1) return "not a little-endian 64-bit ELF image";
  if (rd16(p + 18) != kMachineCuda) {
    return "ELF machine " + std::to_string(rd16(p + 18)) + " is not NVIDIA CUDA (190)";
  }
  const uint64_t phoff = rd64(p + 32), shoff = rd64(p + 40);
  const uint16_t phentsize = rd16(p + 54), phnum = rd16(p + 56);
  const uint16_t shentsize = rd16(p + 58), shnum = rd16(p + 60);
  if ((phnum != 0 && phentsize < 56) || (shnum != 0 && shentsize < 64)) {
    return "ELF header entry sizes are too small";
  }
  if (!fits(phoff, uint64_t(phnum) * phentsize, size)) return "program headers extend past the end";
  if (!fits(shoff, uint64_t(shnum) * shentsize, size)) return "section headers extend past the end";
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t* ph = p + phoff + uint64_t(i) * phentsize;
    if (!fits(rd64(ph + 8), rd64(ph + 32), size)) {
      return "program header " + std::to_string(i) + " extends past the end";
    }
  }
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint8_t* sh = p + shoff + uint64_t(i) * shentsize;
    if (ko::load_u32(sh + 4) != kNoBits && !fits(rd64(sh + 24), rd64(sh + 32), size)) {
      return "ELF section " + std::to_string(i) + " extends past the end";
    }
  }
  return "";
}

}  // namespace

dgmm_status check_module(const uint8_t* data, size_t size, std::string_view source, CheckedModule* out) {
  const std::string where = "module " + std::string(source);
  ko::ModuleView view;
  const ko::Status st = ko::parse(data, size, &view, ko::Extent::Exact);
  if (st != ko::Status::Ok) {
    return fail(st == ko::Status::UnsupportedAbi ? DGMM_ERROR_ABI_MISMATCH : DGMM_ERROR_BAD_MODULE,
                "invalid " + where + ": " + view.error());
  }
  out->target_name = view.target_name;
  if (const uint8_t* key = trusted_key()) {
    const ko::sig::Check c = ko::sig::check(view, key);
    if (c != ko::sig::Check::Valid)
      return fail(DGMM_ERROR_UNTRUSTED, "untrusted " + where + ": " + ko::sig::check_message(c));
  }
  if (view.target_kind != ko::TargetKind::Gpu) {
    return fail(DGMM_ERROR_TARGET_MISMATCH,
                where + " targets NPU '" + out->target_name +
                    "'; this runtime runs GPU modules (NPU modules run on the bare-metal runtime)");
  }

  const ko::Payload launch = view.find(ko::SectionKind::Launch);
  if (!launch) {
    return fail(DGMM_ERROR_BAD_MODULE,
                where + " (target '" + out->target_name + "') has no launch section: it cannot be launched");
  }
  // A record of another version is an ABI question, not corruption: say so before parsing.
  if (launch.size >= 8 && std::memcmp(launch.data, ko::launch::kMagic, 4) == 0) {
    const uint32_t version = ko::load_u32(launch.data + 4);
    if (version != ko::launch::kVersion) {
      return fail(DGMM_ERROR_ABI_MISMATCH, where + ": launch record version " + std::to_string(version) +
                                               " is not supported (this runtime reads version " +
                                               std::to_string(ko::launch::kVersion) + ")");
    }
  }
  if (const char* why = ko::launch::parse(launch.data, launch.size, &out->launch)) {
    return fail(DGMM_ERROR_BAD_MODULE, "invalid " + where + ": " + why);
  }
  const ko::launch::Launch& l = out->launch;
  for (uint32_t i = 0; i < l.operand_count; ++i) {
    const uint8_t* field = launch.data + ko::launch::kHeaderSize + i * ko::launch::kOperandSize;
    if (!operand_name_ok(field)) {
      return fail(DGMM_ERROR_BAD_MODULE, "invalid " + where + ": launch record operand " + std::to_string(i) +
                                             " has a bad name (printable ASCII, then NUL padding)");
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (std::strcmp(l.operands[i].name, l.operands[j].name) == 0) {
        return fail(DGMM_ERROR_BAD_MODULE,
                    "invalid " + where + ": launch record declares operand " + quoted(l.operands[i].name) + " twice");
      }
    }
  }

  const ko::Payload ptx = view.find(ko::SectionKind::Ptx);
  if (!ptx) {
    return fail(DGMM_ERROR_BAD_MODULE, where + " (target '" + out->target_name + "') has no PTX section");
  }
  if (ptx.size == 0) return fail(DGMM_ERROR_BAD_MODULE, "invalid " + where + ": empty PTX section");
  if (const void* nul = std::memchr(ptx.data, 0, ptx.size)) {
    const auto at = static_cast<const uint8_t*>(nul) - ptx.data;
    return fail(DGMM_ERROR_BAD_MODULE,
                "invalid " + where + ": PTX section has a NUL byte at offset " + std::to_string(at) + " (PTX is text)");
  }
  out->ptx.assign(reinterpret_cast<const char*>(ptx.data), ptx.size);

  const ko::Payload cubin = view.find(ko::SectionKind::Cubin);
  if (cubin) {
    const std::string problem = cubin_problem(cubin.data, cubin.size);
    if (!problem.empty()) {
      return fail(DGMM_ERROR_BAD_MODULE, "invalid " + where + ": cubin section: " + problem);
    }
    out->cubin.assign(cubin.data, cubin.data + cubin.size);
  }
  return DGMM_OK;
}

}  // namespace dg::rt

extern "C" dgmm_status dgmm_trust_key(const unsigned char* public_key) {
  dg::rt::set_trusted_key(public_key);
  return DGMM_OK;
}
