// Parsing of compare's arguments (files and 'vs', --devices, percentages); host-only, unit-tested.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/compare_match.hpp"

namespace gpuprobe::cli {

// compare's files, split into the two sides: "A.json B.json" (exactly two without 'vs'), or
// "A1.json A2.json vs B1.json B2.json" (a literal 'vs' between the sides, each side one file or
// more). Throws UsageError for another count of files without 'vs', 'vs' given more than once, or
// a side with no file.
struct SideFiles {
  std::vector<std::string> a, b;
};
SideFiles split_sides(const std::vector<std::string>& files);

// Parses "--devices" text: "0:1" or a list "0:1,2:3". Throws UsageError quoting the text.
std::vector<DevicePair> parse_device_pairs(const std::string& text);

// Parses a percentage for --fail-on-regression: "5", "5%", "2.5". Throws UsageError for
// negative, non-finite or non-numeric text.
double parse_percent(const std::string& flag, const std::string& text);

}  // namespace gpuprobe::cli
