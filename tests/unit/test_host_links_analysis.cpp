// Unit tests of the host-links analysis: a concurrent operation's samples split per GPU, slowdown
// and loss, the slow-link rule (one that must fire, siblings within noise that must not) and the
// one-GPU note, on rows made by hand (no multi-GPU machine was lent while this probe was written;
// the numbers are chosen to test each rule, shaped after nvbandwidth's 4x H200 figures and
// nvbandwidth issue #6's 14 GB/s link, not taken from a GPU).
#include <gtest/gtest.h>

#include <stdexcept>

#include "host_links/analysis.hpp"

namespace gpuprobe {
namespace {

Metric bandwidth(double median, double rel_noise) {
  Metric m{"bandwidth", "GB/s", {}, {}};
  m.stats.median = m.stats.min = m.stats.max = m.stats.mean = median;
  m.stats.rel_noise = rel_noise;
  m.stats.n = 5;
  return m;
}

constexpr std::int64_t kBytes = 256 << 20;

Row row(Scalar gpu, const std::string& mode, double gbps, double noise = 0.005,
        const std::string& direction = "h2d") {
  Row r;
  r.params = {{"gpu", std::move(gpu), ""},
              {"direction", direction, ""},
              {"bytes", kBytes, "B"},
              {"mode", mode, ""}};
  r.metrics = {bandwidth(gbps, noise)};
  return r;
}

Row solo(std::int64_t gpu, double gbps, double noise = 0.005) {
  return row(gpu, "solo", gbps, noise);
}

Glossary words() {
  Glossary g = core_glossary();
  host_links::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

double derived(const Row& r, const std::string& name) {
  const Quantity* q = find_quantity(r.derived, name);
  EXPECT_TRUE(q && q->value) << name;
  return q && q->value ? *q->value : -1;
}

TEST(HostLinksSamples, EachGpuTakesItsLongestLane) {
  SampleSet all;
  all.seconds = {5, 5};
  all.rounds = {0, 1};
  all.flags = {"noisy"};
  all.lanes = {{host_links::lane_name(0, "h2d"), 10, {1, 2}},
               {host_links::lane_name(0, "d2h"), 10, {3, 1}},
               {host_links::lane_name(1, "h2d"), 10, {5, 5}},
               {host_links::lane_name(10, "h2d"), 10, {4, 4}}};
  const SampleSet g0 = host_links::gpu_samples(all, 0);
  EXPECT_EQ(g0.seconds, (std::vector<double>{3, 2}));
  ASSERT_EQ(g0.lanes.size(), 2u);
  EXPECT_EQ(g0.lanes[0].name, "h2d");
  EXPECT_EQ(g0.lanes[1].name, "d2h");
  EXPECT_EQ(g0.rounds, all.rounds);
  EXPECT_EQ(g0.flags, all.flags);
  // "gpu1 " is not a prefix of "gpu10 h2d": GPU 1 has one lane.
  const SampleSet g1 = host_links::gpu_samples(all, 1);
  EXPECT_EQ(g1.seconds, (std::vector<double>{5, 5}));
  EXPECT_EQ(g1.lanes.size(), 1u);
  EXPECT_THROW(host_links::gpu_samples(all, 2), std::invalid_argument);
}

TEST(HostLinksAnalysis, SlowdownAndLossPerGpuAndAggregate) {
  ProbeResult r;
  r.rows = {solo(0, 50), solo(1, 50), row(std::int64_t{0}, "concurrent", 40),
            row(std::int64_t{1}, "concurrent", 25), row(std::string("all"), "concurrent", 65)};
  host_links::analyse(r);
  EXPECT_DOUBLE_EQ(derived(r.rows[2], "slowdown"), 50.0 / 40.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[2], "loss"), 20.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[3], "slowdown"), 2.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[3], "loss"), 50.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[3], "solo_bandwidth"), 50.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[4], "solo_sum"), 100.0);
  EXPECT_DOUBLE_EQ(derived(r.rows[4], "loss"), 35.0);
  const auto loss = all_of(r, "host_links_concurrent_loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_DOUBLE_EQ(value_of(*loss[0], "loss"), 35.0);
  EXPECT_DOUBLE_EQ(value_of(*loss[0], "loss_gpu0"), 20.0);
  EXPECT_DOUBLE_EQ(value_of(*loss[0], "loss_gpu1"), 50.0);
  EXPECT_EQ(param_text_of(*loss[0], "worst_gpu"), "1");
  phrase_findings(r, words());
  EXPECT_NE(loss[0]->text.find("a loss of 35%; each GPU loses GPU 0 20%, GPU 1 50%"),
            std::string::npos)
      << loss[0]->text;
}

