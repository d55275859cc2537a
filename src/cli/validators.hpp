// CLI11 validators gpuprobe's options share: finite numbers, ranges and non-empty file names.
// None has a description: the help shows the option's type name alone (help_format.hpp).
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace gpuprobe::cli {

// Refuses nan and inf, which a CLI::Range lets through (every comparison with nan is false).
inline CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value))
          return "'" + text + "' is not a finite number";
        return {};
      },
      "", "FINITE");
}

// Refuses an empty file name: `--json ''` would otherwise mean "no file" without a word.
inline CLI::Validator file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "give a file name, or - for stdout" : std::string();
      },
      "", "FILE");
}

// A number within [low, high], like CLI::Range but without "in [lo - hi]" in the help, and with
// messages that say what is wrong: "'abc' is not a whole number", "0 is not within 1 to 100".
template <typename T>
CLI::Validator range(T low, T high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        T value{};
        const bool negative = !text.empty() && text.front() == '-';
        if (!negative && !CLI::detail::lexical_cast(text, value))
          return fmt::format("'{}' is not {}", text,
                             std::is_integral_v<T> ? "a whole number" : "a number");
        if (negative || !(value >= low && value <= high))
          return fmt::format("{} is not within {} to {}", text, low, high);
        return {};
      },
      "", "RANGE");
}

}  // namespace gpuprobe::cli
