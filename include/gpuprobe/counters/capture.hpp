// Raw counter-data captures on disk: written on a GPU, evaluated offline in CI as fixtures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuprobe/counters/values.hpp"

namespace gpuprobe::counters {

// Environment variable naming a folder: when set, CounterSession::collect writes a capture of
// every configuration it ran there (a developer path for making fixtures).
inline constexpr const char* kCaptureEnv = "GPUPROBE_CAPTURE_COUNTER_DATA";

// One configuration's counter data as collected on a device, plus what is needed to evaluate
// it again offline and the values the device run evaluated (to check against).
struct CounterCapture {
  std::string name;    // file stem: <name>.json, <name>.counterdata, <name>.availability
  std::string chip;    // "GH100"
  std::string device;  // device name, for the reader
  std::vector<std::string> metrics;  // the configuration's metrics, in config order
  std::vector<std::string> ranges;   // range names, in order
  std::vector<std::uint8_t> counter_data;
  std::vector<std::uint8_t> counter_availability;  // may be empty
  std::vector<RangeCounters> values;               // as evaluated on the device
};

// The folder named by GPUPROBE_CAPTURE_COUNTER_DATA, or empty.
std::string capture_dir_from_env();

// Writes the three files into `dir` (created if missing). Throws RunError when it cannot.
void write_capture(const std::filesystem::path& dir, const CounterCapture& capture);

// Reads <name>.json and the files it names next to it; checks sizes and checksums. Throws
// UsageError naming the file when anything is missing, malformed or corrupted.
CounterCapture read_capture(const std::filesystem::path& json_file);

// The capture descriptions (*.json) in `dir`, sorted; empty when the folder does not exist.
std::vector<std::filesystem::path> find_captures(const std::filesystem::path& dir);

}  // namespace gpuprobe::counters
