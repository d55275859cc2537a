// GPU tests of the peer probe: on one GPU, the skip and its reason; on two or more, every path
// verified, and P2P copy-engine bandwidth against the staged path (skipped, visibly, below two
// GPUs: those wait for a machine with two).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

#define GP_REQUIRE_TWO_GPUS()                                                             \
  do {                                                                                    \
    if (visible_gpus() < 2)                                                               \
      GTEST_SKIP() << "peer needs two GPUs; " << visible_gpus() << " visible (this test " \
                   << "waits for a multi-GPU machine)";                                   \
  } while (0)

TEST(PeerGpu, OneGpuIsSkippedWithTheReason) {
  GP_REQUIRE_GPU();
  if (visible_gpus() != 1) GTEST_SKIP() << visible_gpus() << " GPUs visible: not the one-GPU case";
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--sizes", "64KiB"});
  EXPECT_EQ(r.status, Status::kSkipped);
  EXPECT_EQ(r.reason, "peer needs two GPUs; 1 visible");
  EXPECT_TRUE(r.rows.empty());
}

TEST(PeerGpu, EveryPathVerifiedOnTwoGpus) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--device", "0,1", "--sizes", "64KiB,16MiB"}, 3, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  // 2 ordered pairs x 4 modes x 2 directions x 2 sizes, less any pair without P2P access.
  EXPECT_GE(r.rows.size(), 2u * 2u * 2u);  // the staged rows always run
  EXPECT_LE(r.rows.size(), 2u * 4u * 2u * 2u);
  for (const auto& row : r.rows)
    EXPECT_GT(testing::median_of(row, "bandwidth"), 0.0);
}

// A P2P copy-engine copy does not go through host memory: it beats the staged copy of the same
// size, which crosses PCIe twice one leg after the other.
TEST(PeerGpu, P2pCopyBeatsStaged) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--device", "0,1", "--mode", "ce,staged", "--direction", "uni", "--sizes", "64MiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* ce = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "ce"}});
  const Row* staged = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "staged"}});
  if (!ce) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access";
  ASSERT_NE(staged, nullptr);
  EXPECT_GT(testing::median_of(*ce, "bandwidth"), testing::median_of(*staged, "bandwidth"));
}

}  // namespace
}  // namespace gpuprobe
