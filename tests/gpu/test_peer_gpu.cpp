// GPU tests of the peer probe: on one GPU, the skip and its reason; on two or more, every path
// verified, P2P copy-engine bandwidth against the staged paths, small copies as fast either way
// (each lane timed on its own GPU), the pointer chase, and one run across the selection
// (host-scoped) where device-scoped probes run per GPU (skipped, visibly, below two GPUs).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/link_facts.hpp"
#include "gpuprobe/runtime/measure.hpp"
#include "peer/sweep.hpp"
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

// Whether GPUs a and b reach each other's memory both ways: the driver's word, so that a row the
// probe failed to make is a failure, not taken for a pair without P2P access.
bool p2p_both_ways(int a, int b) {
  int ab = 0, ba = 0;
  return cudaDeviceCanAccessPeer(&ab, a, b) == cudaSuccess &&
         cudaDeviceCanAccessPeer(&ba, b, a) == cudaSuccess && ab && ba;
}

// Active NVLinks from GPU 0 to GPU 1 as NVML reports them (0: PCIe only, or NVML silent).
int nvlinks_0_to_1() {
  DeviceInfo d = runtime::query_device(0);
  runtime::add_link_facts(d);
  for (const auto& l : d.peer_links)
    if (l.peer == 1) return l.nvlinks;
  return 0;
}

#define GP_REQUIRE_P2P_0_1()                                                              \
  do {                                                                                    \
    if (!p2p_both_ways(0, 1)) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access (driver)"; \
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
  ASSERT_NE(staged, nullptr);
  GP_REQUIRE_P2P_0_1();
  ASSERT_NE(ce, nullptr);
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

// Each leg is timed on the GPU that runs it: no cross-GPU handshake inside the timed interval.
// With the legs of other GPUs handed over by cross-GPU events, a 4 KiB copy on the GPU other than
// the harness's took about 4x as long as on the harness's (14.5-15.3 us against 3.4-3.9 us on
// H200s). What remains is the driver's: a small copy draws one of two levels per process and
// point (ce-write 4 KiB: 2.4 or 3.4-3.8 us on H200s; over five round processes the medians of
// 0 -> 1 and 1 -> 0 still differed by up to 1.46x, docs/probes/peer.md). Such points take at least
// nine processes (peer::kProcessLevelRounds), more than the five asked here. With nine, every 4 KiB
// one-way path agreed within 2.8% both ways in two `gpuprobe peer` runs on two H200s, and this test
// passed alone twice; but run after the rest of the GPU suite it read sm-read 2.76 us 0 -> 1
// against 3.53 us 1 -> 0 (1.28x) twice (2026-11-27), not explained yet. The bound: 1.5x, above
// both, far under the 4x of a cross-GPU handshake inside the timed interval.
TEST(PeerGpu, SmallCopiesTakeAsLongEitherWay) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  runtime::MeasureOptions options;
  options.rounds = 5;
  options.rule.fixed_samples = 20;
  options.round_executable = GPUPROBE_BINARY;
  const ProbeResult r = testing::run_probe_across(
      *probe, {"--mode", "ce,ce-write,sm-read,sm-write", "--direction", "uni", "--sizes", "4KiB"},
      {0, 1}, options, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Quantity* processes = find_quantity(r.conditions, "round_processes");
  ASSERT_NE(processes, nullptr);
  // One batch of small copies, in peer's least number of processes (not the five asked).
  EXPECT_EQ(processes->value, static_cast<double>(peer::kProcessLevelRounds));
  int compared = 0;
  for (const char* mode : {"ce", "ce-write", "sm-read", "sm-write"}) {
    const Row* there = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", mode}});
    const Row* back = testing::find_row(r, {{"src", "1"}, {"dst", "0"}, {"mode", mode}});
    if (!p2p_both_ways(0, 1)) continue;  // the driver says no P2P access: no rows to compare
    ASSERT_NE(there, nullptr) << mode;
    ASSERT_NE(back, nullptr) << mode;
    const double a = testing::median_of(*there, "time");
    const double b = testing::median_of(*back, "time");
    EXPECT_LT(std::max(a, b) / std::min(a, b), 1.5)
        << mode << ": 0->1 " << a * 1e6 << " us, 1->0 " << b * 1e6 << " us";
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access";
}

// The driver's P2P-off path crosses PCIe twice (through host memory): slower than the P2P copy
// over NVLink. Over PCIe P2P the two may be close, so the test needs an NVLink-class P2P copy.
TEST(PeerGpu, DriverStagedSlowerThanP2pOverNvlink) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe_across(
      *probe, {"--mode", "ce,ce-nop2p", "--direction", "uni", "--sizes", "64MiB"}, {0, 1});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* ce = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "ce"}});
  const Row* off = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "ce-nop2p"}});
  ASSERT_NE(off, nullptr);  // runs with or without P2P access
  EXPECT_GT(testing::median_of(*off, "bandwidth"), 0.0);
  GP_REQUIRE_P2P_0_1();
  ASSERT_NE(ce, nullptr);
  // NVLink or not is NVML's word, not the measurement's: a P2P copy that fell back to a slow
  // path over NVLink must fail here, not skip.
  if (nvlinks_0_to_1() == 0) GTEST_SKIP() << "GPUs 0 and 1 are not joined by NVLink (NVML)";
  EXPECT_GT(testing::median_of(*ce, "bandwidth"), 100.0);
  EXPECT_LT(testing::median_of(*off, "bandwidth"), testing::median_of(*ce, "bandwidth") / 2);
}

