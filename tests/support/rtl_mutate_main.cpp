// rtl_mutate: seeds one bug into a generated Verilog file, placed by structure (rtl_mutate.h).
//   rtl_mutate FILE.v --assign LHS RHS   the continuous assignment to LHS gets RHS; "{}" in RHS
//                                        stands for the old right-hand side, in parentheses
//   rtl_mutate FILE.v --code FROM TO     the one place where the code FROM stands (white space
//                                        aside) becomes TO
// The file is rewritten in place. Exit 0 when the one place was found and changed; 1 (with the
// reason) when none or several match, or on a usage error.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "rtl_mutate.h"

namespace {

constexpr const char* kUsage =
    "usage: rtl_mutate FILE.v --assign LHS RHS   (\"{}\" in RHS: the old right-hand side)\n"
    "       rtl_mutate FILE.v --code FROM TO\n"
    "Seeds one bug into FILE.v in place; the assignment or code must match exactly one place.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc != 5 || (std::string(argv[2]) != "--assign" && std::string(argv[2]) != "--code")) {
    std::fputs(kUsage, stderr);
    return 1;
  }
  const std::string path = argv[1], kind = argv[2], a = argv[3], b = argv[4];
  // A regular file of generated Verilog, rewritten in place: never a link, device or FIFO, and read
  // only up to kMaxBytes.
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{64} << 20;
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  if (ec || !std::filesystem::is_regular_file(st) || std::filesystem::file_size(path, ec) > kMaxBytes || ec) {
    std::fprintf(stderr, "rtl_mutate: %s: not a regular file of at most 64 MiB\n", path.c_str());
    return 1;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "rtl_mutate: cannot read %s\n", path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::string why;
  if (kind == "--assign")
    why = dg::testing::reassign(text, a, [&](const std::string& old) {
      std::string rhs = b;
      for (std::size_t at; (at = rhs.find("{}")) != std::string::npos;) rhs.replace(at, 2, "(" + old + ")");
      return rhs;
    });
  else
    why = dg::testing::replace_code(text, a, b);
  if (!why.empty()) {
    std::fprintf(stderr, "rtl_mutate: %s: %s\n", path.c_str(), why.c_str());
    return 1;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) {
    std::fprintf(stderr, "rtl_mutate: cannot write %s\n", path.c_str());
    return 1;
  }
  return 0;
}
