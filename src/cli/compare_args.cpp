// Parses compare's arguments: the files of each side, device pairs for --devices, percentages.
#include "compare_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <system_error>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::cli {

SideFiles split_sides(const std::vector<std::string>& files) {
  constexpr const char* kForm =
      "give A.json B.json, or several runs per side: A1.json A2.json vs B1.json B2.json";
  const auto vs = std::count(files.begin(), files.end(), "vs");
  if (vs > 1) throw UsageError(fmt::format("compare: 'vs' given {} times; {}", vs, kForm));
  if (vs == 0) {
    if (files.size() != 2) {
      throw UsageError(fmt::format("compare: {} file(s) without 'vs'; {}", files.size(), kForm));
    }
    return {{files[0]}, {files[1]}};
  }
  const auto at = std::find(files.begin(), files.end(), "vs");
  SideFiles out{{files.begin(), at}, {at + 1, files.end()}};
  if (out.a.empty()) throw UsageError(fmt::format("compare: no file before 'vs'; {}", kForm));
  if (out.b.empty()) throw UsageError(fmt::format("compare: no file after 'vs'; {}", kForm));
  return out;
}

std::vector<DevicePair> parse_device_pairs(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format(
        "--devices '{}': {}; give A:B device indices, e.g. 0:1 (or a list 0:1,2:3)", text, why));
  };
  auto index = [&](std::string_view token) {
    int v = -1;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (token.empty() || ec != std::errc{} || end != token.data() + token.size() || v < 0)
      throw bad(fmt::format("'{}' is not a device index", token));
    return v;
  };
  std::vector<DevicePair> pairs;
  std::string_view rest = text;
  if (rest.empty()) throw bad("empty");
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) throw bad(fmt::format("'{}' has no ':'", item));
    const DevicePair p{index(item.substr(0, colon)), index(item.substr(colon + 1))};
    if (std::find(pairs.begin(), pairs.end(), p) == pairs.end()) pairs.push_back(p);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return pairs;
}

double parse_percent(const std::string& flag, const std::string& text) {
  const auto share = parse_share(text);  // "5" and "5%" both mean 5 percent
  if (!share)
    throw UsageError(fmt::format("{} '{}': give a percentage >= 0, e.g. 5 or 5%", flag, text));
  return share->value;
}

}  // namespace gpuprobe::cli