// One load in flight over the link: more than a local L2 hit, less than a whole 4 KiB copy-engine
// copy (which also waits for its launch and completion), and the chain verified (status ok).
TEST(PeerGpu, ChaseLatencyBetweenL2AndCopy) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe_across(
      *probe, {"--mode", "ce,sm-latency", "--direction", "uni,bidir", "--sizes", "4KiB,64MiB"},
      {0, 1});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* chase =
      testing::find_row(r, {{"src", "1"}, {"dst", "0"}, {"mode", "sm-latency"}, {"bytes", "4096"}});
  const Row* ce = testing::find_row(
      r, {{"src", "1"}, {"dst", "0"}, {"mode", "ce"}, {"direction", "uni"}, {"bytes", "4096"}});
  GP_REQUIRE_P2P_0_1();
  ASSERT_NE(chase, nullptr);
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(testing::find_row(r, {{"mode", "sm-latency"}, {"direction", "bidir"}}), nullptr);
  const double ns = testing::median_of(*chase, "access_latency") * 1e9;
  EXPECT_GT(ns, 200.0);
  EXPECT_LT(ns * 1e-9, testing::median_of(*ce, "time"));
  const Row* far = testing::find_row(
      r, {{"src", "1"}, {"dst", "0"}, {"mode", "sm-latency"}, {"bytes", "67108864"}});
  ASSERT_NE(far, nullptr);
  EXPECT_GE(testing::median_of(*far, "access_latency") * 1e9,
            ns * 0.9);  // never faster than in cache
}

// Every GPU at once: every copy verified (status ok), a row per reported GPU, and all-to-all's
// aggregate above the one pair 0 -> 1 measured alone in the same run (the copies of different
// pairs run side by side; one after the other, the aggregate would be the pair's).
TEST(PeerGpu, PatternsVerifiedAggregateAbovePerGpu) {
  GP_REQUIRE_GPU();
  GP_REQUIRE_TWO_GPUS();
  auto probe = make_peer_probe();
  std::vector<int> every;
  for (int d = 0; d < visible_gpus(); ++d)
    every.push_back(d);
  const ProbeResult r =
      testing::run_probe_across(*probe,
                                {"--pattern", "pairs,all-to-one,one-to-all,all-to-all", "--mode",
                                 "ce,ce-write", "--direction", "uni", "--sizes", "16MiB"},
                                every);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  for (int a = 0; a < visible_gpus(); ++a)
    for (int b = a + 1; b < visible_gpus(); ++b)
      if (!p2p_both_ways(a, b))
        GTEST_SKIP() << "GPUs " << a << " and " << b << " have no P2P access";
  const Row* all = testing::find_row(r, {{"pattern", "all-to-all"}, {"gpu", "0"}, {"mode", "ce"}});
  const Row* pair = testing::find_row(r, {{"src", "0"}, {"dst", "1"}, {"mode", "ce"}});
  ASSERT_NE(all, nullptr);
  ASSERT_NE(pair, nullptr);
  const int gpus = visible_gpus();
  std::size_t rows = 0;
  for (const auto& row : r.rows) {
    if (!find_param(row.params, "pattern")) continue;  // the pair rows
    EXPECT_GT(testing::median_of(row, "bandwidth_gpu"), 0.0);
    ++rows;
  }
  // per mode: all-to-one and one-to-all a row per GPU each, all-to-all a row per GPU
  EXPECT_EQ(rows, static_cast<std::size_t>(2 * 3 * gpus));
  EXPECT_GT(testing::median_of(*all, "bandwidth"), 1.2 * testing::median_of(*pair, "bandwidth"));
}

}  // namespace
}  // namespace gpuprobe
