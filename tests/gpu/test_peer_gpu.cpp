// GPU tests of the peer probe: on one GPU, the skip and its reason; on two or more, every path
// verified, P2P copy-engine bandwidth against the staged path, and one run across the selection
// (host-scoped) where device-scoped probes run per GPU (skipped, visibly, below two GPUs: those
// wait for a machine with two).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/device.hpp"
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
      testing::run_probe_across(*probe, {"--sizes", "64KiB,16MiB"}, {0, 1}, 3, false);
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
  const ProbeResult r = testing::run_probe_across(
      *probe, {"--mode", "ce,staged", "--direction", "uni", "--sizes", "64MiB"}, {0, 1});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* ce = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "ce"}});
  const Row* staged = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "staged"}});
  if (!ce) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access";
  ASSERT_NE(staged, nullptr);
  EXPECT_GT(testing::median_of(*ce, "bandwidth"), testing::median_of(*staged, "bandwidth"));
}

// The global --device selection drives the pairs: GPU 0 alone, on a machine with more, is a skip
// that says how to select two.
TEST(PeerGpu, OneGpuSelectedOfSeveralIsSkippedWithTheWayOut) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--sizes", "64KiB"});
  EXPECT_EQ(r.status, Status::kSkipped);
  EXPECT_NE(r.reason.find("--device selects only GPU 0"), std::string::npos) << r.reason;
}

// What `gpuprobe --device 0,1 all` runs: a device-scoped probe once per GPU, peer (host-scoped)
// once across both, on the first, with the pairs of both.
TEST(PeerGpu, RunOnDevicesRunsPeerOnceAcrossTheSelection) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto peer = make_peer_probe();
  auto transfer = make_transfer_probe();
  const std::vector<runner::ProbeRun> probes{
      {transfer.get(),
       testing::parse_args(*transfer, {"--pinned", "--direction", "h2d", "--sizes", "1MiB"})},
      {peer.get(), testing::parse_args(
                       *peer, {"--mode", "ce,staged", "--direction", "uni", "--sizes", "1MiB"})}};
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 3;
  Glossary glossary = core_glossary();
  peer->add_words(glossary);
  transfer->add_words(glossary);
  const auto results =
      runner::run_on_devices(probes, {runtime::query_device(0), runtime::query_device(1)}, options,
                             runner::CounterOptions{false, {}}, {}, glossary);
  std::vector<const ProbeResult*> peers, transfers;
  for (const auto& r : results)
    (r.probe == "peer" ? peers : transfers).push_back(&r);
  ASSERT_EQ(peers.size(), 1u);
  ASSERT_EQ(peers[0]->status, Status::kOk) << peers[0]->reason;
  EXPECT_EQ(peers[0]->device, 0);
  EXPECT_EQ(peers[0]->devices, (std::vector<int>{0, 1}));
  EXPECT_NE(testing::find_row(*peers[0], {{"src", "0"}, {"dst", "1"}, {"mode", "staged"}}),
            nullptr);
  EXPECT_NE(testing::find_row(*peers[0], {{"src", "1"}, {"dst", "0"}, {"mode", "staged"}}),
            nullptr);
  // Each GPU's clock was sampled around the one run.
  EXPECT_NE(find_quantity(peers[0]->conditions, "sm_clock_before_gpu1"), nullptr);
  ASSERT_EQ(transfers.size(), 2u);
  EXPECT_EQ(transfers[0]->device, 0);
  EXPECT_EQ(transfers[1]->device, 1);
  EXPECT_TRUE(transfers[0]->devices.empty());
}

}  // namespace
}  // namespace gpuprobe
