// Parsing and formatting of sizes, counts, lists and ranges given on the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe {

// Parses a byte size: "4096", "64KiB", "64MiB", "1GiB", "1.5GB", "512B", "4k", "1e9".
// Decimal units (kB or KB, MB, GB, TB) are powers of 1000, binary units (KiB, MiB, GiB, TiB)
// of 1024; k, K, M, G and T are shorthands for the binary units. Units are case-sensitive and
// may follow the number after spaces. Fractions are fine when the bytes are whole ("1.5KiB").
// Throws UsageError quoting the token on empty, negative, fractional-byte, overflowing or
// unknown-unit input. Zero is accepted here; callers reject it where it is meaningless.
std::uint64_t parse_size(std::string_view token);

// Parses a non-negative integer count ("32", "1k" is rejected: counts take no units).
std::int64_t parse_int(std::string_view token);

// What a list item may be, so that the error message names the right kind of value.
enum class ListKind { kSize, kInt };

struct ListOptions {
  ListKind kind = ListKind::kSize;
  bool allow_zero = false;
  std::uint64_t max_items = 4096;  // guards against "1:1e12" style typos
  std::string_view noun = {};      // an item in messages ("GPU index"); default "size"/"count"
};

// Parses a comma-separated list whose items are values or ranges:
//   "1,2,4"            explicit values
//   "0:32"             arithmetic range, step 1, both ends included
//   "0:32:4"           arithmetic range with step 4
//   "4KiB:256MiB:x4"   geometric range, multiplying by 4 while <= the end
// Items keep their order; duplicates are removed (first kept). Throws UsageError quoting
// the bad token for empty items, zero (unless allowed), reversed ranges, zero steps,
// geometric factors < 2, and lists longer than max_items.
std::vector<std::uint64_t> parse_list(std::string_view text, const ListOptions& options = {});

// Formats bytes with binary units for people: "4 KiB", "1.5 MiB", "256 MiB", "100 B".
std::string format_bytes(double bytes);

// Formats seconds with an SI prefix chosen for the value: "812 ns", "3.21 us", "1.25 ms".
std::string format_seconds(double seconds);

// Formats a number with `digits` significant digits, no exponent for ordinary magnitudes.
std::string format_number(double value, int digits = 4);

// A share as written: the number, and whether a '%' followed it ("2%" -> {2, true}).
struct ShareText {
  double value = 0;
  bool percent = false;
};

// Parses "2%", "0.02" or "5": nullopt when the text is not a finite number >= 0, optionally
// followed by '%'. Callers decide what a bare number means, name their flag in the error and
// add their own bounds; the value is kept exactly as written (no /100 then x100).
std::optional<ShareText> parse_share(std::string_view text);

// A CUDA version as the runtime encodes it (12080) as people write it ("12.8"); "?" if unknown.
std::string format_cuda_version(const std::optional<int>& version);

}  // namespace gpuprobe
