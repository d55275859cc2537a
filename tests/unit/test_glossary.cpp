// Unit tests for the glossary: one phrasing per finding id, the generic sentence for unknown ids,
// terms per probe, and phrasing findings in place.
#include "gpuprobe/core/glossary.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpuprobe {
namespace {

TEST(Glossary, OnePhrasingPerIdAcrossTheTool) {
  Glossary g;
  g.add_phrasing("x_ratio", [](const Finding& f) { return "ratio " + value_text(f, "ratio"); });
  EXPECT_THROW(g.add_phrasing("x_ratio", [](const Finding&) { return std::string(); }),
               std::logic_error);
  Glossary other;
  other.add_phrasing("x_ratio", [](const Finding&) { return std::string(); });
  EXPECT_THROW(g.merge(other), std::logic_error);
}

TEST(Glossary, PhrasesFromValuesAndKeepsTextAlreadySet) {
  Glossary g;
  g.add_phrasing("x_ratio", [](const Finding& f) {
    return param_text_of(f, "bytes") + ": " + value_text(f, "ratio") + ", " +
           value_text(f, "bandwidth") + ", " + value_text(f, "latency");
  });
  ProbeResult r;
  r.findings = {
      verdict("x_ratio", {{"bytes", std::int64_t{67108864}, "B"}},
              {{"ratio", "x", 7.8412}, {"bandwidth", "GB/s", 54.05}, {"latency", "s", 2.65e-6}}),
      {"x_ratio", FindingKind::kVerdict, {}, {}, "kept as read", {}}};
  phrase_findings(r, g);
  EXPECT_EQ(r.findings[0].text, "64 MiB: 7.84x, 54.05 GB/s, 2.65 us");
  EXPECT_EQ(r.findings[1].text, "kept as read");
}

TEST(Glossary, UnknownIdsGetAGenericSentenceWithEveryNumber) {
  const Finding f = note("from_a_newer_build", {{"direction", std::string("h2d"), ""}},
                         {{"ratio", "x", 2.0}, {"missing", "GB/s", std::nullopt}});
  EXPECT_EQ(Glossary{}.text(f), "from_a_newer_build: direction h2d, ratio 2x, missing n/a");
}

TEST(Glossary, MissingValuesAreProgrammingErrorsNamingTheFinding) {
  const Finding f = note("x", {}, {{"ratio", "x", std::nullopt}});
  EXPECT_THROW(value_of(f, "ratio"), std::out_of_range);
  EXPECT_THROW(value_of(f, "absent"), std::out_of_range);
  EXPECT_THROW(param_text_of(f, "absent"), std::out_of_range);
  EXPECT_FALSE(optional_value_of(f, "ratio").has_value());
}

TEST(Glossary, TermsArePerProbeWithCommonFallbackAndCompareUsesTheProbes) {
  Glossary g;
  g.add_term("", "bandwidth", {"GB/s", "bandwidth"});
  g.add_term("transfer", "fit_bandwidth", {"fit", "fit"});
  EXPECT_EQ(g.term("transfer", "fit_bandwidth")->label, "fit");
  EXPECT_EQ(g.term("compare transfer", "fit_bandwidth")->label, "fit");
  EXPECT_EQ(g.term("coalescing", "fit_bandwidth"), nullptr);
  EXPECT_EQ(g.term("coalescing", "bandwidth")->label, "GB/s");
}

TEST(Glossary, CoreWarnsOfALowClockWithTheNumbers) {
  ProbeResult r;
  r.findings = {warning("sm_clock_low", {},
                        {{"sm_clock_before", "MHz", 1005.0},
                         {"sm_clock_after", "MHz", 1400.0},
                         {"sm_clock_max", "MHz", 1980.0}})};
  phrase_findings(r, core_glossary());
  EXPECT_EQ(r.findings[0].text.rfind("SM clock measured at 1005 MHz/1400 MHz (before/after), "
                                     "under 80% of the 1980 MHz maximum",
                                     0),
            0u)
      << r.findings[0].text;
}

}  // namespace
}  // namespace gpuprobe

namespace gpuprobe {
namespace {

// One order for every probe: verdicts, warnings, notes; within a kind, as the analysis made them.
TEST(OrderFindings, VerdictsThenWarningsThenNotesEachInItsOwnOrder) {
  std::vector<Finding> f = {note("n1", {}, {}), warning("w1", {}, {}), verdict("v1", {}, {}),
                            note("n2", {}, {}), verdict("v2", {}, {}), warning("w2", {}, {})};
  order_findings(f);
  std::vector<std::string> ids;
  for (const auto& x : f)
    ids.push_back(x.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"v1", "v2", "w1", "w2", "n1", "n2"}));
}

}  // namespace
}  // namespace gpuprobe
