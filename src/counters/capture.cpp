// Counter-data captures: write them on a GPU, read and check them back as CI fixtures.
#include "gpuprobe/counters/capture.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe::counters {

namespace {

constexpr const char* kFormat = "gpuprobe-counter-capture";
constexpr int kFormatVersion = 1;

// FNV-1a, 64 bit, as 16 hex digits: catches truncated or edited binary files.
std::string checksum(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const std::uint8_t byte : bytes) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  std::ostringstream out;
  out << std::hex;
  out.width(16);
  out.fill('0');
  out << hash;
  return out.str();
}

void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw RunError("cannot write '" + path.string() + "'");
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + path.string() + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::ordered_json blob(const std::string& file, const std::vector<std::uint8_t>& bytes) {
  return {{"file", file}, {"bytes", bytes.size()}, {"fnv1a64", checksum(bytes)}};
}

// Reads the file a blob entry names, next to the description, and checks size and checksum.
std::vector<std::uint8_t> read_blob(const nlohmann::ordered_json& entry,
                                    const std::filesystem::path& json_file) {
  const auto path = json_file.parent_path() / entry.at("file").get<std::string>();
  std::vector<std::uint8_t> bytes = read_bytes(path);
  if (bytes.size() != entry.at("bytes").get<std::size_t>() ||
      checksum(bytes) != entry.at("fnv1a64").get<std::string>())
    throw UsageError("'" + path.string() + "' is corrupted: its size or checksum differs from '" +
                     json_file.string() + "'");
  return bytes;
}

}  // namespace

std::string capture_dir_from_env() {
  const char* dir = std::getenv(kCaptureEnv);
  return dir == nullptr ? std::string{} : std::string(dir);
}

void write_capture(const std::filesystem::path& dir, const CounterCapture& capture) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw RunError("cannot create folder '" + dir.string() + "': " + error.message());
  nlohmann::ordered_json json;
  json["format"] = kFormat;
  json["version"] = kFormatVersion;
  json["chip"] = capture.chip;
  json["device"] = capture.device;
  json["metrics"] = capture.metrics;
  json["ranges"] = capture.ranges;
  json["counter_data"] = blob(capture.name + ".counterdata", capture.counter_data);
  write_bytes(dir / (capture.name + ".counterdata"), capture.counter_data);
  if (!capture.counter_availability.empty()) {
    json["counter_availability"] =
        blob(capture.name + ".availability", capture.counter_availability);
    write_bytes(dir / (capture.name + ".availability"), capture.counter_availability);
  }
  auto& ranges = json["values"] = nlohmann::ordered_json::array();
  for (const auto& range : capture.values) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const auto& value : range.values) {
      nlohmann::ordered_json entry = {{"name", value.name}, {"unit", value.unit}};
      entry["value"] = value.value ? nlohmann::ordered_json(*value.value) : nullptr;
      entry["reason"] = value.reason;
      values.push_back(std::move(entry));
    }
    ranges.push_back({{"range", range.range}, {"values", std::move(values)}});
  }
  write_output((dir / (capture.name + ".json")).string(), json.dump(2) + "\n");
}

CounterCapture read_capture(const std::filesystem::path& json_file) {
  const nlohmann::ordered_json json = read_json_file(json_file.string());
  try {
    if (json.at("format") != kFormat || json.at("version") != kFormatVersion)
      throw UsageError("'" + json_file.string() + "' is not a version " +
                       std::to_string(kFormatVersion) + " gpuprobe counter capture");
    CounterCapture capture;
    capture.name = json_file.stem().string();
    capture.chip = json.at("chip").get<std::string>();
    capture.device = json.value("device", "");
    capture.metrics = json.at("metrics").get<std::vector<std::string>>();
    capture.ranges = json.at("ranges").get<std::vector<std::string>>();
    capture.counter_data = read_blob(json.at("counter_data"), json_file);
    if (json.contains("counter_availability"))
      capture.counter_availability = read_blob(json.at("counter_availability"), json_file);
    for (const auto& range : json.at("values")) {
      RangeCounters counters;
      counters.range = range.at("range").get<std::string>();
      for (const auto& value : range.at("values")) {
        CounterValue entry{value.at("name").get<std::string>(), value.at("unit").get<std::string>(),
                           std::nullopt, value.value("reason", "")};
        if (!value.at("value").is_null()) entry.value = value.at("value").get<double>();
        counters.values.push_back(std::move(entry));
      }
      capture.values.push_back(std::move(counters));
    }
    return capture;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("'" + json_file.string() + "' is not a valid counter capture: " + e.what());
  }
}

std::vector<std::filesystem::path> find_captures(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.is_regular_file() && entry.path().extension() == ".json") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpuprobe::counters
