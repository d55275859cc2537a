// GPU tests of an operation's persisting-L2 setting: applied while the operation runs (lane and
// forked streams carry the window, the set-aside is in force) and gone after it (no window on the
// reused streams, set-aside 0), so it never leaks into the next point.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/l2.hpp"

namespace gpuprobe {
namespace {

struct Seen {
  std::size_t lane_window = 0;    // the window's bytes on the lane's stream at launch
  std::size_t forked_window = 0;  // ... and on a stream it forked
  std::size_t set_aside = 0;      // the persisting-L2 limit at launch
  cudaStream_t lane = nullptr;
  cudaStream_t forked = nullptr;
};

runtime::Operation touching_op(runtime::DeviceBuffer& buf, Seen& seen,
                               std::optional<runtime::PersistingL2> persisting) {
  runtime::Operation op;
  op.label = persisting ? "with window" : "without window";
  op.persisting = persisting;
  void* p = buf.get();
  const std::size_t bytes = buf.bytes();
  op.lanes.push_back(
      {"touch", static_cast<double>(bytes), [&seen, p, bytes](runtime::LaunchScope& s) {
         seen.lane = s.stream();
         seen.lane_window = runtime::stream_window(s.stream()).num_bytes;
         seen.forked = s.fork(0);
         seen.forked_window = runtime::stream_window(seen.forked).num_bytes;
         GP_CUDA(cudaDeviceGetLimit(&seen.set_aside, cudaLimitPersistingL2CacheSize));
         GP_CUDA(cudaMemsetAsync(p, 1, bytes, seen.forked));
         s.join();
       }});
  return op;
}

TEST(PersistingGpu, WindowAndSetAsideHoldWhileTheOperationRunsAndNotAfter) {
  GP_REQUIRE_GPU();
  const DeviceInfo device = runtime::query_device(0);
  if (device.persisting_l2_max_bytes == 0) GTEST_SKIP() << "no persisting L2 on this GPU";
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 3;
  options.rounds = 1;
  runtime::ProbeContext ctx(device, options, {}, "test-persisting", 2);
  runtime::DeviceBuffer buf(std::size_t{4} << 20);
  runtime::PersistingL2 setting;
  setting.set_aside_bytes = std::min<std::size_t>(device.persisting_l2_max_bytes, 8u << 20);
  setting.window_base = buf.get();
  setting.window_bytes = buf.bytes();
  setting.hit_ratio = 0.5f;

  Seen with, without;
  ctx.measure(touching_op(buf, with, setting));
  EXPECT_EQ(with.lane_window, buf.bytes());
  EXPECT_EQ(with.forked_window, buf.bytes());
  EXPECT_GT(with.set_aside, 0u);
  // After the operation: the lane's (reused) stream carries no window, the set-aside is 0. A
  // forked stream keeps what it copied until its next fork copies the lane's again (below).
  EXPECT_EQ(runtime::stream_window(with.lane).num_bytes, 0u);
  std::size_t limit = 1;
  GP_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(limit, 0u);
  // The next operation on the same streams sees none of it.
  ctx.measure(touching_op(buf, without, std::nullopt));
  EXPECT_EQ(without.lane, with.lane);
  EXPECT_EQ(without.lane_window, 0u);
  EXPECT_EQ(without.forked_window, 0u);
  EXPECT_EQ(without.set_aside, 0u);
}

TEST(PersistingGpu, AGpuWithoutPersistingL2RefusesTheSetting) {
  GP_REQUIRE_GPU();
  const std::vector<cudaStream_t> none;
  runtime::PersistingL2 setting;
  EXPECT_THROW(runtime::PersistingScope(setting, none, 0), UnsupportedError);
  EXPECT_NO_THROW(runtime::PersistingScope(std::nullopt, none, 0));
}

}  // namespace
}  // namespace gpuprobe