// nvbandwidth issue #6: one GPU of a 4x H100 VM at 14 GB/s host-to-device, the others at 57.
TEST(HostLinksAnalysis, SlowLinkNamesTheSlowGpuOnly) {
  ProbeResult r;
  r.rows = {solo(0, 57.0), solo(1, 57.3), solo(2, 56.8), solo(3, 14.0)};
  host_links::analyse(r);
  const auto slow = all_of(r, "host_links_slow_link");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(param_text_of(*slow[0], "gpu"), "3");
  EXPECT_DOUBLE_EQ(value_of(*slow[0], "others_median"), 57.0);
  EXPECT_NEAR(value_of(*slow[0], "ratio"), 14.0 / 57.0, 1e-12);
  EXPECT_TRUE(all_of(r, "host_links_links_alike").empty());
  EXPECT_TRUE(all_of(r, "host_links_one_gpu").empty());
  phrase_findings(r, words());
  EXPECT_NE(slow[0]->text.find("GPU 3 h2d 256 MiB: its host link gives 14"), std::string::npos)
      << slow[0]->text;
}

// nvbandwidth on 4x H200, one GPU alone: 54.6-55.5 GB/s. Siblings that far apart are alike, and
// so is one 9% lower whose own samples scatter by 4% (3x its noise covers the gap).
TEST(HostLinksAnalysis, SiblingsWithinNoiseDoNotFire) {
  ProbeResult r;
  r.rows = {solo(0, 55.5), solo(1, 54.6), solo(2, 55.0), solo(3, 50.0, 0.04)};
  host_links::analyse(r);
  EXPECT_TRUE(all_of(r, "host_links_slow_link").empty());
  const auto alike = all_of(r, "host_links_links_alike");
  ASSERT_EQ(alike.size(), 1u);
  EXPECT_DOUBLE_EQ(value_of(*alike[0], "lowest"), 50.0);
  EXPECT_DOUBLE_EQ(value_of(*alike[0], "highest"), 55.5);
  phrase_findings(r, words());
  EXPECT_NE(alike[0]->text.find("the 4 GPUs' host links are alike"), std::string::npos)
      << alike[0]->text;
}

TEST(HostLinksDecision, MarginIsTheLargestOfSpreadNoiseAndTheFixedMargin) {
  // Others' range 2 GB/s beats 3x noise (0.3) and 2% (1.0).
  auto d = host_links::decide_slow_link(47.5, 0.001, {49.0, 50.0, 51.0}, 0.002);
  EXPECT_DOUBLE_EQ(d.others_median, 50.0);
  EXPECT_DOUBLE_EQ(d.margin, 2.0);
  EXPECT_TRUE(d.slow);
  EXPECT_FALSE(host_links::decide_slow_link(48.5, 0.001, {49.0, 50.0, 51.0}, 0.002).slow);
  // One sibling: no range; the 2% margin decides.
  d = host_links::decide_slow_link(48.9, 0.0, {50.0}, 0.0);
  EXPECT_DOUBLE_EQ(d.margin, 1.0);
  EXPECT_TRUE(d.slow);
  EXPECT_FALSE(host_links::decide_slow_link(49.1, 0.0, {50.0}, 0.0).slow);
  EXPECT_THROW(host_links::decide_slow_link(1.0, 0.0, {}, 0.0), std::invalid_argument);
}

TEST(HostLinksAnalysis, OneGpuIsSoloOnlyAndSaysSo) {
  ProbeResult r;
  r.rows = {solo(0, 55.0)};
  host_links::analyse(r);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "host_links_one_gpu");
  EXPECT_EQ(r.findings[0].kind, FindingKind::kNote);
  phrase_findings(r, words());
  EXPECT_NE(r.findings[0].text.find("solo rows only"), std::string::npos);
}

TEST(HostLinksAnalysis, RawLimitFractionAndRemoteBuffer) {
  ProbeResult r;
  r.rows = {solo(0, 54.0), solo(1, 54.0)};
  r.rows[0].model = {{"raw_limit", "GB/s", 63.0}};
  r.rows[1].model = {{"raw_limit", "GB/s", std::nullopt}};
  r.rows[0].derived = {{"gpu_node", "", 0.0}, {"host_node", "", 0.0}};
  r.rows[1].derived = {{"gpu_node", "", 1.0}, {"host_node", "", 0.0}};
  host_links::analyse(r);
  EXPECT_DOUBLE_EQ(derived(r.rows[0], "fraction_of_raw"), 54.0 / 63.0);
  EXPECT_EQ(find_quantity(r.rows[1].derived, "fraction_of_raw"), nullptr);
  const auto remote = all_of(r, "host_links_remote_buffer");
  ASSERT_EQ(remote.size(), 1u);
  EXPECT_EQ(param_text_of(*remote[0], "gpu"), "1");
  EXPECT_EQ(remote[0]->kind, FindingKind::kWarning);
  phrase_findings(r, words());
  EXPECT_NE(remote[0]->text.find("landed on NUMA node 0, not on the GPU's node 1"),
            std::string::npos)
      << remote[0]->text;
}

TEST(HostLinksAnalysis, NoRowsNoFindings) {
  ProbeResult r;
  host_links::analyse(r);
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace gpuprobe
