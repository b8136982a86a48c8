// Reading inputs and writing outputs safely.
//
// Reads are bounded by the format's maximum size and take regular files only: a directory, a FIFO,
// a device (`/dev/zero`) or a socket is refused with a reason, never read forever or blocked on.
//
// Writes never replace what is not a regular file, and never an input:
//   * a path that does not exist, or names a regular file, is written atomically (a temporary file
//     beside it, then rename), so a reader never sees half a module;
//   * a character device (`/dev/null`, `/dev/stdout`, a terminal) or a FIFO is written in place,
//     and every write error is reported (`/dev/full`: "No space left on device");
//   * a symbolic link is followed: its target is written by the rules above, and the link stays;
//     a link whose target does not exist is refused;
//   * a directory, a block device or a socket is refused;
//   * "-" is standard output, written as it is (a pipe, a terminal, a file the shell opened);
//   * a path that is one of the run's inputs (the spec, the hardware model, the module read), by
//     device and inode, is refused.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dg {

/// The largest inputs of each format.
inline constexpr std::uint64_t kMaxSpecBytes = 256u << 10;       // a .dgml spec: 256 KiB
inline constexpr std::uint64_t kMaxHwModelBytes = 1u << 20;      // a hardware model (JSON): 1 MiB
inline constexpr std::uint64_t kMaxPlanBytes = 4u << 20;         // a saved plan (JSON): 4 MiB
inline constexpr std::uint64_t kMaxModuleBytes = 0xFFFFFFF0ull;  // a .ko module: its 32-bit file size

/// The output path that names standard output.
inline constexpr const char* kStdoutPath = "-";

/// Read all of the regular file `path`, at most `max_bytes`; false with `why` otherwise
/// ("is a directory", "is a FIFO, not a regular file", "is larger than the 1048576-byte maximum").
bool read_file_bounded(const std::string& path, std::uint64_t max_bytes, std::string& text, std::string& why);
bool read_file_bounded(const std::string& path, std::uint64_t max_bytes, std::vector<std::uint8_t>& bytes,
                       std::string& why);

/// Write `bytes` to `path` by the rules above; `inputs` are the run's input files. False with
/// `why` when refused or when a write fails.
bool write_output_file(const std::string& path, const std::string& bytes, const std::vector<std::string>& inputs,
                       std::string& why);

/// Write each (name, text) of `files` into the directory `dir` (made with its parents where
/// missing) by the rules above. False with `why` naming the directory or the file that failed.
bool write_output_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& inputs, std::string& why);

/// False with `why` when `path` would be refused as an output by the rules above (a directory, a
/// block device, a socket, a dangling link, one of `inputs`); for outputs another program writes.
bool output_path_ok(const std::string& path, const std::vector<std::string>& inputs, std::string& why);

/// True when `path` names the same file as one of `inputs` (device and inode, links followed).
bool is_one_of(const std::string& path, const std::vector<std::string>& inputs);

}  // namespace dg
