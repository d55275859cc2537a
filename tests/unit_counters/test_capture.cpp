// Capture files: written and read back, checksums checked, malformed descriptions refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/capture.hpp"

namespace gpuprobe::counters {
namespace {

std::filesystem::path fresh_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir;
}

CounterCapture sample() {
  CounterCapture c;
  c.name = "sample";
  c.chip = "GH100";
  c.device = "test";
  c.metrics = {"dram__bytes_read.sum", "lts__t_sector_hit_rate.pct"};
  c.ranges = {"r0"};
  c.counter_data = {1, 2, 3, 4, 5, 6, 7, 8};
  c.counter_availability = {9, 9};
  c.values = {{"r0",
               {{"dram__bytes_read.sum", "byte", 268435456.0, ""},
                {"lts__t_sector_hit_rate.pct", "percent", std::nullopt, "not collected"}},
               std::nullopt}};
  return c;
}

TEST(CounterCapture, RoundTrips) {
  const auto dir = fresh_dir("gpuprobe_capture_roundtrip");
  write_capture(dir, sample());
  const auto files = find_captures(dir);
  ASSERT_EQ(files.size(), 1u);
  const CounterCapture back = read_capture(files[0]);
  EXPECT_EQ(back.name, "sample");
  EXPECT_EQ(back.metrics, sample().metrics);
  EXPECT_EQ(back.counter_data, sample().counter_data);
  EXPECT_EQ(back.counter_availability, sample().counter_availability);
  ASSERT_EQ(back.values.size(), 1u);
  EXPECT_EQ(back.values[0].values[0].value, 268435456.0);
  EXPECT_FALSE(back.values[0].values[1].value.has_value());
  EXPECT_EQ(back.values[0].values[1].reason, "not collected");
  std::filesystem::remove_all(dir);
}

TEST(CounterCapture, ChangedBytesAreRefused) {
  const auto dir = fresh_dir("gpuprobe_capture_changed");
  write_capture(dir, sample());
  std::ofstream(dir / "sample.counterdata", std::ios::binary) << "12345678";
  try {
    read_capture(dir / "sample.json");
    FAIL() << "changed counter data was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("corrupted"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(CounterCapture, MalformedDescriptionIsUsageError) {
  const auto dir = fresh_dir("gpuprobe_capture_malformed");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.json") << R"({"format": "gpuprobe-counter-capture", "version": 1})";
  EXPECT_THROW(read_capture(dir / "bad.json"), UsageError);
  std::ofstream(dir / "other.json") << R"({"format": "something-else", "version": 1})";
  EXPECT_THROW(read_capture(dir / "other.json"), UsageError);
  EXPECT_TRUE(find_captures(dir / "missing").empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuprobe::counters
