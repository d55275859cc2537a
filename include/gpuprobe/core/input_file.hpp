// Reading input files within limits: regular files and named pipes only, plain or gzipped, never
// more than a cap, so that /dev/zero, a huge file, an endless pipe or a gzip bomb ends with a
// clear usage error, not a hang.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuprobe {

// The largest result file read (compare, check, fleet): 64 MiB, some 100 times a full `all` run
// with its samples. The largest expectation file read (--expect-file): 1 MiB.
inline constexpr std::uint64_t kMaxResultFileBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxExpectationFileBytes = std::uint64_t{1} << 20;

// The whole content of `path`; a gzip stream (told by its first two bytes, 0x1f 0x8b, not by the
// name) is inflated as it is read, and the limit holds for the inflated text. Throws UsageError
// naming `flag` (e.g. "--expect-file"; empty: none) and the path when it is missing, a folder, a
// device or socket (a named pipe is read), unreadable, longer than `limit` bytes (what it is:
// "a result file"), inflates to more than `limit` bytes, or is a truncated or damaged gzip stream.
std::string read_input_file(const std::string& path, std::uint64_t limit, std::string_view what,
                            std::string_view flag = {});

// `text` with every byte a terminal could act on shown instead: C0 controls and DEL as \n, \t,
// \x1b..., C1 controls (U+0080 to U+009F) as \u0080..., and bytes that are not UTF-8 as \xff.
// Printable text, UTF-8 included, is kept as it is.
std::string printable(std::string_view text);

}  // namespace gpuprobe
