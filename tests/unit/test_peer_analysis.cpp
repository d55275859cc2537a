// Unit tests of the peer analysis: the pair sweep, and the findings on synthetic rows (no
// two-GPU machine was lent while this probe was written, so there is no measured fixture yet;
// the rows here are made by hand, their numbers chosen to test each rule, not taken from a GPU).
#include <gtest/gtest.h>

#include "peer/analysis.hpp"

namespace gpuprobe {
namespace {

using Pairs = std::vector<std::pair<int, int>>;

TEST(PeerPairs, EveryOrderedPairWithoutSelfPairs) {
  EXPECT_EQ(ordered_pairs({0, 1}), (Pairs{{0, 1}, {1, 0}}));
  EXPECT_EQ(ordered_pairs({0, 1, 2}), (Pairs{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  EXPECT_EQ(ordered_pairs({2, 0}), (Pairs{{2, 0}, {0, 2}}));
  EXPECT_EQ(ordered_pairs({0, 1, 2, 3}).size(), 12u);
}

TEST(PeerPairs, OneDeviceGivesNone) {
  EXPECT_TRUE(ordered_pairs({0}).empty());
  EXPECT_TRUE(ordered_pairs({}).empty());
  EXPECT_TRUE(ordered_pairs({1, 1}).empty());  // a device listed twice counts once
}

Metric metric(const std::string& name, const std::string& unit, double median) {
  Metric m{name, unit, {}, {}};
  m.stats.median = m.stats.min = m.stats.max = m.stats.mean = median;
  m.stats.n = 1;
  return m;
}

// A measured row: bandwidth in GB/s, time = bytes / bandwidth, raw limit (<= 0: unknown).
Row row(int src, int dst, const std::string& mode, std::int64_t bytes, double gbps, double raw,
        const std::string& source = "runtime") {
  Row r;
  r.params = {{"src", std::int64_t{src}, ""},
              {"dst", std::int64_t{dst}, ""},
              {"mode", mode, ""},
              {"direction", std::string("uni"), ""},
              {"bytes", bytes, "B"},
              {"link", std::string("PCIe gen5 x16"), ""},
              {"link_source", source, ""}};
  r.metrics = {metric("bandwidth", "GB/s", gbps),
               metric("time", "s", static_cast<double>(bytes) / (gbps * 1e9))};
  r.model = {{"raw_limit", "GB/s", raw > 0 ? std::optional<double>(raw) : std::nullopt}};
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  peer::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

TEST(PeerAnalysis, PeakLatencyAndFractionPerPath) {
  ProbeResult r;
  r.rows = {row(0, 1, "ce", 4096, 2.0, 63.0), row(0, 1, "ce", 64 << 20, 50.4, 63.0),
            row(0, 1, "ce", 16 << 20, 45.0, 63.0), row(1, 0, "ce", 4096, 1.0, 63.0),
            row(1, 0, "ce", 64 << 20, 40.0, 63.0)};
  peer::analyse(r);
  const auto paths = all_of(r, "peer_path");
  ASSERT_EQ(paths.size(), 2u);
  const Finding& f = *paths[0];  // (0, 1) sorts first
  EXPECT_EQ(param_text_of(f, "src"), "0");
  EXPECT_DOUBLE_EQ(value_of(f, "bandwidth"), 50.4);
  EXPECT_DOUBLE_EQ(value_of(f, "fraction_of_raw"), 0.8);
  EXPECT_DOUBLE_EQ(value_of(f, "latency"), 4096 / 2.0e9);  // the smallest size's time
  EXPECT_DOUBLE_EQ(value_of(f, "latency_bytes"), 4096.0);
  EXPECT_EQ(param_text_of(f, "at"), "64 MiB");
  EXPECT_DOUBLE_EQ(value_of(*paths[1], "bandwidth"), 40.0);
  EXPECT_TRUE(all_of(r, "peer_above_model").empty());
  const Quantity* fraction = find_quantity(r.rows[2].derived, "fraction_of_raw");
  ASSERT_NE(fraction, nullptr);
  EXPECT_DOUBLE_EQ(*fraction->value, 45.0 / 63.0);
  EXPECT_EQ(all_of(r, "peer_link_assumed").size(), 1u);
  phrase_findings(r, words());
  EXPECT_NE(paths[0]->text.find("GPU 0 -> GPU 1 ce uni: peak 50.4 GB/s at 64 MiB, 80% of the raw"),
            std::string::npos)
      << paths[0]->text;
}

// An NVLink pair measured against the PCIe limit the runtime-only build assumes.
TEST(PeerAnalysis, AboveTheAssumedLinkIsAWarning) {
  ProbeResult r;
  r.rows = {row(0, 1, "sm-read", 64 << 20, 350.0, 63.0)};
  peer::analyse(r);
  const auto above = all_of(r, "peer_above_model");
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0]->kind, FindingKind::kWarning);
  EXPECT_EQ(param_text_of(*above[0], "link"), "PCIe gen5 x16");
  phrase_findings(r, words());
  EXPECT_NE(above[0]->text.find("faster than the link facts say"), std::string::npos);
}

TEST(PeerAnalysis, UnknownLinkHasNoFraction) {
  ProbeResult r;
  r.rows = {row(0, 1, "staged", 64 << 20, 20.0, 0.0, "nvml")};
  peer::analyse(r);
  const auto paths = all_of(r, "peer_path");
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_FALSE(optional_value_of(*paths[0], "fraction_of_raw").has_value());
  EXPECT_TRUE(r.rows[0].derived.empty());
  EXPECT_TRUE(all_of(r, "peer_above_model").empty());
  EXPECT_TRUE(all_of(r, "peer_link_assumed").empty());  // link facts from NVML: no note
  phrase_findings(r, words());
  EXPECT_NE(paths[0]->text.find("no raw limit known"), std::string::npos) << paths[0]->text;
}

// sm-latency rows: no peer_path (their bandwidth is one pointer per load), a peer_chase per pair
// with the time per load at the smallest and the largest chain.
TEST(PeerAnalysis, ChaseLatencyPerPair) {
  ProbeResult r;
  using Chain = std::pair<std::int64_t, double>;  // bytes, seconds per load
  for (const auto& [bytes, seconds] :
       {Chain{4096, 830e-9}, Chain{std::int64_t{1} << 28, 1400e-9}, Chain{1 << 20, 900e-9}}) {
    Row chase = row(0, 1, "sm-latency", bytes, 0.01, 0.0);
    chase.metrics.push_back(metric("access_latency", "s", seconds));
    r.rows.push_back(chase);
  }
  r.rows.push_back(row(0, 1, "ce", 4096, 2.0, 63.0));
  peer::analyse(r);
  const auto paths = all_of(r, "peer_path");
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(param_text_of(*paths[0], "mode"), "ce");
  const auto chases = all_of(r, "peer_chase");
  ASSERT_EQ(chases.size(), 1u);
  EXPECT_DOUBLE_EQ(value_of(*chases[0], "latency"), 830e-9);
  EXPECT_DOUBLE_EQ(value_of(*chases[0], "latency_bytes"), 4096.0);
  EXPECT_DOUBLE_EQ(value_of(*chases[0], "latency_largest"), 1400e-9);
  EXPECT_DOUBLE_EQ(value_of(*chases[0], "largest_bytes"), static_cast<double>(1 << 28));
  phrase_findings(r, words());
  EXPECT_NE(chases[0]->text.find("GPU 1 reading GPU 0's memory"), std::string::npos)
      << chases[0]->text;
}

TEST(PeerAnalysis, NoRowsNoFindings) {
  ProbeResult r;
  peer::analyse(r);
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace gpuprobe
