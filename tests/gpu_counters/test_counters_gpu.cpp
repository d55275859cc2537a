// Counter GPU tests: real CUPTI sessions on GPU 0 checked against kernels with known counts.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/capture.hpp"
#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/evaluate.hpp"
#include "gpuprobe/counters/session.hpp"
#include "kernels.hpp"

namespace gpuprobe::counters {
namespace {

using testing::launch_copy;
using testing::launch_stride32_load;
using testing::launch_tile_transpose;
using testing::sync_or_throw;

bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// Skips visibly without a GPU; skips with CUPTI's reason when counters are refused here (the
// Availability test fails in that case, so a refusal is never silent).
#define GP_REQUIRE_COUNTERS()                                                                \
  do {                                                                                       \
    if (!gpu_present()) GTEST_SKIP() << "no CUDA device";                                    \
    static const CounterAvailability gp_avail_ = counters_availability(0);                   \
    if (!gp_avail_.available)                                                                \
      GTEST_SKIP() << "counters unavailable: " << gp_avail_.reason << " [" << gp_avail_.code \
                   << "] (" << gp_avail_.hint << ")";                                        \
  } while (0)

// Device buffer that frees itself.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* f() const { return static_cast<float*>(ptr); }
};

double value_of(const RangeCounters& range, const std::string& name) {
  const CounterValue* value = range.find(name);
  if (value == nullptr)
    ADD_FAILURE() << name << " missing from range " << range.range;
  else if (!value->value)
    ADD_FAILURE() << name << " has no value: " << value->reason;
  return value && value->value ? *value->value : -1.0;
}

std::string dump(const std::vector<RangeCounters>& ranges) {
  std::string out;
  for (const auto& range : ranges) {
    out += "\n  range " + range.range + ":";
    for (const auto& v : range.values)
      out += "\n    " + v.name + " = " +
             (v.value ? std::to_string(*v.value) : "null (" + v.reason + ")") + " " + v.unit;
  }
  return out;
}

TEST(CountersGpu, Availability) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device";
  const CounterAvailability a = counters_availability(0);
  EXPECT_TRUE(a.available) << "counters refused: " << a.reason << " [" << a.code << "] (" << a.hint
                           << ")";
  EXPECT_FALSE(a.chip.empty());
  std::cout << "[ info ] chip " << a.chip << "\n";
}

