// An analysis that throws on a real run keeps the measured rows (issue 31, item 2): a probe whose
// analysis fails after its points were measured on the GPU comes back failed, with the reason
// naming the analysis, and with every measured row and its samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "gpu_test_support.hpp"
#include "gpuprobe/sweep_probe.hpp"

namespace gpuprobe::testing {
namespace {

// A device-to-device copy by size whose analysis throws once the rows are in.
class ThrowingAnalysisProbe final : public SweepProbe<std::uint64_t> {
 public:
  std::string name() const override { return "analysis-throws"; }
  std::string description() const override { return "a copy whose analysis throws"; }
  std::vector<Axis> axes() const override {
    return {size_list_axis("sizes", "copy sizes", "1MiB,4MiB", "1MiB,4MiB")};
  }
  std::string method(const AxisValues&) const override { return "cudaMemcpyAsync d2d"; }
  std::vector<std::uint64_t> points(const AxisValues& v) const override { return v.list("sizes"); }
  Row row(const std::uint64_t& bytes) const override {
    return unmeasured_row({{"bytes", static_cast<std::int64_t>(bytes), "B"}});
  }
  Analysis measure(Sweep<std::uint64_t>& s) override {
    const std::uint64_t most = *std::max_element(s.points().begin(), s.points().end());
    runtime::DeviceBuffer src(most), dst(most);
    s.measure_each([&](std::uint64_t bytes, runtime::Operation& op) {
      op.lanes.push_back(
          {"copy", 2.0 * static_cast<double>(bytes),
           [bytes, in = src.get(), out = dst.get()](auto& l) {
             GP_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, l.stream()));
           }});
    });
    return [](ProbeResult&) { throw std::runtime_error("the analysis broke on purpose"); };
  }
};

TEST(AnalysisErrorGpu, AThrowingAnalysisKeepsTheMeasuredRows) {
  GP_REQUIRE_GPU();
  ThrowingAnalysisProbe probe;
  const ProbeResult r = run_probe(probe, {});
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.reason.find("analysis failed"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("broke on purpose"), std::string::npos) << r.reason;
  ASSERT_EQ(r.rows.size(), 2u);
  for (const Row& row : r.rows) {
    EXPECT_GT(median_of(row, "time"), 0.0);
    EXPECT_GT(median_of(row, "bandwidth"), 0.0);
  }
}

}  // namespace
}  // namespace gpuprobe::testing
