// Expected failures of the CUDA runtime: every error path has a test with its status and message.
//
// Runs everywhere. Module validation happens before the driver is touched, so bad, foreign and
// incomplete modules are checked on machines without a GPU too; the checks that need a loaded
// handle (binding, launching) run only when a device is present and say so when they are skipped.
//
//   runtime_errors                       checks what this machine allows
//   runtime_errors --expect-no-device    also requires the no-device path (CI without a GPU, or
//                                        the toolkit's stub libcuda)
#include <string>
#include <thread>
#include <vector>

#include "deepgemm/w4_pack.h"
#include "test_support.h"

extern "C" int dg_c_api_null_checks(void);  // c_api_check.c

using namespace dgtest;
namespace ko = dg::ko;

namespace {

std::string last() { return dgmm_last_error(); }

void null_arguments() {
  DG_CHECK(dgmm_load_kernel(nullptr) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_load_kernel: path is NULL");
  DG_CHECK(dgmm_load_kernel_from_memory(nullptr, 64) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_load_kernel_from_memory: data is NULL");
  dgmm_unload_kernel(nullptr);
  dgmm_free_host(nullptr);
  int x = 0;
  DG_CHECK_STATUS(dgmm_bind_input(nullptr, "A", &x), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_bind_input: handle is NULL");
  DG_CHECK_STATUS(dgmm_bind_output(nullptr, "C", &x), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_bind_output: handle is NULL");
  DG_CHECK_STATUS(dgmm_bind_device(nullptr, "A", 0x1000), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_STATUS(dgmm_launch(nullptr), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_launch: handle is NULL");
  DG_CHECK_STATUS(dgmm_launch_kernel_only(nullptr), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK(dgmm_sync(nullptr) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_sync: handle is NULL");
  DG_CHECK_STATUS(dgmm_wait(nullptr), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_wait: fence is NULL");
  size_t bytes = 0;
  int bits = 0;
  DG_CHECK_STATUS(dgmm_operand_info(nullptr, "A", &bytes, &bits), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_STATUS(dgmm_set_k(nullptr, 16), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_set_k: handle is NULL");
  DG_CHECK(std::string(dgmm_kernel_description(nullptr)).empty());
  DG_CHECK(dgmm_stream(nullptr) == nullptr);
  DG_CHECK(dgmm_alloc_host(0) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_alloc_host: size is 0");
  DG_CHECK(dgmm_last_error() != nullptr);
  DG_CHECK(dg_c_api_null_checks() == 0);
}

void status_strings() {
  DG_CHECK(std::string(dgmm_status_string(DGMM_OK)) == "DGMM_OK");
  DG_CHECK(std::string(dgmm_status_string(DGMM_ERROR_NO_DEVICE)) == "DGMM_ERROR_NO_DEVICE");
  DG_CHECK(std::string(dgmm_status_string(DGMM_ERROR_DRIVER)) == "DGMM_ERROR_DRIVER");
}

void io_errors() {
  DG_CHECK(dgmm_load_kernel("/nonexistent-dir/matmul.ko") == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_IO, "cannot read module '/nonexistent-dir/matmul.ko': No such file or directory");
  DG_CHECK(dgmm_load_kernel(DEEPGEMM_GPU_TEST_DIR) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_IO, "Is a directory");
}

// The reader's own message for `bytes`, which the runtime must pass on unchanged.
std::string reader_message(const std::vector<uint8_t>& bytes) {
  ko::ModuleView v;
  ko::parse(bytes.data(), bytes.size(), &v, ko::Extent::Exact);
  return v.error();
}

void bad_modules() {
  const std::vector<uint8_t> good = add_module(16, 16);
  DG_CHECK(!good.empty());

  // Truncated, through a file: the reader's exact message, after the file name.
  std::vector<uint8_t> truncated(good.begin(), good.begin() + long(good.size() / 2));
  DG_CHECK(write_bytes("truncated.ko", truncated));
  DG_CHECK(dgmm_load_kernel("truncated.ko") == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "invalid module 'truncated.ko': module is truncated");
  DG_CHECK_CONTAINS(last(), reader_message(truncated));

  std::vector<uint8_t> tiny(good.begin(), good.begin() + 10);
  DG_CHECK(dgmm_load_kernel_from_memory(tiny.data(), tiny.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, reader_message(tiny));

  DG_CHECK(dgmm_load_kernel_from_memory(good.data(), 0) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "smaller than the 64-byte header");

  // One flipped byte in the last payload: a checksum mismatch naming the section.
  std::vector<uint8_t> corrupt = good;
  corrupt[corrupt.size() - 20] ^= 0x40;
  DG_CHECK(dgmm_load_kernel_from_memory(corrupt.data(), corrupt.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "checksum mismatch");
  DG_CHECK_CONTAINS(last(), reader_message(corrupt));

  std::vector<uint8_t> magic = good;
  magic[0] = 'X';
  DG_CHECK(dgmm_load_kernel_from_memory(magic.data(), magic.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "not a DeepGEMM module: bad magic at byte 0");

  std::vector<uint8_t> abi = good;
  ko::store_u32(abi.data() + ko::header_field::kAbiVersion, 2);
  DG_CHECK(dgmm_load_kernel_from_memory(abi.data(), abi.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_ABI_MISMATCH,
                 "invalid module in memory: unsupported module ABI version 2 (this reader "
                 "supports version 1)");

  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  DG_CHECK(dgmm_load_kernel_from_memory(trailing.data(), trailing.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "trailing data");
}

void foreign_and_incomplete_modules() {
  ModuleParts base;
  base.ptx = add_ptx();
  base.launch = launch_bytes(add_launch(16, 16));
  DG_CHECK(base.ptx.find(".entry dg_add") != std::string::npos);

  ModuleParts npu = base;
  npu.kind = ko::TargetKind::Npu;
  npu.target = "gemmini_int8";
  std::vector<uint8_t> m = build_module(npu);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_TARGET_MISMATCH,
                 "module in memory targets NPU 'gemmini_int8'; this runtime runs GPU modules");

  ModuleParts no_launch = base;
  no_launch.has_launch = false;
  m = build_module(no_launch);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "module in memory (target 'volta') has no launch section");

  ModuleParts no_ptx = base;
  no_ptx.has_ptx = false;
  m = build_module(no_ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "module in memory (target 'volta') has no PTX section");

  ModuleParts nul_ptx = base;
  nul_ptx.ptx[10] = '\0';
  m = build_module(nul_ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "PTX section has a NUL byte at offset 10");

  ModuleParts empty_ptx = base;
  empty_ptx.ptx.clear();
  m = build_module(empty_ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "empty PTX section");

  // Launch records: a broken one, one of another version, one with an operand named twice.
  ModuleParts zero_grid = base;
  dg::ko::launch::Launch l = add_launch(16, 16);
  l.grid[1] = 0;
  zero_grid.launch = launch_bytes(l);
  m = build_module(zero_grid);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "invalid module in memory: launch record: zero grid or block dimension");

  ModuleParts short_launch = base;
  short_launch.launch.resize(100);
  m = build_module(short_launch);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record: truncated header");

  ModuleParts v1 = base;  // the record before run-time K ranges
  ko::store_u32(v1.launch.data() + 4, 1);
  m = build_module(v1);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_ABI_MISMATCH, "launch record version 1 is not supported (this runtime reads version 4)");

  ModuleParts twice = base;
  l = add_launch(16, 16);
  std::snprintf(l.operands[1].name, sizeof(l.operands[1].name), "%s", "A");
  twice.launch = launch_bytes(l);
  m = build_module(twice);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record declares operand \"A\" twice");

  // Operands must hold their matrix at M, N, K and their leading dimension: a kernel would
  // overrun a smaller buffer.
  ModuleParts small_c = base;
  l = add_launch(16, 16);
  l.operands[2].bytes = 16 * 16 * 4 - 4;
  small_c.launch = launch_bytes(l);
  m = build_module(small_c);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE,
                 "launch record: operand smaller than its matrix (M, N, K, batch and leading dimension)");
  // A batch of 3: each of A, B and C must hold three matrices; a C of two is refused.
  ModuleParts small_batch = base;
  l = add_launch(16, 16);
  l.batch = 3;
  for (int i = 0; i < 3; ++i) l.operands[i].bytes *= 3;
  l.operands[2].bytes = l.operands[2].bytes / 3 * 2;
  small_batch.launch = launch_bytes(l);
  m = build_module(small_batch);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE,
                 "launch record: operand smaller than its matrix (M, N, K, batch and leading dimension)");
  // A K range: K_min in (0, K], an alignment dividing both ends; only a row-major A or a
  // column-major B may have K as its leading dimension.
  ModuleParts bad_range = base;
  l = add_launch(16, 16);
  l.K_min = 2;  // K is 1
  bad_range.launch = launch_bytes(l);
  m = build_module(bad_range);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record: bad K range");
  ModuleParts c_follows_k = base;
  l = add_launch(16, 16);
  l.operands[2].ld_is_k = true;
  c_follows_k.launch = launch_bytes(l);
  m = build_module(c_follows_k);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE,
                 "launch record: only a row-major A or a column-major B has K as its leading dimension");
  ModuleParts big_batch = base;
  l = add_launch(16, 16);
  l.batch = 65536;
  big_batch.launch = launch_bytes(l);
  m = build_module(big_batch);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record: bad problem size");
  ModuleParts short_ld = base;
  l = add_launch(16, 16);
  l.operands[2].ld = 8;
  short_ld.launch = launch_bytes(l);
  m = build_module(short_ld);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record: leading dimension smaller than the matrix");
  ModuleParts c_input = base;
  l = add_launch(16, 16);
  l.operands[2].role = dg::ko::launch::Role::Input;
  c_input.launch = launch_bytes(l);
  m = build_module(c_input);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record: operand with the wrong role");

  // A trusted key: an unsigned module is refused before anything else; none trusts any again.
  {
    const unsigned char key[32] = {7};
    m = build_module(base);
    DG_CHECK(dgmm_trust_key(key) == DGMM_OK);
    DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
    DG_CHECK_ERROR(DGMM_ERROR_UNTRUSTED, "untrusted module in memory: module is not signed");
    DG_CHECK(dgmm_trust_key(nullptr) == DGMM_OK);
  }

  // A CUBIN section the driver would have to read without knowing its size must be a complete
  // ELF64 CUDA image.
  ModuleParts junk_cubin = base;
  junk_cubin.has_cubin = true;
  junk_cubin.cubin.assign(256, 0x5a);
  m = build_module(junk_cubin);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "invalid module in memory: cubin section: not an ELF image");

  std::vector<uint8_t> elf(64, 0);
  const uint8_t ident[6] = {0x7f, 'E', 'L', 'F', 2, 1};
  std::memcpy(elf.data(), ident, sizeof(ident));
  elf[18] = 190;  // EM_CUDA
  elf[40] = 0x00;
  elf[41] = 0x10;  // section headers at 4096, past the end
  elf[58] = 64;    // section header size
  elf[60] = 3;     // three of them
  ModuleParts short_elf = base;
  short_elf.has_cubin = true;
  short_elf.cubin = elf;
  m = build_module(short_elf);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "cubin section: section headers extend past the end");

  elf[18] = 62;  // EM_X86_64
  short_elf.cubin = elf;
  m = build_module(short_elf);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "cubin section: ELF machine 62 is not NVIDIA CUDA (190)");

  ModuleParts v3 = base;  // the record before the workspace field (split-K)
  ko::store_u32(v3.launch.data() + 4, 3);
  m = build_module(v3);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_ABI_MISMATCH, "launch record version 3 is not supported (this runtime reads version 4)");

  ModuleParts bad_name = base;
  bad_name.launch[ko::launch::kHeaderSize + 2] = 'x';  // "A\0x\0": a byte after the padding
  m = build_module(bad_name);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "launch record operand 0 has a bad name");
}

// Errors are per thread: a failure on another thread leaves this thread's error alone.
void thread_local_errors() {
  DG_CHECK(dgmm_load_kernel(nullptr) == nullptr);
  const std::string mine = last();
  std::string theirs;
  dgmm_status their_code = DGMM_OK;
  std::thread t([&] {
    dgmm_load_kernel("/nonexistent-dir/other.ko");
    theirs = dgmm_last_error();
    their_code = dgmm_last_error_code();
  });
  t.join();
  DG_CHECK(their_code == DGMM_ERROR_IO);
  DG_CHECK_CONTAINS(theirs, "other.ko");
  DG_CHECK(last() == mine);
  DG_CHECK_STATUS(dgmm_last_error_code(), DGMM_ERROR_INVALID_ARGUMENT);
}

// ---- With a device
// -------------------------------------------------------------------------------

std::vector<uint8_t> module_with(const dg::ko::launch::Launch& l, const std::string& ptx) {
  ModuleParts p;
  p.ptx = ptx;
  p.launch = launch_bytes(l);
  return build_module(p);
}

void binding_errors(dgmm_handle h) {
  int buf[4] = {};
  DG_CHECK_STATUS(dgmm_bind_input(h, "Z", buf), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(),
                    "dgmm_bind_input: unknown operand \"Z\"; kernel 'dg_add' declares "
                    "\"A\", \"B\", \"C\"");
  DG_CHECK_STATUS(dgmm_bind_input(h, nullptr, buf), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "operand name is NULL");
  DG_CHECK_STATUS(dgmm_bind_input(h, "C", buf), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "operand \"C\" is an output; bind it with dgmm_bind_output");
  DG_CHECK_STATUS(dgmm_bind_output(h, "A", buf), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "operand \"A\" is an input; bind it with dgmm_bind_input");
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", nullptr), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "host pointer for operand \"A\" is NULL");
  DG_CHECK_STATUS(dgmm_bind_output(h, "c", buf), DGMM_ERROR_INVALID_ARGUMENT);  // case matters
  DG_CHECK_STATUS(dgmm_bind_device(h, "B", 0), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "device pointer for operand \"B\" is 0");
  DG_CHECK_STATUS(dgmm_bind_device(h, "Q", 0x1000), DGMM_ERROR_INVALID_ARGUMENT);

  size_t bytes = 0;
  int bits = 0;
  DG_CHECK_STATUS(dgmm_operand_info(h, "C", &bytes, &bits), DGMM_OK);
  DG_CHECK(bytes == 16 * 16 * 4);
  DG_CHECK(bits == 32);
  DG_CHECK_STATUS(dgmm_operand_info(h, "A", nullptr, nullptr), DGMM_OK);
  DG_CHECK_STATUS(dgmm_operand_info(h, "D", &bytes, &bits), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_operand_info: unknown operand \"D\"");
  // Success leaves the last error alone.
  DG_CHECK_STATUS(dgmm_operand_info(h, "A", &bytes, &bits), DGMM_OK);
  DG_CHECK_CONTAINS(last(), "unknown operand \"D\"");
}

// A module with a run-time K in [16, 64], a multiple of 8: A (16×K, row-major) follows K.
void k_range_errors() {
  dg::ko::launch::Launch l = add_launch(16, 16);
  l.K = 64;
  l.K_min = 16;
  l.k_align = 8;
  l.operands[0].ld = 64;
  l.operands[0].ld_is_k = true;
  l.operands[0].bytes = 16 * 64 * 4;
  l.operands[1].bytes = 64 * 16 * 4;  // B: K×N row-major, ld N
  const std::vector<uint8_t> m = module_with(l, add_ptx());
  dgmm_handle h = dgmm_load_kernel_from_memory(m.data(), m.size());
  DG_CHECK(h != nullptr);
  if (h == nullptr) return;
  size_t bytes = 0;
  DG_CHECK_STATUS(dgmm_operand_info(h, "A", &bytes, nullptr), DGMM_OK);
  DG_CHECK(bytes == 16 * 64 * 4);  // a handle starts at the largest K
  DG_CHECK_STATUS(dgmm_set_k(h, 8), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_set_k: K = 8 is outside the module's range [16, 64]");
  DG_CHECK_STATUS(dgmm_set_k(h, 65), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_set_k: K = 65 is outside the module's range [16, 64]");
  DG_CHECK_STATUS(dgmm_set_k(h, 20), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_set_k: K = 20 is not a multiple of 8");
  DG_CHECK_STATUS(dgmm_set_k(h, 24), DGMM_OK);
  DG_CHECK_STATUS(dgmm_operand_info(h, "A", &bytes, nullptr), DGMM_OK);
  DG_CHECK(bytes == 16 * 24 * 4);  // A packed at K = 24
  DG_CHECK_STATUS(dgmm_operand_info(h, "B", &bytes, nullptr), DGMM_OK);
  DG_CHECK(bytes == 24 * 16 * 4);  // B: 24 rows of N
  DG_CHECK_STATUS(dgmm_operand_info(h, "C", &bytes, nullptr), DGMM_OK);
  DG_CHECK(bytes == 16 * 16 * 4);
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_ERROR_UNBOUND_OPERAND);
  DG_CHECK_CONTAINS(last(), "\"A\" (input, 1536 bytes), \"B\" (input, 1536 bytes)");
  dgmm_unload_kernel(h);
}

// Packed 4-bit weights (launch record: B with a packed layout, then the group scales sc_b):
// dgmm_pack_weights writes the module's layout with its header, and binding refuses plain data,
// weights packed for another K×N, and a device buffer whose header cannot be read; a launch
// with the scales unbound names them.
void packed_weight_errors() {
  namespace w4 = dg::ko::w4;
  dg::ko::launch::Launch l = add_launch(16, 16);
  l.K = l.K_min = 256;
  l.operands[0].ld = 256;
  l.operands[0].bytes = 16 * 256 * 4;
  dg::ko::launch::Operand& b = l.operands[1];
  b.element_bits = 4;
  b.packing = w4::kLayoutN8K128;
  b.bytes = w4::packed_bytes(256, 16);
  dg::ko::launch::Operand& sc = l.operands[3];
  std::snprintf(sc.name, sizeof sc.name, "%s", "sc_b");
  sc.role = dg::ko::launch::Role::Input;
  sc.element_bits = 16;
  sc.bytes = 2 * 16 * 2;  // K/128 = 2 groups of 16 columns
  sc.row_major = true;
  sc.ld = 16;
  l.operand_count = 4;
  const std::vector<uint8_t> m = module_with(l, add_ptx());
  dgmm_handle h = dgmm_load_kernel_from_memory(m.data(), m.size());
  DG_CHECK(h != nullptr);
  if (h == nullptr) return;
  size_t bytes = 0;
  DG_CHECK_STATUS(dgmm_operand_info(h, "B", &bytes, nullptr), DGMM_OK);
  DG_CHECK(bytes == 64 + 2 * 2 * 512);
  std::vector<uint8_t> plain(256 * 16 / 2), packed(bytes), small(bytes - 1);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = uint8_t(i * 37 + 11);
  DG_CHECK_STATUS(dgmm_pack_weights(h, "A", plain.data(), DGMM_WEIGHTS_K_BY_N, packed.data(), packed.size()),
                  DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_pack_weights: operand \"A\" is not packed weights in this module");
  DG_CHECK_STATUS(dgmm_pack_weights(h, "B", plain.data(), 7, packed.data(), packed.size()),
                  DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "order is DGMM_WEIGHTS_K_BY_N or DGMM_WEIGHTS_N_BY_K, not 7");
  DG_CHECK_STATUS(dgmm_pack_weights(h, "B", plain.data(), DGMM_WEIGHTS_K_BY_N, small.data(), small.size()),
                  DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "the packed buffer has 2111 bytes; operand \"B\" needs 2112");
  DG_CHECK_STATUS(dgmm_pack_weights(h, "B", plain.data(), DGMM_WEIGHTS_K_BY_N, packed.data(), packed.size()), DGMM_OK);
  DG_CHECK(w4::check_header(packed.data(), packed.size(), w4::kLayoutN8K128, 256, 16) == nullptr);
  // Plain weights bound as B, or weights packed for another K×N: refused, naming the module's layout.
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", plain.data()), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "no DGW4 header");
  std::vector<uint8_t> other(w4::packed_bytes(256, 24)), plain24(256 * 24 / 2, 0x77);
  DG_CHECK(w4::pack(plain24.data(), w4::Order::KByN, 256, 24, w4::kLayoutN8K128, other.data(), other.size()) ==
           nullptr);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", other.data()), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(),
                    "packed for another K×N than the module's (this module reads layout n8k128 for K 256, N 16)");
  std::vector<uint8_t> relabeled = packed;
  relabeled[8] = 2;  // another layout id
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", relabeled.data()), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "packed for another layout than the module reads");
  // A device buffer whose header cannot be read back.
  DG_CHECK_STATUS(dgmm_bind_device(h, "B", 0x10000), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_bind_device: cannot read the header of packed operand \"B\"");
  // The right weights bind; a launch without the scales names them.
  std::vector<float> a(16 * 256, 1.0f), c(256, 0.0f);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", packed.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_output(h, "C", c.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_ERROR_UNBOUND_OPERAND);
  DG_CHECK_CONTAINS(last(), "unbound operands: \"sc_b\" (input, 64 bytes)");
  dgmm_unload_kernel(h);
}

// A fixed-K module takes its own K only.
void fixed_k_errors(dgmm_handle h) {
  DG_CHECK_STATUS(dgmm_set_k(h, 1), DGMM_OK);
  DG_CHECK_STATUS(dgmm_set_k(h, 2), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_set_k: kernel 'dg_add' was compiled for K = 1 only");
}

void launch_errors(dgmm_handle h) {
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_ERROR_UNBOUND_OPERAND);
  DG_CHECK_CONTAINS(last(),
                    "dgmm_launch: kernel 'dg_add' has unbound operands: \"A\" (input, "
                    "1024 bytes), \"B\" (input, 1024 bytes), \"C\" (output, 1024 bytes)");
  std::vector<float> a(256, 1.0f);
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_ERROR_UNBOUND_OPERAND);
  DG_CHECK_CONTAINS(last(), "unbound operands: \"B\" (input, 1024 bytes), \"C\" (output");
  DG_CHECK(last().find("\"A\" (input") == std::string::npos);
  DG_CHECK_STATUS(dgmm_launch_kernel_only(h), DGMM_ERROR_UNBOUND_OPERAND);
  DG_CHECK_CONTAINS(last(), "dgmm_launch_kernel_only: kernel 'dg_add' has unbound operands: \"B\"");
  std::vector<float> b(256, 2.0f), c(256, 0.0f);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", b.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_output(h, "C", c.data()), DGMM_OK);
  // Bound to host memory but never copied: not resident yet.
  DG_CHECK_STATUS(dgmm_launch_kernel_only(h), DGMM_ERROR_INVALID_STATE);
  DG_CHECK_CONTAINS(last(), "operand \"A\" is bound to host memory but not resident on the device");
}

// A kernel that reads A and B and stores C through tensor maps (launch record: a box per operand):
// the runtime encodes the maps for the buffers bound at each launch (the fake driver checks the
// documented rules of cuTensorMapEncodeTiled) and passes them after M, N and K.
void tensor_map_launches() {
  dg::ko::launch::Launch l = add_launch(16, 16);
  for (int i = 0; i < 3; ++i) {
    l.operands[i].box_inner = 32;  // one 128-byte row of fp32
    l.operands[i].box_outer = 16;
  }
  const std::vector<uint8_t> m = module_with(l, add_ptx());
  dgmm_handle h = dgmm_load_kernel_from_memory(m.data(), m.size());
  DG_CHECK(h != nullptr);
  if (h == nullptr) return;
  std::vector<float> a(256), b(256), c(256, -1.0f);
  for (int i = 0; i < 256; ++i) {
    a[size_t(i)] = float(i);
    b[size_t(i)] = 2.0f * float(i);
  }
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", b.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_output(h, "C", c.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_OK);
  dgmm_fence f = dgmm_sync(h);
  DG_CHECK(f != nullptr);
  if (f != nullptr) DG_CHECK_STATUS(dgmm_wait(f), DGMM_OK);
  DG_CHECK(c[255] == 3.0f * 255.0f);
  // The copy engine reads 16-byte-aligned buffers only: binding refuses any other.
  DG_CHECK_STATUS(dgmm_bind_device(h, "A", 0x10004), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "not 16-byte aligned");
  dgmm_unload_kernel(h);
}

// A kernel with a workspace (launch record version 4's workspace bytes, split-K): its size is
// reported, a caller's buffer must be 16-byte aligned, and a kernel without one refuses one.
void workspace_api(dgmm_handle plain) {
  dg::ko::launch::Launch l = add_launch(16, 16);
  l.workspace_bytes = 4096;
  const std::vector<uint8_t> m = module_with(l, add_ptx());
  dgmm_handle h = dgmm_load_kernel_from_memory(m.data(), m.size());
  DG_CHECK(h != nullptr);
  if (h == nullptr) return;
  size_t bytes = 0;
  DG_CHECK_STATUS(dgmm_workspace_bytes(h, &bytes), DGMM_OK);
  DG_CHECK(bytes == 4096);
  DG_CHECK_STATUS(dgmm_workspace_bytes(plain, &bytes), DGMM_OK);
  DG_CHECK(bytes == 0);
  DG_CHECK_STATUS(dgmm_workspace_bytes(nullptr, &bytes), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_STATUS(dgmm_workspace_bytes(h, nullptr), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_workspace_bytes: bytes is NULL");
  DG_CHECK_STATUS(dgmm_bind_workspace(h, 0x10008), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_bind_workspace: the workspace is not 16-byte aligned");
  DG_CHECK_STATUS(dgmm_bind_workspace(h, 0x10000), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_workspace(h, 0), DGMM_OK);  // back to the runtime's own
  DG_CHECK_STATUS(dgmm_bind_workspace(plain, 0x10000), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_CONTAINS(last(), "dgmm_bind_workspace: kernel 'dg_add' takes no workspace");
  DG_CHECK_STATUS(dgmm_bind_workspace(nullptr, 0x10000), DGMM_ERROR_INVALID_ARGUMENT);
  dgmm_unload_kernel(h);
}

// A kernel with a workspace runs: the runtime allocates it, zeroes it before the first launch
// (the fake driver's dg_add_ws refuses one that is not zero) and passes it after the operand
// pointers, before M, N and K (dg_add_ws's own parameters: on a GPU it reads M, N, K from there).
void workspace_launches() {
  dg::ko::launch::Launch l = add_launch(16, 16);
  l.workspace_bytes = 256;
  std::snprintf(l.kernel, sizeof l.kernel, "%s", "dg_add_ws");
  std::string ptx = add_ptx();
  const std::string entry = ".entry dg_add(", last_pointer = ".param .u64 param_c,";
  DG_CHECK(ptx.find(entry) != std::string::npos && ptx.find(last_pointer) != std::string::npos);
  ptx.replace(ptx.find(entry), entry.size(), ".entry dg_add_ws(");
  ptx.replace(ptx.find(last_pointer), last_pointer.size(), last_pointer + "\n    .param .u64 param_ws,");
  const std::vector<uint8_t> m = module_with(l, ptx);
  dgmm_handle h = dgmm_load_kernel_from_memory(m.data(), m.size());
  DG_CHECK(h != nullptr);
  if (h == nullptr) return;
  std::vector<float> a(256), b(256), c(256, -1.0f);
  for (int i = 0; i < 256; ++i) {
    a[size_t(i)] = float(i);
    b[size_t(i)] = 0.5f * float(i);
  }
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", b.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_output(h, "C", c.data()), DGMM_OK);
  for (int launch = 0; launch < 2; ++launch) {  // the second reuses the workspace
    DG_CHECK_STATUS(dgmm_launch(h), DGMM_OK);
    dgmm_fence f = dgmm_sync(h);
    DG_CHECK(f != nullptr);
    if (f != nullptr) DG_CHECK_STATUS(dgmm_wait(f), DGMM_OK);
    DG_CHECK(c[255] == 1.5f * 255.0f);
    c[255] = -1.0f;
  }
  dgmm_unload_kernel(h);
}

void device_module_errors(const std::string& device_sm) {
  const std::string ptx = add_ptx();

  // Compiled for a device far newer than any: the mismatch names both sides.
  std::vector<uint8_t> m = module_with(add_launch(16, 16, 128, 0, 0, 250), ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_TARGET_MISMATCH,
                 "module in memory (target 'volta') requires compute capability 25.0 (sm_250), "
                 "but device 0 '");
  DG_CHECK_CONTAINS(last(), "(" + device_sm + ")");

  // PTX the JIT rejects: the driver's error and the JIT log.
  std::string broken = ptx;
  broken.replace(broken.find("add.f32"), 7, "frob.f32");
  m = module_with(add_launch(16, 16), broken);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE, "PTX JIT compilation of kernel 'dg_add' (target 'volta')");
  DG_CHECK_CONTAINS(last(), "CUDA_ERROR_INVALID_PTX");
  DG_CHECK_CONTAINS(last(), "frob");

  // A launch record naming a kernel the PTX does not have.
  dg::ko::launch::Launch l = add_launch(16, 16);
  std::snprintf(l.kernel, sizeof(l.kernel), "%s", "dg_missing");
  m = module_with(l, ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_BAD_MODULE,
                 "kernel 'dg_missing' named by the launch record of module in memory is not in "
                 "its PTX: CUDA_ERROR_NOT_FOUND");

  // More dynamic shared memory than any device grants.
  m = module_with(add_launch(16, 16, 128, 16u << 20), ptx);
  DG_CHECK(dgmm_load_kernel_from_memory(m.data(), m.size()) == nullptr);
  DG_CHECK_ERROR(DGMM_ERROR_TARGET_MISMATCH,
                 "kernel 'dg_add' needs 16777216 bytes of dynamic and 0 bytes of static shared "
                 "memory, but device 0 '");
}

bool has_arg(int argc, char** argv, const std::string& flag) {
  for (int i = 1; i < argc; ++i) {
    if (flag == argv[i]) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const bool expect_no_device = has_arg(argc, argv, "--expect-no-device");

  null_arguments();
  status_strings();
  io_errors();
  bad_modules();
  foreign_and_incomplete_modules();
  thread_local_errors();

  // A valid module: it loads where there is a GPU, else fails with NO_DEVICE and a reason.
  const std::vector<uint8_t> good = add_module(16, 16);
  dgmm_handle h = dgmm_load_kernel_from_memory(good.data(), good.size());
  if (h == nullptr) {
    DG_CHECK_ERROR(DGMM_ERROR_NO_DEVICE, "no NVIDIA GPU found: ");
    std::printf("no GPU (%s): the checks that need a device are skipped\n", dgmm_last_error());
    const std::string reason = last();
    DG_CHECK(dgmm_alloc_host(64) == nullptr);
    DG_CHECK_ERROR(DGMM_ERROR_NO_DEVICE, reason);
    DG_CHECK(dgmm_load_kernel(nullptr) == nullptr);  // argument checks still come first
    DG_CHECK_STATUS(dgmm_last_error_code(), DGMM_ERROR_INVALID_ARGUMENT);
    return report();
  }
  DG_CHECK(!expect_no_device);
  const std::string description = dgmm_kernel_description(h);
  std::printf("device present: %s\n", description.c_str());
  DG_CHECK_CONTAINS(description, "kernel 'dg_add' (target 'volta', sm_70) from PTX (JIT) on device 0");
  DG_CHECK(dgmm_stream(h) != nullptr);
  const size_t at = description.find("' (sm_");
  const std::string device_sm =
      at == std::string::npos ? "?" : description.substr(at + 3, description.find(')', at) - at - 3);

  binding_errors(h);
  fixed_k_errors(h);
  launch_errors(h);
  k_range_errors();
  tensor_map_launches();
  packed_weight_errors();
  workspace_api(h);
  workspace_launches();
  dgmm_unload_kernel(h);
  device_module_errors(device_sm);
  return report();
}
