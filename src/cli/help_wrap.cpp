// Help text wrapped to a width: option lines under their description column.
#include "help_wrap.hpp"

#include <algorithm>

namespace gpuprobe::cli {
namespace {

// Where a too-wide line continues: under the description of an option or subcommand line (or a
// list item such as "  2    usage error": under the text after the first gap of two or more
// blanks), else under its own indentation, 4 deeper for an indented line.
std::size_t continuation_indent(const std::string& line, std::size_t column) {
  const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
  if (lead == 0) return 0;
  if (lead == column) return column;  // a description continued by CLI11 itself
  const std::size_t gap = line.find("  ", lead);
  if (gap != std::string::npos && gap <= column) {
    const std::size_t text = line.find_first_not_of(' ', gap);
    if (text != std::string::npos && text <= column) return text;
  }
  return lead + 4;
}

// Appends `line` to `out` broken into lines of at most `width` bytes.
void wrap_line(std::string& out, const std::string& line, std::size_t width, std::size_t column) {
  std::size_t indent = continuation_indent(line, column);
  if (indent + 20 > width) indent = 0;  // a continuation needs room of its own
  std::string rest = line;
  bool first = true;
  while (rest.size() > width) {
    const std::size_t floor = first ? rest.find_first_not_of(' ') + 1 : indent + 1;
    std::size_t cut = rest.rfind(' ', width);
    if (cut == std::string::npos || cut < floor) cut = width;  // one word wider than a line
    std::string head = rest.substr(0, cut);
    while (!head.empty() && head.back() == ' ')
      head.pop_back();
    out += head + "\n";
    const std::size_t next = rest.find_first_not_of(' ', cut);
    rest = std::string(indent, ' ') + (next == std::string::npos ? "" : rest.substr(next));
    first = false;
  }
  out += rest;
}

}  // namespace

std::string wrap_help(const std::string& text, std::size_t width, std::size_t column) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (line.size() <= width)
      out += line;
    else
      wrap_line(out, line, width, column);
    if (end == text.size()) break;
    out += "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace gpuprobe::cli
