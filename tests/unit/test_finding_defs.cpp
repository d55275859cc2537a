// Unit tests for finding definitions: every finding of every probe, compare, fleet and core is
// built and phrased from its declaration, and the JSON a definition makes is the one declared.
#include "gpuprobe/core/finding_def.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "bank_conflicts/analysis.hpp"
#include "cache/analysis.hpp"
#include "coalescing/analysis.hpp"
#include "constant/analysis.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/fleet.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "host_links/analysis.hpp"
#include "l2_persist/analysis.hpp"
#include "latency/analysis.hpp"
#include "local/analysis.hpp"
#include "occupancy/analysis.hpp"
#include "overlap/analysis.hpp"
#include "partitions/analysis.hpp"
#include "peer/analysis.hpp"
#include "transfer/analysis.hpp"
#include "zerocopy/analysis.hpp"

namespace gpuprobe {
namespace {

// The glossary the tool uses: core's (with compare's and fleet's) and every probe's.
Glossary every_glossary() {
  Glossary g = core_glossary();
  transfer::add_words(g);
  coalescing::add_words(g);
  constant::add_words(g);
  bank::add_words(g);
  overlap::add_words(g);
  zerocopy::add_words(g);
  l2_persist::add_words(g);
  cache::add_words(g);
  peer::add_words(g);
  host_links::add_words(g);
  latency::add_words(g);
  local::add_words(g);
  occupancy::add_words(g);
  partitions::add_words(g);
  return g;
}

TEST(FindingDefs, EveryDefinedFindingIsBuiltAndPhrasedFromItsDeclaration) {
  const Glossary g = every_glossary();
  std::set<std::string> seen;
  for (const FindingSpec& spec : g.definitions()) {
    SCOPED_TRACE(spec.id);
    EXPECT_TRUE(seen.insert(spec.id).second) << "defined twice";
    const Finding f = spec.example();
    std::string text;
    EXPECT_NO_THROW(text = g.text(f));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(text.rfind(spec.id + ":", 0), 0u) << "phrased by the generic sentence: " << text;
  }
  // Every probe, compare and fleet hand their definitions over (add_words): none is left out.
  for (const char* prefix :
       {"transfer_", "coalescing_", "constant_", "bank_", "overlap_", "zerocopy_", "l2_persist_",
        "cache_", "peer_", "host_links_", "latency_", "local_", "occupancy_", "partitions_",
        "compare_", "fleet_"}) {
    EXPECT_TRUE(
        std::ranges::any_of(seen, [&](const std::string& id) { return id.starts_with(prefix); }))
        << "no definition of " << prefix << "*";
  }
}

// Every sentence of a glossary comes from a definition: none registered beside (add_phrasing).
void expect_only_definitions(const Glossary& g) {
  std::vector<std::string> defined;
  for (const FindingSpec& spec : g.definitions())
    defined.push_back(spec.id);
  std::sort(defined.begin(), defined.end());
  EXPECT_EQ(g.ids(), defined);
}

TEST(FindingDefs, EverySentenceOfTheToolComesFromADefinition) {
  expect_only_definitions(every_glossary());
  expect_only_definitions(compare_glossary());
  expect_only_definitions(fleet_glossary());
}

constexpr Text<"direction"> kDirection;
constexpr Size<"bytes"> kBytes;
constexpr Maybe<Flag<"during_run">> kDuringRun;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"latency", "s"> kLatency;
constexpr Each<"loss_gpu", "%"> kLossGpu;
constexpr Int<"worst_gpu"> kWorstGpu;

FindingList test_findings;
const auto kExample = test_findings.verdict(
    "x_example", params(kDirection, kBytes, kDuringRun), values(kRatio, kLatency, kLossGpu),
    outcome(kWorstGpu), [](const auto& f) {
      std::string each;
      for (const auto& [gpu, loss] : f.items(kLossGpu))
        each += " gpu" + gpu + "=" + (loss ? std::to_string(static_cast<int>(*loss)) : "n/a");
      return f[kDirection] + " " + f[kBytes] + (f.has(kDuringRun) ? " (run)" : "") + ": " +
             f[kRatio] + ", " + f[kLatency] + ", worst " + f[kWorstGpu] + each;
    });

const auto kFixed = test_findings.note("x_fixed", "a sentence that reads no field");

TEST(FindingDefs, AFixedNoteIsANoteOfItsSentenceAndNoFields) {
  const Finding f = kFixed.make();
  EXPECT_EQ(f.id, "x_fixed");
  EXPECT_EQ(f.kind, FindingKind::kNote);
  EXPECT_TRUE(f.params.empty() && f.values.empty() && f.outcome.empty());
  EXPECT_EQ(kFixed.phrase(f), "a sentence that reads no field");
  const auto& specs = test_findings.specs();
  ASSERT_EQ(specs.size(), 2u);  // kExample's, then the fixed note's
  EXPECT_EQ(specs[1].id, "x_fixed");
  EXPECT_EQ(specs[1].kind, FindingKind::kNote);
  EXPECT_EQ(specs[1].phrase(specs[1].example()), "a sentence that reads no field");
}

TEST(FindingDefs, SizeWordsReadsABytesParamWithOrWithoutItsUnit) {
  EXPECT_EQ(size_words({"bytes", std::int64_t{65536}, "B"}), "64 KiB");
  EXPECT_EQ(size_words({"bytes", std::int64_t{65536}, ""}), "64 KiB");  // read back from JSON
  EXPECT_EQ(size_words({"bytes", 1048576.0, ""}), "1 MiB");
  EXPECT_EQ(size_words({"mode", std::string("chase"), ""}), "chase");
  EXPECT_EQ(byte_words("16 B"), "16 B");
  EXPECT_EQ(byte_words("16"), "16 B");  // a width read back from JSON
}

TEST(FindingDefs, MakeWritesTheDeclaredOrderWhateverTheOrderGiven) {
  const Finding f = kExample.make(
      kWorstGpu(3), kLatency(2.65e-6), kLossGpu({{"0", 12.0}, {"3", std::nullopt}}),
      kRatio(std::nullopt), kBytes(67108864), kDirection("h2d"), kDuringRun(std::nullopt));
  EXPECT_EQ(f.kind, FindingKind::kVerdict);
  ASSERT_EQ(f.params.size(), 2u);  // the absent Maybe field is left out
  EXPECT_EQ(f.params[0].key, "direction");
  EXPECT_EQ(f.params[1].key, "bytes");
  EXPECT_EQ(f.params[1].unit, "B");
  ASSERT_EQ(f.values.size(), 4u);
  EXPECT_EQ(f.values[0].name, "ratio");
  EXPECT_EQ(f.values[0].unit, "x");
  EXPECT_FALSE(f.values[0].value.has_value());
  EXPECT_EQ(f.values[2].name, "loss_gpu0");
  EXPECT_EQ(f.values[3].name, "loss_gpu3");
  ASSERT_EQ(f.outcome.size(), 1u);
  EXPECT_EQ(f.outcome[0].key, "worst_gpu");
  EXPECT_EQ(kExample.phrase(f), "h2d 64 MiB: n/a, 2.65 us, worst 3 gpu0=12 gpu3=n/a");
  const Finding run = kExample.make(kWorstGpu(3), kLatency(1e-6), kLossGpu({}), kRatio(2.0),
                                    kBytes(1024), kDirection("d2h"), kDuringRun(true));
  EXPECT_EQ(kExample.phrase(run), "d2h 1 KiB (run): 2x, 1 us, worst 3");
}

TEST(FindingDefs, MakeTakesATupleOfGivenFieldsAsItsFields) {
  const auto scope = std::tuple(kDirection("h2d"), kBytes(1024), kDuringRun(true));
  const Finding whole =
      kExample.make(kDirection("h2d"), kBytes(1024), kDuringRun(true), kRatio(2.0), kLatency(1e-6),
                    kLossGpu({{"1", 5.0}}), kWorstGpu(1));
  const Finding parts = kExample.make(kRatio(2.0), scope, kLatency(1e-6),
                                      std::tuple(kLossGpu({{"1", 5.0}}), kWorstGpu(1)));
  ASSERT_EQ(parts.params.size(), whole.params.size());
  for (std::size_t i = 0; i < whole.params.size(); ++i)
    EXPECT_EQ(parts.params[i].key, whole.params[i].key);
  ASSERT_EQ(parts.values.size(), whole.values.size());
  for (std::size_t i = 0; i < whole.values.size(); ++i)
    EXPECT_EQ(parts.values[i].name, whole.values[i].name);
  EXPECT_EQ(kExample.phrase(parts), "h2d 1 KiB (run): 2x, 1 us, worst 1 gpu1=5");
}

TEST(FindingDefs, AFindingReadFromAnOlderFileWithoutAFieldIsAnErrorNamingIt) {
  Finding f = kExample.example();
  f.values.erase(f.values.begin());
  try {
    kExample.phrase(f);
    FAIL() << "no error";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("'ratio'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuprobe
