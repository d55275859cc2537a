// Parses command-line sizes, counts and value lists, and formats bytes, times and numbers.
#include "gpuprobe/core/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kUnitList = "B, KiB, MiB, GiB, TiB, kB, MB, GB, TB";

// What went wrong with a token, and what the user should do about it. The public functions
// turn this into a UsageError whose message quotes the token (and the list it came from).
struct Problem {
  std::string what;
  std::string hint;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

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

[[noreturn]] void throw_token_error(std::string_view noun, std::string_view token,
                                    const Problem& problem) {
  throw UsageError(
      fmt::format("invalid {} '{}': {} ({})", noun, trim(token), problem.what, problem.hint));
}

// --- lists ------------------------------------------------------------------------------

struct ListContext {
  std::string_view text;  // the whole list, for messages
  const ListOptions& options;

  std::string_view noun() const {
    if (!options.noun.empty()) return options.noun;
    return options.kind == ListKind::kSize ? "size" : "count";
  }

  // " in list '...'" when the bad token is only part of the list.
  std::string where(std::string_view token) const {
    if (trim(token) == trim(text)) return {};
    return fmt::format(" in list '{}'", trim(text));
  }

  [[noreturn]] void fail_value(std::string_view token, const Problem& problem) const {
    throw UsageError(fmt::format("invalid {} '{}'{}: {} ({})", noun(), trim(token), where(token),
                                 problem.what, problem.hint));
  }

  [[noreturn]] void fail_range(std::string_view item, std::string_view what,
                               std::string_view hint) const {
    throw UsageError(
        fmt::format("invalid range '{}'{}: {} ({})", trim(item), where(item), what, hint));
  }

  [[noreturn]] void fail_list(std::string_view what, std::string_view hint) const {
    throw UsageError(fmt::format("invalid {} list '{}': {} ({})", noun(), text, what, hint));
  }

  std::uint64_t value(std::string_view token) const {
    Problem problem;
    if (options.kind == ListKind::kSize) {
      if (auto v = try_parse_size(token, problem)) return *v;
    } else {
      if (auto v = try_parse_int(token, problem)) return static_cast<std::uint64_t>(*v);
    }
    fail_value(token, problem);
  }

  void check_zero(std::string_view token, std::uint64_t v) const {
    if (v == 0 && !options.allow_zero) {
      fail_value(token, {"zero is not allowed here", "use a value of at least 1"});
    }
  }

