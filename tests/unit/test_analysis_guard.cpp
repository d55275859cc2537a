// Unit tests of analysis_guard: an analysis or phrasing error marks the result failed with a
// reason naming the finding, and keeps the measured rows and the findings made before it.
#include "gpuprobe/core/analysis_guard.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>
#include <string>

#include "gpuprobe/core/interrupt.hpp"

namespace gpuprobe {
namespace {

ProbeResult measured_result() {
  ProbeResult r;
  r.probe = "transfer";
  r.status = Status::kOk;
  for (int i = 0; i < 3; ++i) {
    Row row;
    row.params = {{"bytes", std::int64_t{4096 << i}, "B"}};
    r.rows.push_back(row);
  }
  return r;
}

TEST(AnalysisGuard, AnAnalysisErrorKeepsTheRowsAndNamesTheFinding) {
  ProbeResult r = measured_result();
  analyse_keeping_rows(r, [&] {
    r.findings.push_back(note("made_first", {}, {}));
    Finding bad = note("transfer_fit", {}, {});
    (void)value_of(bad, "latency");  // a key the finding lacks: the analysis's bug
  });
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_EQ(r.rows.size(), 3u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "made_first");
  EXPECT_EQ(r.reason, "analysis failed: finding 'transfer_fit' has no value 'latency'");
}

TEST(AnalysisGuard, AnAnalysisWithoutErrorChangesNothing) {
  ProbeResult r = measured_result();
  analyse_keeping_rows(r, [&] { r.findings.push_back(note("fine", {}, {})); });
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.reason.empty());
  EXPECT_EQ(r.findings.size(), 1u);
}

TEST(AnalysisGuard, AStopBySignalStillStopsTheRun) {
  ProbeResult r = measured_result();
  EXPECT_THROW(analyse_keeping_rows(r, [] { throw InterruptedError(SIGINT); }), InterruptedError);
}

TEST(AnalysisGuard, APhrasingErrorKeepsTheRowsAndTheSentencesBeforeIt) {
  Glossary g;
  g.add_phrasing("first", [](const Finding&) { return std::string("a sentence"); });
  g.add_phrasing("second", [](const Finding& f) { return param_text_of(f, "memory"); });
  ProbeResult r = measured_result();
  r.findings = {note("first", {}, {}), note("second", {}, {})};
  phrase_keeping_rows(r, g);
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.findings[0].text, "a sentence");
  EXPECT_EQ(r.reason, "phrasing failed: finding 'second' has no param 'memory'");
}

}  // namespace
}  // namespace gpuprobe
