// Parses one size ("64MiB", "1.5GB", exact, no floating point), one count, or one share ("5%").
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "units_tokens.hpp"

namespace gpuprobe {
namespace units_detail {
namespace {

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kUnitList = "B, KiB, MiB, GiB, TiB, kB, MB, GB, TB";

// a * b, or nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kU64Max / a) return std::nullopt;
  return a * b;
}

// A size unit: the value is multiplied by base^exponent (base 1024 or 1000).
struct Unit {
  std::string_view name;
  std::uint64_t base;
  int exponent;
};

constexpr std::array<Unit, 15> kUnits{{
    {"B", 1024, 0},
    {"KiB", 1024, 1},
    {"MiB", 1024, 2},
    {"GiB", 1024, 3},
    {"TiB", 1024, 4},
    {"k", 1024, 1},
    {"K", 1024, 1},
    {"M", 1024, 2},
    {"G", 1024, 3},
    {"T", 1024, 4},
    {"kB", 1000, 1},
    {"KB", 1000, 1},
    {"MB", 1000, 2},
    {"GB", 1000, 3},
    {"TB", 1000, 4},
}};

// An exact decimal number: mantissa * 10^exp10.
struct Decimal {
  std::uint64_t mantissa = 0;
  int exp10 = 0;
};

// Reads an unsigned decimal number ("12", "1.5", ".25", "1e9", "2.5e-3") from the front of s
// exactly, without going through binary floating point. Advances `pos` past it.
std::optional<Decimal> read_decimal(std::string_view s, std::size_t& pos, Problem& problem) {
  Decimal d;
  std::size_t i = pos;
  std::size_t int_digits = 0;
  std::size_t frac_digits = 0;
  bool too_many_digits = false;
  bool int_overflow = false;
  // Zeros are held back until a non-zero digit follows, so that "100000000000000000000" and
  // "1.50000000000000000000" do not overflow the mantissa: trailing zeros of the integer part
  // become a power of ten, trailing zeros of the fraction are dropped.
  int pending_int_zeros = 0;
  int pending_frac_zeros = 0;
  auto append = [&](std::uint64_t digit, bool fractional) {
    if (too_many_digits) return;
    auto m = checked_mul(d.mantissa, 10);
    if (!m || *m > kU64Max - digit) {
      too_many_digits = true;
      int_overflow = !fractional;
      return;
    }
    d.mantissa = *m + digit;
    if (fractional) --d.exp10;
  };
  auto push_digit = [&](char c, bool fractional) {
    if (c == '0') {
      ++(fractional ? pending_frac_zeros : pending_int_zeros);
      return;
    }
    for (; pending_int_zeros > 0; --pending_int_zeros)
      append(0, false);
    for (; pending_frac_zeros > 0; --pending_frac_zeros)
      append(0, true);
    append(static_cast<std::uint64_t>(c - '0'), fractional);
  };
  for (; i < s.size() && is_digit(s[i]); ++i, ++int_digits)
    push_digit(s[i], false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && is_digit(s[i]); ++i, ++frac_digits)
      push_digit(s[i], true);
  }
  if (int_digits == 0 && frac_digits == 0) {
    problem = {"no number found", "start with digits, e.g. 64MiB"};
    return std::nullopt;
  }
  d.exp10 += pending_int_zeros;  // e.g. "1000": mantissa 1, exponent 3
  // Optional exponent, only when digits follow ("1e" leaves "e" for the unit check).
  int exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (exponent < 10000) exponent = exponent * 10 + (s[j] - '0');
      }
      if (negative) exponent = -exponent;
      d.exp10 += exponent;
      i = j;
    }
  }
  if (too_many_digits) {
    if (int_overflow && exponent >= 0) {
      problem = {fmt::format("larger than the maximum of {} bytes", kU64Max), "use a smaller size"};
    } else {
      problem = {"too many digits", "write at most 19 significant digits"};
    }
    return std::nullopt;
  }
  pos = i;
  return d;
}

enum class Exactness { kOk, kFractional, kOverflow };

// Computes d * base^exponent exactly as an integer, if it is one and fits in 64 bits.
Exactness scale_exact(Decimal d, const Unit& unit, std::uint64_t& out) {
  if (d.mantissa == 0) {
    out = 0;
    return Exactness::kOk;
  }
  // Normalise: strip factors of ten from the mantissa into the exponent.
  while (d.mantissa % 10 == 0) {
    d.mantissa /= 10;
    ++d.exp10;
  }
  std::uint64_t value = d.mantissa;
  int twos = 0;   // pending factor 2^twos
  int fives = 0;  // pending factor 5^fives
  twos += d.exp10;
  fives += d.exp10;
  if (unit.base == 1000) {
    twos += 3 * unit.exponent;
    fives += 3 * unit.exponent;
  } else {
    twos += 10 * unit.exponent;
  }
  // Divide out negative powers first; any remainder means the result is fractional.
  for (; fives < 0; ++fives) {
    if (value % 5 != 0) return Exactness::kFractional;
    value /= 5;
  }
  for (; twos < 0; ++twos) {
    if (value % 2 != 0) return Exactness::kFractional;
    value /= 2;
  }
  for (; fives > 0; --fives) {
    auto next = checked_mul(value, 5);
    if (!next) return Exactness::kOverflow;
    value = *next;
  }
  for (; twos > 0; --twos) {
    auto next = checked_mul(value, 2);
    if (!next) return Exactness::kOverflow;
    value = *next;
  }
  out = value;
  return Exactness::kOk;
}

}  // namespace

