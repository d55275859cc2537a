// Renderers: one RunReport as a table, JSON, CSV or Markdown; no renderer knows any probe.
#pragma once

#include <string>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

struct TableStyle {
  bool color = false;  // ANSI colour (only on a TTY, never with NO_COLOR)
  bool header = true;  // print the device/environment header
};

std::string render_table(const RunReport& report, const TableStyle& style = {});
std::string render_markdown(const RunReport& report);
std::string render_csv(const RunReport& report);
std::string render_json(const RunReport& report);  // pretty-printed, trailing newline

}  // namespace gpuprobe
