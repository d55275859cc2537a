// Verification's findings in one line: mismatch_text, MismatchReport.
#include "gpuprobe/core/mismatches.hpp"

#include <fmt/format.h>

namespace gpuprobe {

std::string mismatch_text(std::string_view what, const Mismatches& found, std::uint64_t total,
                          std::string_view unit) {
  if (found.count == 0) return "";
  return fmt::format("{}{}{} of {} {} wrong, the first at index {}", what, what.empty() ? "" : ": ",
                     found.count, total, unit, found.first);
}

void MismatchReport::add(std::string_view what, const Mismatches& found, std::uint64_t total,
                         std::string_view unit) {
  if (found.count > 0) parts_.push_back(mismatch_text(what, found, total, unit));
}

std::string MismatchReport::text() const {
  std::string out;
  for (const auto& part : parts_)
    out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace gpuprobe
