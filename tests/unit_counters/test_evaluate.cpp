// Offline evaluation: captured fixtures decode to the values the GPU gave; bad images are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/capture.hpp"
#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/evaluate.hpp"

namespace gpuprobe::counters {
namespace {

const std::filesystem::path kFixtures = GPUPROBE_COUNTER_FIXTURES_DIR;

TEST(CounterEvaluate, EmptyAndTinyImagesAreRefused) {
  const MetricCatalog catalog("GH100");
  EXPECT_THROW(evaluate_counter_data(catalog, {"dram__bytes_read.sum"}, {}), CountersUnavailable);
  const std::vector<std::uint8_t> tiny(8, 0);
  EXPECT_THROW(counter_data_ranges(tiny), CountersUnavailable);
}

TEST(CounterEvaluate, UnknownMetricIsUsageError) {
  const MetricCatalog catalog("GH100");
  const std::vector<std::uint8_t> image(4096, 0);
  EXPECT_THROW(evaluate_counter_data(catalog, {"dram__bytes_raed.sum"}, image), UsageError);
}

// Every capture committed under tests/fixtures/counters (made on a GPU with
// GPUPROBE_CAPTURE_COUNTER_DATA) must evaluate offline to the values the GPU run gave.
TEST(CounterEvaluate, FixturesDecodeToTheRecordedValues) {
  // The fixtures are committed: a missing one is a broken checkout, not a reason to skip.
  const auto files = find_captures(kFixtures);
  ASSERT_FALSE(files.empty()) << "no counter fixtures in " << kFixtures;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const CounterCapture capture = read_capture(file);
    const MetricCatalog catalog(capture.chip, capture.counter_availability);
    EXPECT_EQ(counter_data_ranges(capture.counter_data), capture.ranges);
    const auto ranges = evaluate_counter_data(catalog, capture.metrics, capture.counter_data);
    ASSERT_EQ(ranges.size(), capture.values.size());
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      EXPECT_EQ(ranges[r].range, capture.values[r].range);
      ASSERT_EQ(ranges[r].values.size(), capture.metrics.size());
      for (std::size_t m = 0; m < capture.metrics.size(); ++m) {
        const CounterValue& got = ranges[r].values[m];
        const CounterValue& want = capture.values[r].values[m];
        EXPECT_EQ(got.name, want.name);
        EXPECT_EQ(got.unit, want.unit);
        EXPECT_EQ(got.value, want.value) << got.name << " in " << ranges[r].range;
        if (!got.value) {
          EXPECT_FALSE(got.reason.empty()) << got.name;
        }
      }
    }
  }
}

// What the committed H100 captures say about the work they measured, decoded offline: a float4
// copy of N bytes has L1 request N / 32 B sectors from L2 (exactly), reads about N from DRAM on
// its first run, and moves next to nothing over PCIe (only background traffic: a device copy).
TEST(CounterEvaluate, FixtureValuesMatchTheWorkCaptured) {
  const auto value_of = [](const std::string& stem, const std::string& range,
                           const std::string& metric) -> std::optional<double> {
    const CounterCapture capture = read_capture(kFixtures / (stem + ".json"));
    const MetricCatalog catalog(capture.chip, capture.counter_availability);
    for (const auto& r : evaluate_counter_data(catalog, capture.metrics, capture.counter_data)) {
      if (r.range != range) continue;
      if (const CounterValue* v = r.find(metric)) return v->value;
    }
    return std::nullopt;
  };
  ASSERT_TRUE(std::filesystem::exists(kFixtures / "gh100-copy-config0.json"))
      << "no gh100-copy fixture in " << kFixtures;
  constexpr double kMiB = 1024.0 * 1024.0;
  for (const auto& [range, bytes] : {std::pair{"copy16MiB", 16 * kMiB}, {"copy64MiB", 64 * kMiB}}) {
    const auto sectors =
        value_of("gh100-copy-config0", range, "lts__t_sectors_srcunit_tex_op_read.sum");
    ASSERT_TRUE(sectors) << range;
    EXPECT_EQ(*sectors, bytes / 32) << range;
  }
  const auto dram = value_of("gh100-copy-config0", "copy16MiB", "dram__bytes_read.sum");
  ASSERT_TRUE(dram);
  EXPECT_NEAR(*dram / (16 * kMiB), 1.0, 0.05);
  const auto pcie = value_of("gh100-pcie-config0", "copy64MiB", "pcie__read_bytes.sum");
  ASSERT_TRUE(pcie);
  EXPECT_LT(*pcie, 64 * 1024.0);  // a device-to-device copy: background only, not 64 MiB
}

// A corrupted fixture (edited counter data) is refused by the reader, before CUPTI sees it:
// CUPTI 13.0 does not validate images and crashes on garbage (segfault in
// cuptiRangeProfilerGetCounterDataInfo), so the capture's size and checksum are the defence.
TEST(CounterEvaluate, CorruptedFixtureIsRefused) {
  const auto files = find_captures(kFixtures);
  ASSERT_FALSE(files.empty()) << "no counter fixtures in " << kFixtures;
  const auto dir = std::filesystem::temp_directory_path() / "gpuprobe_corrupt_fixture";
  std::filesystem::remove_all(dir);
  CounterCapture capture = read_capture(files.front());
  write_capture(dir, capture);
  {  // flip bytes in the middle of the written image
    std::fstream image(dir / (capture.name + ".counterdata"),
                       std::ios::in | std::ios::out | std::ios::binary);
    image.seekp(static_cast<std::streamoff>(capture.counter_data.size() / 2));
    image.write("\xde\xad\xbe\xef", 4);
  }
  EXPECT_THROW(read_capture(dir / (capture.name + ".json")), UsageError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuprobe::counters
