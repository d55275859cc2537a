// Shared by the size/count parser and the list parser (private to core): token problems and
// the non-throwing parsers.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace gpuprobe::units_detail {

inline constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// What went wrong with a token, and what the user should do about it. The public functions
// turn this into a UsageError whose message quotes the token (and the list it came from).
struct Problem {
  std::string what;
  std::string hint;
};

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// A byte size or a plain count, or nullopt with `problem` saying why not.
std::optional<std::uint64_t> try_parse_size(std::string_view raw, Problem& problem);
std::optional<std::int64_t> try_parse_int(std::string_view raw, Problem& problem);

}  // namespace gpuprobe::units_detail
