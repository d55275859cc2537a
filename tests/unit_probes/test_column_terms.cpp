// Every column of every probe's committed real runs gets a short header from its probe's terms
// in a compact table: none falls back to the generic abbreviation (whose legend only repeats the
// column's name), and no model column says "model" twice, as "m.m." or "m.model" (the renderer
// puts "m." before a model column's term, so a term's label never starts with it).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "core/render_layout.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

// Real runs that hold every probe's columns: the H100 gallery's default runs, a `check` run
// (every probe's quick sweep), and the two-GPU runs of peer and host-links.
const std::vector<std::string> kRuns = {"h100/check/run-14.json.gz",
                                        "h100/transfer.json.gz",
                                        "h100/coalescing.json.gz",
                                        "h100/bank-conflicts.json.gz",
                                        "h100/overlap.json.gz",
                                        "h100/zerocopy.json.gz",
                                        "h100/l2-persist.json.gz",
                                        "h100/cache.json.gz",
                                        "h100/host-links.json.gz",
                                        "h100/latency.json.gz",
                                        "h100/constant.json.gz",
                                        "h100/local.json.gz",
                                        "h100/occupancy.json.gz",
                                        "h100/partitions.json.gz",
                                        "h200-x2/reference-1/peer-bw-1.json.gz",
                                        "h200-x2/reference-1/peer-chase-1.json.gz",
                                        "h200-x2/reference-1/host-links-1.json.gz"};

// The legend of a column that has no term: "<label> = <name>" (the name bare, no words), with
// "model " or "counter " in front for those kinds, and the unit in brackets.
bool generic_legend(const std::string& legend) {
  static const std::regex kGeneric(R"(^.* = (model |counter )?[a-z0-9_.]+( \[.*\])?$)");
  return std::regex_match(legend, kGeneric);
}

// A model column ("m." in front) whose label says "model" again: "m.model", "m.DRAM mdl".
bool says_model_twice(const std::string& header) {
  return header.starts_with("m.") &&
         (header.find("model") != std::string::npos || header.find("mdl") != std::string::npos);
}

// "<probe> <where>: <header>" for each column whose header is wrong, in one run.
std::vector<std::string> bad_headers(const RunReport& report, const Glossary& glossary) {
  std::vector<std::string> bad;
  for (const ProbeResult& result : report.results) {
    const render_detail::Naming naming{&glossary, result.probe, false};
    std::vector<render_detail::Section> sections = render_detail::layout_rows(result.rows, naming);
    if (!result.summary.empty())
      sections.push_back(render_detail::layout_summary(result.summary, naming));
    for (const auto& section : sections) {
      for (const auto& column : section.columns) {
        if (column.header.starts_with("m.m.") || says_model_twice(column.header) ||
            generic_legend(column.legend))
          bad.push_back(result.probe + ": " + column.header + " (" + column.legend + ")");
      }
    }
  }
  return bad;
}

TEST(ColumnTerms, EveryColumnOfTheCommittedRunsHasItsProbesShortHeader) {
  const Glossary glossary = make_glossary(make_probes());
  std::size_t probes_seen = 0;
  for (const std::string& run : kRuns) {
    SCOPED_TRACE(run);
    const RunReport report = read_report_file(std::string(GPUPROBE_EXAMPLES_DIR) + "/" + run);
    ASSERT_FALSE(report.results.empty());
    probes_seen += report.results.size();
    for (const std::string& bad : bad_headers(report, glossary))
      ADD_FAILURE() << bad;
  }
  // run-14 holds the 14 probes (peer skipped on one GPU, without rows), each other run one.
  EXPECT_GE(probes_seen, 14u + kRuns.size() - 1);
}

TEST(ColumnTerms, TheCheckRecognisesAGenericAndADoubledHeader) {
  Glossary glossary;
  glossary.add_term("probe", "modelled_thing", {"m.thing", "model: a thing"});
  glossary.add_term("probe", "predicted_other_thing", {"model", "model: another thing"});
  Row row;
  row.derived.push_back({"bandwidth_of_something", "GB/s", 1.0});
  row.model.push_back({"modelled_thing", "x", 1.0});
  row.model.push_back({"predicted_other_thing", "x", 1.0});
  RunReport report;
  ProbeResult result;
  result.probe = "probe";
  result.rows.push_back(row);
  report.results.push_back(result);
  const std::vector<std::string> bad = bad_headers(report, glossary);
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_NE(bad[0].find("bw_of_something"), std::string::npos) << bad[0];
  EXPECT_NE(bad[1].find("m.m.thing"), std::string::npos) << bad[1];
  EXPECT_NE(bad[2].find("m.model"), std::string::npos) << bad[2];
}

}  // namespace
}  // namespace gpuprobe
