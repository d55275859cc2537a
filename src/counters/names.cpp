// Metric-name text helpers: split into base + suffix, edit distance, nearest names.
#include "gpuprobe/counters/names.hpp"

#include <algorithm>
#include <array>
#include <tuple>

namespace gpuprobe::counters {

namespace {

// True when the '_'-separated words of `wanted` all occur in `candidate`, in order.
bool contains_words_in_order(std::string_view candidate, std::string_view wanted) {
  std::size_t at = 0;
  std::size_t start = 0;
  while (start <= wanted.size()) {
    std::size_t end = wanted.find('_', start);
    if (end == std::string_view::npos) end = wanted.size();
    const std::string_view word = wanted.substr(start, end - start);
    if (!word.empty()) {
      const std::size_t found = candidate.find(word, at);
      if (found == std::string_view::npos) return false;
      at = found + word.size();
    }
    start = end + 1;
  }
  return true;
}

}  // namespace

MetricNameParts split_metric_name(std::string_view name) {
  const std::size_t sep = name.find("__");
  const std::size_t dot = name.find('.', sep == std::string_view::npos ? 0 : sep);
  if (dot == std::string_view::npos) return {std::string(name), {}};
  return {std::string(name.substr(0, dot)), std::string(name.substr(dot))};
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest_names(std::string_view wanted,
                                       const std::vector<std::string>& candidates,
                                       std::size_t count) {
  // Same hardware unit ("dram__", "l1tex__") first: a name is rarely wrong in its unit.
  const std::size_t unit_end = wanted.find("__");
  const std::string_view unit =
      unit_end == std::string_view::npos ? std::string_view{} : wanted.substr(0, unit_end + 2);
  const std::size_t limit = std::max<std::size_t>(3, wanted.size() / 2);
  std::vector<std::tuple<std::size_t, std::size_t, std::string_view>> scored;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(wanted, candidate);
    const bool same_unit = !unit.empty() && std::string_view(candidate).starts_with(unit);
    if (!same_unit && distance > limit) continue;
    // A candidate holding every word of `wanted` in order (e.g. "..._read_hit" in
    // "..._read_lookup_hit") is the likely meaning even when a shorter edit exists.
    const bool covers = distance <= limit && contains_words_in_order(candidate, wanted);
    scored.emplace_back((covers ? 0 : 2 * limit) + (same_unit ? distance : distance + limit),
                        candidate.size(), candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& entry : scored) {
    if (out.size() == count) break;
    out.emplace_back(std::get<2>(entry));
  }
  return out;
}

bool is_device_scope_unit(std::string_view hw_unit) {
  constexpr std::array<std::string_view, 4> kDeviceUnits = {"pcie", "nvlrx", "nvltx", "ctc"};
  return std::find(kDeviceUnits.begin(), kDeviceUnits.end(), hw_unit) != kDeviceUnits.end();
}

std::string range_name(std::size_t index, std::string_view label) {
  std::string name = std::to_string(index) + " " + std::string(label.empty() ? "point" : label);
  std::replace(name.begin(), name.end(), '/', '-');
  if (name.size() > kMaxRangeNameLength) name.resize(kMaxRangeNameLength);
  return name;
}

}  // namespace gpuprobe::counters
