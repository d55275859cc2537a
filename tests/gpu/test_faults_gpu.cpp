// GPU tests of run-time faults: a sweep that needs more device memory than the GPU has fails
// with the sizes and the flag that shrinks it, and the next probe of the same run still works.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gpu_test_support.hpp"
#include "gpuprobe/probe.hpp"

namespace gpuprobe {
namespace {

std::unique_ptr<Probe> probe_named(const std::string& name) {
  for (auto& p : make_probes())
    if (p->name() == name) return std::move(p);
  ADD_FAILURE() << "no probe " << name;
  return nullptr;
}

TEST(FaultsGpu, OutOfDeviceMemoryFailsNamingTheFlagAndTheNextProbeRuns) {
  GP_REQUIRE_GPU();
  auto transfer = probe_named("transfer");
  auto bank = probe_named("bank-conflicts");
  ASSERT_TRUE(transfer && bank);
  // 1 TiB: more than any GPU has; pageable, so the device allocation is the one that fails.
  const ProbeResult oom = testing::run_probe(
      *transfer, {"--memory", "pageable", "--direction", "h2d", "--sizes", "1TiB"}, 3, false);
  EXPECT_EQ(oom.status, Status::kFailed);
  EXPECT_NE(oom.reason.find("out of device memory: asked for 1 TiB"), std::string::npos)
      << oom.reason;
  EXPECT_NE(oom.reason.find("--sizes"), std::string::npos) << oom.reason;
  EXPECT_TRUE(oom.rows.empty());
  // As in `gpuprobe all`: the next probe in the same process runs on the same device.
  const ProbeResult next = testing::run_probe(*bank, {"--ladder", "--size", "1024"}, 3, false);
  EXPECT_EQ(next.status, Status::kOk) << next.reason;
  EXPECT_FALSE(next.rows.empty());
}

}  // namespace
}  // namespace gpuprobe
