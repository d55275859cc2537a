// Help text wrapped to a width, and the global options a command uses, as one line of its help
// (host-only: no CLI11, so the unit tests compile it).
#pragma once

#include <cstddef>
#include <string>

namespace gpuprobe::cli {

// Where --help wraps.
inline constexpr std::size_t kHelpWidth = 120;

// `text` with every line wider than `width` broken between words (inside a word only when it
// alone is wider than a line). An indented line with a gap of two or more blanks before `column`
// (an option or subcommand with its description, an exit code with its meaning) continues under
// the text after the gap; any other line under its own indentation, deeper by 4 for an indented
// one (an example with its comment).
std::string wrap_help(const std::string& text, std::size_t width, std::size_t column);

}  // namespace gpuprobe::cli