std::optional<std::uint64_t> try_parse_size(std::string_view raw, Problem& problem) {
  const std::string_view s = trim(raw);
  if (s.empty()) {
    problem = {"empty value", "give a number with an optional unit, e.g. 64MiB"};
    return std::nullopt;
  }
  if (s.front() == '-') {
    problem = {"sizes cannot be negative", "give a number of bytes of at least 0"};
    return std::nullopt;
  }
  if (s.front() == '+') {
    problem = {"unexpected sign", "write the size without '+', e.g. 64MiB"};
    return std::nullopt;
  }
  if (!is_digit(s.front()) && s.front() != '.') {
    problem = {"not a number", "give a number with an optional unit, e.g. 64MiB"};
    return std::nullopt;
  }
  std::size_t pos = 0;
  auto number = read_decimal(s, pos, problem);
  if (!number) return std::nullopt;
  const std::string_view unit_text = trim(s.substr(pos));
  const Unit* unit = nullptr;
  if (unit_text.empty()) {
    unit = &kUnits[0];
  } else {
    for (const Unit& u : kUnits) {
      if (u.name == unit_text) unit = &u;
    }
  }
  if (unit == nullptr) {
    problem = {fmt::format("unknown unit '{}'", unit_text), fmt::format("use {}", kUnitList)};
    return std::nullopt;
  }
  std::uint64_t bytes = 0;
  switch (scale_exact(*number, *unit, bytes)) {
    case Exactness::kOk:
      return bytes;
    case Exactness::kFractional:
      problem = {"not a whole number of bytes", "use an integer number of bytes or a larger unit"};
      return std::nullopt;
    case Exactness::kOverflow:
      break;
  }
  problem = {fmt::format("larger than the maximum of {} bytes", kU64Max), "use a smaller size"};
  return std::nullopt;
}

std::optional<std::int64_t> try_parse_int(std::string_view raw, Problem& problem) {
  const std::string_view s = trim(raw);
  const std::string_view plain_hint = "give a plain non-negative integer, e.g. 32";
  if (s.empty()) {
    problem = {"empty value", std::string(plain_hint)};
    return std::nullopt;
  }
  if (s.front() == '-') {
    problem = {"counts cannot be negative", std::string(plain_hint)};
    return std::nullopt;
  }
  if (s.front() == '+') {
    problem = {"unexpected sign", "write the count without '+', e.g. 32"};
    return std::nullopt;
  }
  std::size_t digits = 0;
  while (digits < s.size() && is_digit(s[digits]))
    ++digits;
  if (digits == 0) {
    problem = {"not a number", std::string(plain_hint)};
    return std::nullopt;
  }
  if (digits < s.size()) {
    const char next = s[digits];
    if (next == '.' || next == 'e' || next == 'E') {
      problem = {"not a whole number", std::string(plain_hint)};
    } else if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || is_space(next)) {
      problem = {"counts take no units", std::string(plain_hint)};
    } else {
      problem = {fmt::format("unexpected '{}'", s.substr(digits)), std::string(plain_hint)};
    }
    return std::nullopt;
  }
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) {
    problem = {fmt::format("larger than the maximum of {}", kI64Max), "use a smaller count"};
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    problem = {"not a number", std::string(plain_hint)};
    return std::nullopt;
  }
  return value;
}

}  // namespace units_detail

namespace {

using units_detail::Problem;
using units_detail::trim;

}  // namespace

[[noreturn]] void throw_token_error(std::string_view noun, std::string_view token,
                                    const Problem& problem) {
  throw UsageError(
      fmt::format("invalid {} '{}': {} ({})", noun, trim(token), problem.what, problem.hint));

}  // namespace

std::uint64_t parse_size(std::string_view token) {
  Problem problem;
  if (auto v = units_detail::try_parse_size(token, problem)) return *v;
  throw_token_error("size", token, problem);
}

std::int64_t parse_int(std::string_view token) {
  Problem problem;
  if (auto v = units_detail::try_parse_int(token, problem)) return *v;
  throw_token_error("count", token, problem);
}

std::optional<ShareText> parse_share(std::string_view text) {
  ShareText share;
  share.percent = !text.empty() && text.back() == '%';
  if (share.percent) text.remove_suffix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), share.value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(share.value) || share.value < 0)
    return std::nullopt;
  return share;
}

}  // namespace gpuprobe
