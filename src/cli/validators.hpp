// CLI11 validators gpuprobe's options share: finite numbers and non-empty file names.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

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
      "FINITE");
}

// Refuses an empty file name: `--json ''` would otherwise mean "no file" without a word.
inline CLI::Validator file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "give a file name, or - for stdout" : std::string();
      },
      "FILE");
}

}  // namespace gpuprobe::cli
