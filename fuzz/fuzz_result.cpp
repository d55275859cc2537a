// Fuzz target: the result-file reader (parse_json_text + report_from_json, what compare, check
// and fleet read) and the table and Markdown renderers over what it accepts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"

namespace {

// No byte a terminal acts on (ESC, BEL, NUL ...) other than the line breaks of the layout.
void require_printable(const std::string& text) {
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\n') || b == 0x7F) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto json = gpuprobe::parse_json_text(text, "fuzz.json");
    const gpuprobe::RunReport report = gpuprobe::report_from_json(json, "fuzz.json");
    gpuprobe::TableStyle style;
    style.color = false;
    require_printable(gpuprobe::render_table(report, style));
    require_printable(gpuprobe::render_markdown(report));
    (void)gpuprobe::render_csv(report);
    (void)gpuprobe::to_json(report).dump();
  } catch (const gpuprobe::UsageError& e) {
    require_printable(e.what());
  }
  return 0;
}