TEST(CountersGpu, CopyReadsItsBytesFromDram) {
  GP_REQUIRE_COUNTERS();
  constexpr std::size_t kBytes = 256u << 20;
  const std::size_t n = kBytes / sizeof(float);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i % 1000003);
  DeviceBuffer in(kBytes), out(kBytes);
  ASSERT_EQ(cudaMemcpy(in.ptr, host.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);

  CounterSession session(
      0,
      {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum"},
      2);
  std::cout << "[ info ] " << session.passes() << " pass(es) on " << session.chip() << "\n";
  const auto ranges = session.collect({"copy256MiB"}, [&](std::size_t) {
    cudaMemset(out.ptr, 0, kBytes);  // reset: each pass redoes the same copy
    sync_or_throw("reset");
    launch_copy(in.ptr, out.ptr, kBytes);
  });
  session.close();

  std::vector<float> back(n);
  ASSERT_EQ(cudaMemcpy(back.data(), out.ptr, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(back, host) << "copy kernel result is wrong";

  ASSERT_EQ(ranges.size(), 1u);
  const double read = value_of(ranges[0], "dram__bytes_read.sum");
  const double sectors = value_of(ranges[0], "lts__t_sectors_srcunit_tex_op_read.sum");
  EXPECT_NEAR(read / static_cast<double>(kBytes), 1.0, 0.08)
      << "dram__bytes_read.sum = " << read << " B for a " << kBytes << " B copy" << dump(ranges);
  EXPECT_NEAR(sectors * 32.0 / static_cast<double>(kBytes), 1.0, 0.02)
      << "L2 read sectors from L1 = " << sectors << dump(ranges);
  ASSERT_TRUE(ranges[0].sm_clock_hz.has_value()) << dump(ranges);
  EXPECT_GT(*ranges[0].sm_clock_hz, 1e8) << dump(ranges);
  std::cout << "[ info ] SM clock " << *ranges[0].sm_clock_hz / 1e9 << " GHz" << dump(ranges)
            << "\n";
}

TEST(CountersGpu, Stride32LoadsTouch32SectorsPerRequest) {
  GP_REQUIRE_COUNTERS();
  constexpr std::size_t kCount = 1u << 21;  // 2 Mi loads, 65,536 warp requests
  DeviceBuffer in(kCount * 32 * sizeof(float)), out(kCount * sizeof(float));
  ASSERT_EQ(cudaMemset(in.ptr, 0, kCount * 32 * sizeof(float)), cudaSuccess);
  CounterSession session(0,
                         {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
                         1);
  const auto ranges = session.collect(
      {"stride32"}, [&](std::size_t) { launch_stride32_load(in.f(), out.f(), kCount); });
  session.close();
  ASSERT_EQ(ranges.size(), 1u);
  const double requests = value_of(ranges[0], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  const double sectors = value_of(ranges[0], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  EXPECT_NEAR(requests, kCount / 32.0, kCount / 32.0 * 0.02) << dump(ranges);
  ASSERT_GT(requests, 0.0) << dump(ranges);
  EXPECT_NEAR(sectors / requests, 32.0, 0.5)
      << "sectors per request = " << sectors / requests << dump(ranges);
}

TEST(CountersGpu, ColumnReadOfUnpaddedTileIs32WavefrontsPerLoad) {
  GP_REQUIRE_COUNTERS();
  constexpr int kN = 4096;
  const std::size_t bytes = static_cast<std::size_t>(kN) * kN * sizeof(float);
  DeviceBuffer in(bytes), out(bytes);
  ASSERT_EQ(cudaMemset(in.ptr, 0, bytes), cudaSuccess);
  CounterSession session(0,
                         {"smsp__inst_executed_op_shared_ld.sum",
                          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
                         1);
  const auto ranges = session.collect(
      {"tile32x32"}, [&](std::size_t) { launch_tile_transpose(in.f(), out.f(), kN); });
  session.close();
  ASSERT_EQ(ranges.size(), 1u);
  const double loads = value_of(ranges[0], "smsp__inst_executed_op_shared_ld.sum");
  const double wavefronts =
      value_of(ranges[0], "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
  EXPECT_NEAR(loads, static_cast<double>(kN) * kN / 32.0, 1.0) << dump(ranges);
  ASSERT_GT(loads, 0.0) << dump(ranges);
  EXPECT_NEAR(wavefronts / loads, 32.0, 2.0)
      << "wavefronts per shared load = " << wavefronts / loads << dump(ranges);
}

TEST(CountersGpu, SeveralRangesAndConfigsKeepEveryMetric) {
  GP_REQUIRE_COUNTERS();
  DeviceBuffer in(64u << 20), out(64u << 20);
  CounterSession session(
      0, {"dram__bytes_read.sum", "pcie__read_bytes.sum", "gpu__time_duration.sum"}, 3);
  EXPECT_EQ(session.grouping().configs.size(), 2u);
  const auto ranges = session.collect(
      {"a", "b", "c"}, [&](std::size_t i) { launch_copy(in.ptr, out.ptr, (16u << 20) * (i + 1)); });
  session.close();
  ASSERT_EQ(ranges.size(), 3u) << dump(ranges);
  for (const auto& range : ranges) {
    ASSERT_EQ(range.values.size(), 4u) << dump(ranges);  // 3 asked for + the SM clock
    EXPECT_EQ(range.values[0].name, "dram__bytes_read.sum");
    EXPECT_EQ(range.values[1].name, "pcie__read_bytes.sum");
    for (const auto& v : range.values)
      EXPECT_TRUE(v.value.has_value()) << dump(ranges);
  }
  EXPECT_LT(value_of(ranges[0], "dram__bytes_read.sum"),
            value_of(ranges[2], "dram__bytes_read.sum"))
      << dump(ranges);
}

TEST(CountersGpu, RangeNamesAreChecked) {
  GP_REQUIRE_COUNTERS();
  CounterSession session(0, {"gpu__time_duration.sum"}, 2);
  const auto nothing = [](std::size_t) {};
  EXPECT_THROW(session.collect({"x", "x"}, nothing), UsageError);
  EXPECT_THROW(session.collect({"a", "b", "c"}, nothing), UsageError);
  EXPECT_THROW(session.collect({}, nothing), UsageError);
  EXPECT_THROW(CounterSession(0, {"gpu__time_duration.sum"}, 1), CountersUnavailable)
      << "a second session on the same GPU must be refused";
  session.close();
  EXPECT_THROW(session.collect({"a"}, nothing), UsageError);
  EXPECT_THROW(CounterSession(0, {"dram__bytes_raed.sum"}, 1), UsageError);
}

TEST(CountersGpu, WorkThatThrowsLeavesTheProfilerUsable) {
  GP_REQUIRE_COUNTERS();
  {
    CounterSession session(0, {"gpu__time_duration.sum"}, 1);
    EXPECT_THROW(session.collect({"boom"}, [](std::size_t) { throw std::runtime_error("boom"); }),
                 std::runtime_error);
  }
  const CounterAvailability again = counters_availability(0);
  EXPECT_TRUE(again.available) << again.reason;
}

// Developer path: GPUPROBE_CAPTURE_COUNTER_DATA=<dir> writes fixtures for tests/fixtures/counters.
TEST(CountersGpu, CaptureFixtures) {
  const std::string dir = capture_dir_from_env();
  if (dir.empty()) GTEST_SKIP() << "set " << kCaptureEnv << "=<folder> to write counter fixtures";
  GP_REQUIRE_COUNTERS();
  DeviceBuffer in(64u << 20), out(64u << 20);
  {
    CounterSession session(0,
                           {"dram__bytes_read.sum", "dram__bytes_write.sum",
                            "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sector_hit_rate.pct"},
                           2);
    session.set_capture(dir, "gh100-copy");
    session.collect({"copy16MiB", "copy64MiB"}, [&](std::size_t i) {
      launch_copy(in.ptr, out.ptr, i == 0 ? (16u << 20) : (64u << 20));
    });
  }
  {
    CounterSession session(0, {"pcie__read_bytes.sum", "pcie__write_bytes.sum"}, 1);
    session.set_capture(dir, "gh100-pcie");
    session.collect({"copy64MiB"}, [&](std::size_t) { launch_copy(in.ptr, out.ptr, 64u << 20); });
  }
  const auto files = find_captures(dir);
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    const CounterCapture capture = read_capture(file);
    const MetricCatalog catalog(capture.chip, capture.counter_availability);
    const auto offline = evaluate_counter_data(catalog, capture.metrics, capture.counter_data);
    ASSERT_EQ(offline.size(), capture.values.size()) << file;
    for (std::size_t r = 0; r < offline.size(); ++r)
      for (std::size_t m = 0; m < offline[r].values.size(); ++m)
        EXPECT_EQ(offline[r].values[m].value, capture.values[r].values[m].value) << file;
    std::cout << "[ info ] wrote " << file << " (" << capture.counter_data.size() << " B)"
              << dump(capture.values) << "\n";
  }
}

}  // namespace
}  // namespace gpuprobe::counters
