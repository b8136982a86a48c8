#include "support/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace dg {

namespace fs = std::filesystem;

namespace {

/// What a non-regular file is, for a refusal ("is a FIFO").
std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "is a directory";
  if (S_ISFIFO(m)) return "is a FIFO, not a regular file";
  if (S_ISCHR(m)) return "is a character device, not a regular file";
  if (S_ISBLK(m)) return "is a block device, not a regular file";
  if (S_ISSOCK(m)) return "is a socket, not a regular file";
  if (S_ISLNK(m)) return "is a symbolic link";
  return "is not a regular file";
}

template <typename Buffer>
bool read_bounded(const std::string& path, std::uint64_t max_bytes, Buffer& out, std::string& why) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the file is refused right after.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    why = std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    why = kind_of(st.st_mode);
    ::close(fd);
    return false;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    why = fmt::format("is larger than the {}-byte maximum ({} bytes)", max_bytes, st.st_size);
    ::close(fd);
    return false;
  }
  out.clear();
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      // The file may have grown since fstat: read on, within the bound.
      if (got > max_bytes) break;
      out.resize(got + std::min<std::uint64_t>(65536, max_bytes + 1 - got));
    }
    ssize_t n = ::read(fd, reinterpret_cast<char*>(out.data()) + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got > max_bytes) {
    why = fmt::format("is larger than the {}-byte maximum", max_bytes);
    return false;
  }
  out.resize(got);
  return true;
}

bool write_all(int fd, const std::string& bytes, std::string& why) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = n < 0 ? std::strerror(errno) : "short write";
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// A regular file (or a new one): a temporary file beside it, then rename; `mode` the old file's
/// permission bits, or 0 for a new file (the umask's default).
bool write_atomic(const std::string& path, const std::string& bytes, mode_t mode, std::string& why) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string tmp = fmt::format("{}.tmp.{}.{}.{:x}", path, ::getpid(), counter++, rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, bytes, why);
  if (ok && mode != 0 && ::fchmod(fd, mode & 07777) != 0) {
    why = std::strerror(errno);
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    why = std::strerror(errno);
    ok = false;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    why = std::strerror(errno);
    ok = false;
  }
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

/// A character device or a FIFO: written in place, never created, truncated or replaced.
bool write_in_place(const std::string& path, const std::string& bytes, std::string& why) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    why = "changed while it was opened";
    ::close(fd);
    return false;
  }
  bool ok = write_all(fd, bytes, why);
  if (::close(fd) != 0 && ok) {
    why = std::strerror(errno);
    ok = false;
  }
  return ok;
}

}  // namespace

bool read_file_bounded(const std::string& path, std::uint64_t max_bytes, std::string& text, std::string& why) {
  return read_bounded(path, max_bytes, text, why);
}

bool read_file_bounded(const std::string& path, std::uint64_t max_bytes, std::vector<std::uint8_t>& bytes,
                       std::string& why) {
  return read_bounded(path, max_bytes, bytes, why);
}

bool is_one_of(const std::string& path, const std::vector<std::string>& inputs) {
  if (path == kStdoutPath) return false;
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) return false;
  for (const auto& in : inputs) {
    struct stat st {};
    if (!in.empty() && ::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) return true;
  }
  return false;
}

namespace {

/// How `path` would be written: where it leads (links followed), and whether it is a new or
/// regular file (atomically), a character device or FIFO (in place), or refused (with `why`).
enum class OutputKind { New, Regular, InPlace, Refused };

OutputKind output_kind(std::string& path, const std::vector<std::string>& inputs, mode_t& mode, std::string& why) {
  for (int depth = 0;; ++depth) {
    if (path.empty()) {
      why = "empty path";
      return OutputKind::Refused;
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        why = std::strerror(errno);
        return OutputKind::Refused;
      }
      return OutputKind::New;
    }
    if (S_ISLNK(st.st_mode) && depth < 40) {
      std::error_code ec;
      fs::path target = fs::canonical(path, ec);
      if (ec) {
        std::error_code ec2;
        why = fmt::format("is a symbolic link to '{}', which does not exist", fs::read_symlink(path, ec2).string());
        return OutputKind::Refused;
      }
      path = target.string();
      continue;
    }
    if (is_one_of(path, inputs)) {
      why = "is an input of this command; choose another output path";
      return OutputKind::Refused;
    }
    mode = st.st_mode;
    if (S_ISREG(st.st_mode)) return OutputKind::Regular;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return OutputKind::InPlace;
    why = kind_of(st.st_mode);
    return OutputKind::Refused;
  }
}

}  // namespace

bool output_path_ok(const std::string& path, const std::vector<std::string>& inputs, std::string& why) {
  if (path == kStdoutPath) return true;
  std::string target = path;
  mode_t mode = 0;
  return output_kind(target, inputs, mode, why) != OutputKind::Refused;
}

bool write_output_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& inputs, std::string& why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    why = fmt::format("cannot make directory '{}': {}", dir, ec ? ec.message() : "a file of that name exists");
    return false;
  }
  for (const auto& [name, text] : files) {
    const std::string path = (fs::path(dir) / name).string();
    std::string reason;
    if (!write_output_file(path, text, inputs, reason)) {
      why = fmt::format("cannot write '{}': {}", path, reason);
      return false;
    }
  }
  return true;
}

bool write_output_file(const std::string& path, const std::string& bytes, const std::vector<std::string>& inputs,
                       std::string& why) {
  if (path == kStdoutPath) {
    std::cout.flush();
    return write_all(STDOUT_FILENO, bytes, why);
  }
  std::string target = path;
  mode_t mode = 0;
  switch (output_kind(target, inputs, mode, why)) {
    case OutputKind::New: return write_atomic(target, bytes, 0, why);
    case OutputKind::Regular: return write_atomic(target, bytes, mode, why);
    case OutputKind::InPlace: return write_in_place(target, bytes, why);
    case OutputKind::Refused: return false;
  }
  return false;
}

}  // namespace dg
