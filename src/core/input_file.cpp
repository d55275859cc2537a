// Bounded reading of input files and escaping of the control characters they may hold.
#include "gpuprobe/core/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/gzip.hpp"
#include "gpuprobe/core/interrupt.hpp"

namespace gpuprobe {
namespace {

// Closes the descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string limit_text(std::uint64_t limit) {
  return limit % (1u << 20) == 0 ? fmt::format("{} MiB", limit >> 20)
                                 : fmt::format("{} bytes", limit);
}

// Length of the UTF-8 sequence starting at s[i] (2 to 4), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || b >= 0xF5 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F) || (b == 0xF0 && b1 < 0x90) ||
      (b == 0xF4 && b1 > 0x8F))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return n;
}

// Waits until the pipe has data or its writer has gone (poll: POLLIN, POLLHUP), in steps of a
// fifth of a second so that SIGINT/SIGTERM are seen between them. false on a poll error.
bool wait_readable(int fd) {
  while (true) {
    throw_if_interrupted();
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, 200);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

std::string read_input_file(const std::string& path, std::uint64_t limit, std::string_view what,
                            std::string_view flag) {
  const std::string where = flag.empty() ? std::string() : fmt::format("{}: ", flag);
  Fd in{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (in.fd < 0) {
    const int err = errno;
    throw UsageError(fmt::format("{}cannot read '{}': {}", where, printable(path),
                                 err == ENOENT ? "no such file" : std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(in.fd, &st) != 0)
    throw UsageError(
        fmt::format("{}cannot read '{}': {}", where, printable(path), std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    throw UsageError(
        fmt::format("{}cannot read '{}': it is a folder, not a file", where, printable(path)));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    throw UsageError(
        fmt::format("{}cannot read '{}': it is {}, not {} (a regular file or a named "
                    "pipe)",
                    where, printable(path), kind_of(st.st_mode), what));
  }
  const auto too_long = [&] {
    return UsageError(fmt::format("{}'{}' is larger than {}, the most gpuprobe reads as {}", where,
                                  printable(path), limit_text(limit), what));
  };
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) throw too_long();
  // A named pipe stays open without blocking, as it was opened: no second open that a writer
  // which came first and already left could leave waiting forever (nor a gap in which a writer
  // sees no reader). Its reads wait in poll() for data or for the end, which Linux reports
  // (POLLHUP) only once a writer has come and gone: until one comes, the wait goes on, and
  // SIGINT/SIGTERM end it. A regular file is read blocking.
  const bool pipe = S_ISFIFO(st.st_mode);
  if (!pipe) ::fcntl(in.fd, F_SETFL, ::fcntl(in.fd, F_GETFL) & ~O_NONBLOCK);
  const auto fail = [&](int err) {
    return UsageError(
        fmt::format("{}cannot read '{}': {}", where, printable(path), std::strerror(err)));
  };
  // The next bytes into buffer (0 at the end).
  char buffer[1 << 16];
  const auto read_some = [&](std::size_t from) -> std::size_t {
    while (true) {
      if (pipe && !wait_readable(in.fd)) throw fail(errno);
      const ssize_t n = ::read(in.fd, buffer + from, sizeof buffer - from);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR && errno != EAGAIN) throw fail(errno);
      throw_if_interrupted();
    }
  };
  // The first two bytes tell a gzip stream (0x1f 0x8b), whatever the file's name.
  std::size_t n = read_some(0);
  if (n == 1) n += read_some(1);  // a pipe may hand over one byte first
  std::string text;
  if (!is_gzip(std::string_view(buffer, n))) {
    for (; n > 0; n = read_some(0)) {
      if (text.size() + n > limit) throw too_long();
      text.append(buffer, n);
    }
    return text;
  }
  // Inflated as it is read: the limit holds for the inflated text, and reading stops as soon as
  // it is passed, so a small file that inflates to gigabytes costs no more than the limit.
  GzipInflater inflater(limit);
  for (; n > 0; n = read_some(0)) {
    switch (inflater.feed(std::string_view(buffer, n), text)) {
      case GzipInflater::Result::kOk:
        break;
      case GzipInflater::Result::kOverLimit:
        throw UsageError(
            fmt::format("{}'{}' inflates to more than {}, the most gpuprobe reads as {}", where,
                        printable(path), limit_text(limit), what));
      case GzipInflater::Result::kCorrupt:
        throw UsageError(fmt::format("{}'{}' is not a valid gzip file: {}", where, printable(path),
                                     inflater.error()));
    }
  }
  if (!inflater.complete())
    throw UsageError(
        fmt::format("{}'{}' is not a valid gzip file: it ends before its compressed "
                    "data does (a truncated file?)",
                    where, printable(path)));
  return text;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7F) {
      out += text[i++];
    } else if (b == '\n' || b == '\t' || b == '\r') {
      out += b == '\n' ? "\\n" : b == '\t' ? "\\t" : "\\r";
      ++i;
    } else if (b < 0x80) {
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else if (const std::size_t n = utf8_length(text, i); n == 0) {
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else if (b == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace gpuprobe
