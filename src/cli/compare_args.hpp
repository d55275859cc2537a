// Parsing of compare's option values (--devices, --fail-on-regression); host-only, unit-tested.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/compare_match.hpp"

namespace gpuprobe::cli {

// Parses "--devices" text: "0:1" or a list "0:1,2:3". Throws UsageError quoting the text.
std::vector<DevicePair> parse_device_pairs(const std::string& text);

// Parses a percentage for --fail-on-regression: "5", "5%", "2.5". Throws UsageError for
// negative, non-finite or non-numeric text.
double parse_percent(const std::string& flag, const std::string& text);

}  // namespace gpuprobe::cli