  void check_range_length(std::string_view item, std::uint64_t count) const {
    if (count > options.max_items) {
      fail_range(
          item,
          fmt::format("expands to {} items, more than the limit of {}", count, options.max_items),
          "use a larger step or a shorter range");
    }
  }
};

// Expands one item (a value or a range) and appends its values to `out`.
void expand_item(const ListContext& ctx, std::string_view item, std::vector<std::uint64_t>& out) {
  std::array<std::string_view, 3> parts{};
  std::size_t n_parts = 0;
  std::string_view rest = item;
  while (true) {
    const std::size_t colon = rest.find(':');
    if (n_parts == parts.size()) {
      ctx.fail_range(item, "too many ':'", "write start:end, start:end:step or start:end:xFACTOR");
    }
    parts[n_parts++] = rest.substr(0, colon);
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }

  if (n_parts == 1) {
    const std::uint64_t v = ctx.value(parts[0]);
    ctx.check_zero(parts[0], v);
    out.push_back(v);
    return;
  }

  for (std::size_t i = 0; i < n_parts; ++i) {
    if (trim(parts[i]).empty()) {
      static constexpr std::array<std::string_view, 3> kNames{"start", "end", "step"};
      ctx.fail_range(item, fmt::format("missing {}", kNames[i]),
                     "write start:end, start:end:step or start:end:xFACTOR");
    }
  }

  const std::uint64_t start = ctx.value(parts[0]);
  const std::uint64_t end = ctx.value(parts[1]);
  if (start > end) {
    ctx.fail_range(item, "start is greater than end", "write the smaller value first");
  }
  ctx.check_zero(parts[0], start);

  const std::string_view step_text = n_parts == 3 ? trim(parts[2]) : std::string_view("1");
  if (!step_text.empty() && (step_text.front() == 'x' || step_text.front() == 'X')) {
    // Geometric: start, start*F, start*F^2, ... while <= end.
    const std::string_view factor_text = trim(step_text.substr(1));
    if (factor_text.empty()) {
      ctx.fail_range(item, "missing factor after 'x'",
                     "write an integer factor of at least 2, e.g. x2");
    }
    Problem problem;
    const auto factor = try_parse_int(factor_text, problem);
    if (!factor) {
      ctx.fail_range(item, fmt::format("invalid factor '{}': {}", factor_text, problem.what),
                     "write an integer factor of at least 2, e.g. x2");
    }
    if (*factor < 2) {
      ctx.fail_range(item, fmt::format("factor {} is less than 2", *factor),
                     "write an integer factor of at least 2, e.g. x2");
    }
    if (start == 0) {
      ctx.fail_range(item, "a geometric range cannot start at 0", "start at 1 or more");
    }
    const auto f = static_cast<std::uint64_t>(*factor);
    std::uint64_t count = 1;
    for (std::uint64_t v = start; v <= end / f; v *= f)
      ++count;
    ctx.check_range_length(item, count);
    for (std::uint64_t v = start;; v *= f) {
      out.push_back(v);
      if (v > end / f) break;
    }
    return;
  }

  // Arithmetic: start, start+step, ... while <= end.
  const std::uint64_t step = ctx.value(step_text);
  if (step == 0) {
    ctx.fail_range(item, "step is zero", "use a step of at least 1");
  }
  const std::uint64_t last_index = (end - start) / step;  // count - 1, cannot overflow
  if (last_index >= ctx.options.max_items) {
    ctx.fail_range(
        item,
        last_index == kU64Max
            ? fmt::format("expands to more than the limit of {} items", ctx.options.max_items)
            : fmt::format("expands to {} items, more than the limit of {}", last_index + 1,
                          ctx.options.max_items),
        "use a larger step or a shorter range");
  }
  for (std::uint64_t i = 0; i <= last_index; ++i)
    out.push_back(start + i * step);
}

// --- formatting ---------------------------------------------------------------------------

// Removes trailing zeros after a decimal point, and the point itself if nothing follows it.
std::string strip_fraction_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Formats `value` with two decimals below 10, one below 100 and none above ("1.25", "12.5",
// "125", "1023"), dropping trailing zeros; `rounded` receives the magnitude it rounds to.
std::string format_short(double value, double& rounded) {
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::string text = strip_fraction_zeros(fmt::format("{:.{}f}", magnitude, decimals));
  rounded = magnitude;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  if (value < 0 && text != "0") text.insert(0, "-");
  return text;
}

// A unit for format_scaled: its name and how many base units it holds.
struct ScaleUnit {
  std::string_view name;
  double size;
};

// Formats value in the largest unit that keeps the number at least 1 (units ascending, each
// `step` times the previous), so the number lies in [1, step) where the units allow it.
template <std::size_t N>
std::string format_scaled(double value, const std::array<ScaleUnit, N>& units, double step,
                          std::size_t zero_unit) {
  if (!std::isfinite(value) || value == 0) {
    return fmt::format("{} {}", format_number(value), units[zero_unit].name);
  }
  const double magnitude = std::fabs(value);
  std::size_t u = 0;
  while (u + 1 < N && magnitude >= units[u + 1].size)
    ++u;
  double rounded = 0;
  std::string text = format_short(value / units[u].size, rounded);
  // Rounding may reach the next unit (999.7 ns -> "1000 ns"): say "1 us" instead.
  if (rounded >= step && u + 1 < N) {
    ++u;
    text = format_short(value / units[u].size, rounded);
  }
  return fmt::format("{} {}", text, units[u].name);
}

}  // namespace

std::uint64_t parse_size(std::string_view token) {
  Problem problem;
  if (auto v = try_parse_size(token, problem)) return *v;
  throw_token_error("size", token, problem);
}

std::int64_t parse_int(std::string_view token) {
  Problem problem;
  if (auto v = try_parse_int(token, problem)) return *v;
  throw_token_error("count", token, problem);
}

std::vector<std::uint64_t> parse_list(std::string_view text, const ListOptions& options) {
  const ListContext ctx{text, options};
  const std::string_view example =
      options.kind == ListKind::kSize ? "4KiB,1MiB or 4KiB:1GiB:x4" : "1,2,4 or 0:32:4";
  if (trim(text).empty())
    ctx.fail_list("empty list", fmt::format("give values such as {}", example));

  std::vector<std::uint64_t> result;
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> expanded;
  std::size_t item_number = 0;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    ++item_number;
    if (trim(item).empty()) {
      ctx.fail_list(fmt::format("item {} is empty", item_number),
                    "remove the extra comma or put a value there");
    }
    expanded.clear();
    expand_item(ctx, item, expanded);
    for (std::uint64_t v : expanded) {
      if (!seen.insert(v).second) continue;
      result.push_back(v);
      if (result.size() > options.max_items) {
        ctx.fail_list(fmt::format("more than the limit of {} items", options.max_items),
                      "use fewer values or larger steps");
      }
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return result;
}

std::string format_bytes(double bytes) {
  static constexpr std::array<ScaleUnit, 7> kByteUnits{{{"B", 1.0},
                                                        {"KiB", 0x1p10},
                                                        {"MiB", 0x1p20},
                                                        {"GiB", 0x1p30},
                                                        {"TiB", 0x1p40},
                                                        {"PiB", 0x1p50},
                                                        {"EiB", 0x1p60}}};
  return format_scaled(bytes, kByteUnits, 1024.0, 0);
}

std::string format_seconds(double seconds) {
  static constexpr std::array<ScaleUnit, 4> kTimeUnits{
      {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}}};
  return format_scaled(seconds, kTimeUnits, 1000.0, 3);
}

std::string format_number(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return "0";
  if (digits < 1) digits = 1;
  if (digits > 17) digits = 17;
  // Let fmt round to `digits` significant digits, then lay the digits out ourselves.
  const std::string sci = fmt::format("{:.{}e}", std::fabs(value), digits - 1);
  const std::size_t e_pos = sci.find('e');
  std::string mantissa_digits;
  for (std::size_t i = 0; i < e_pos; ++i) {
    if (sci[i] != '.') mantissa_digits += sci[i];
  }
  const int exponent = std::stoi(sci.substr(e_pos + 1));
  const std::string sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 15) {
    return sign + strip_fraction_zeros(sci.substr(0, e_pos)) + sci.substr(e_pos);
  }
  const auto n_digits = static_cast<int>(mantissa_digits.size());
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + mantissa_digits;
  } else if (exponent >= n_digits - 1) {
    out = mantissa_digits + std::string(static_cast<std::size_t>(exponent - (n_digits - 1)), '0');
  } else {
    const auto point = static_cast<std::size_t>(exponent + 1);
    out = mantissa_digits.substr(0, point) + "." + mantissa_digits.substr(point);
  }
  return sign + strip_fraction_zeros(out);
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

std::string format_cuda_version(const std::optional<int>& version) {
  return version ? fmt::format("{}.{}", *version / 1000, (*version % 1000) / 10) : "?";
}

}  // namespace gpuprobe
