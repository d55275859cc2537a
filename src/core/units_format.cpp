// Formats bytes, seconds, numbers and CUDA versions for people.
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

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

std::string format_cuda_version(const std::optional<int>& version) {
  return version ? fmt::format("{}.{}", *version / 1000, (*version % 1000) / 10) : "?";
}

}  // namespace gpuprobe
