// Unit tests for the renderers' layout: short labels and legends, the generic abbreviation,
// wrapping of prose, findings in tables and Markdown, CSV with finding values.
#include "core/render_layout.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/render.hpp"

namespace gpuprobe {
namespace {

using render_detail::abbreviate;
using render_detail::column_header;
using render_detail::ColumnKind;
using render_detail::display_width;
using render_detail::Naming;
using render_detail::wrap_items;
using render_detail::wrap_text;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string words_joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& line : lines) {
    std::stringstream in(line);
    for (std::string w; in >> w;)
      all += (all.empty() ? "" : " ") + w;
  }
  return all;
}

// ---- labels -------------------------------------------------------------------------------

TEST(RenderLayout, AnIntervalPairIsOneColumnUnlessWide) {
  Row with{{{"metric", std::string("bandwidth"), ""}},
           {},
           {{"ratio", "x", 0.9}, {"ci_low", "x", 0.8812}, {"ci_high", "x", 0.92134}},
           {},
           std::nullopt,
           {}};
  Row without = with;
  without.derived[1].value = std::nullopt;
  without.derived[2].value = std::nullopt;
  const auto compact = render_detail::layout_rows({with, without});
  ASSERT_EQ(compact.size(), 1u);
  ASSERT_EQ(compact[0].columns.size(), 3u);  // metric, ratio, ci
  EXPECT_EQ(compact[0].columns[2].header, "ci [x]");
  EXPECT_EQ(compact[0].columns[2].cells, (std::vector<std::string>{"0.8812–0.9213", "-"}));
  const auto wide = render_detail::layout_rows({with, without}, Naming{nullptr, "", true});
  ASSERT_EQ(wide[0].columns.size(), 4u);
  EXPECT_EQ(wide[0].columns[2].header, "ci_low [x]");
  EXPECT_EQ(wide[0].columns[3].cells, (std::vector<std::string>{"0.9213", "-"}));
}

TEST(RenderLayout, AbbreviatesLongNamesOnly) {
  EXPECT_EQ(abbreviate("sectors_per_request"), "sect/req");
  EXPECT_EQ(abbreviate("predicted_relative_bandwidth_dram"), "pred_rel_bw_dram");
  EXPECT_EQ(abbreviate("model_misaligned_relative"), "m.misal_rel");
  EXPECT_EQ(abbreviate("working_set_over_l2"), "work_set/l2");
  EXPECT_EQ(abbreviate("bandwidth_h2d"), "bw_h2d");
  EXPECT_EQ(abbreviate("stride1_cycles_per_request"), "stride1_cyc/req");
  // Unknown words over 10 letters are cut; names of up to 10 characters stay.
  EXPECT_EQ(abbreviate("interleaving_depth"), "inter_depth");
  for (const char* same : {"memory", "direction", "comparison", "latency", "worst_at", "a"})
    EXPECT_EQ(abbreviate(same), same);
  EXPECT_EQ(abbreviate("throughput_max"), "thru_max");
  EXPECT_EQ(abbreviate("first_second"), "first_second");  // nothing to shorten
}

TEST(RenderLayout, TermGivesLabelAndLegend) {
  Glossary g;
  g.add_term("coalescing", "model.sectors_per_request",
             {"sect/req", "model: distinct 32-B sectors one warp load touches"});
  g.add_term("", "bandwidth", {"GB/s", "bandwidth, median"});
  const Naming naming{&g, "coalescing", false};
  const auto model = column_header(naming, ColumnKind::kModel, "sectors_per_request", "sectors");
  EXPECT_EQ(model.text, "m.sect/req");
  EXPECT_EQ(model.legend,
            "m.sect/req = model: distinct 32-B sectors one warp load touches [sectors]");
  // The label shows the unit: no "[GB/s]" in the legend.
  const auto bw = column_header(naming, ColumnKind::kMetric, "bandwidth", "GB/s");
  EXPECT_EQ(bw.text, "GB/s");
  EXPECT_EQ(bw.legend, "GB/s = bandwidth, median");
  // A model column borrowing a measured quantity's term says it is the model's.
  const auto model_bw = column_header(naming, ColumnKind::kModel, "bandwidth", "GB/s");
  EXPECT_EQ(model_bw.text, "m.GB/s");
  EXPECT_EQ(model_bw.legend, "m.GB/s = model: bandwidth, median");
  // Other probes do not see coalescing's terms (but "compare coalescing" does).
  const Naming other{&g, "transfer", false};
  EXPECT_EQ(column_header(other, ColumnKind::kModel, "sectors_per_request", "sectors").text,
            "m.sect/req");  // generic rule, same result here
  EXPECT_EQ(column_header(other, ColumnKind::kModel, "sectors_per_request", "sectors").legend,
            "m.sect/req = model sectors_per_request [sectors]");
  const Naming compare{&g, "compare coalescing", false};
  EXPECT_EQ(column_header(compare, ColumnKind::kModel, "sectors_per_request", "sectors").legend,
            model.legend);
}

TEST(RenderLayout, QualifiedTermBeatsPlainOne) {
  Glossary g;
  g.add_term("transfer", "fit_bandwidth", {"fit GB/s", "asymptotic bandwidth of the fit"});
  g.add_term("transfer", "model.fit_bandwidth", {"fit", "model: the fit at this size"});
  const Naming naming{&g, "transfer", false};
  EXPECT_EQ(column_header(naming, ColumnKind::kModel, "fit_bandwidth", "GB/s").text, "m.fit");
  EXPECT_EQ(column_header(naming, ColumnKind::kSummary, "fit_bandwidth", "GB/s").text, "fit GB/s");
}

TEST(RenderLayout, FallbackAndFullNames) {
  const Naming naming{nullptr, "p", false};
  // Short names keep today's header and need no legend.
  const auto ratio = column_header(naming, ColumnKind::kSummary, "ratio", "x");
  EXPECT_EQ(ratio.text, "ratio [x]");
  EXPECT_TRUE(ratio.legend.empty());
  const auto bytes = column_header(naming, ColumnKind::kParam, "bytes", "B");
  EXPECT_EQ(bytes.text, "bytes");
  EXPECT_TRUE(bytes.legend.empty());
  // Long names get the generic abbreviation, listed in the legend with their unit.
  const auto rel = column_header(naming, ColumnKind::kDerived, "relative_bandwidth", "x");
  EXPECT_EQ(rel.text, "rel_bw");
  EXPECT_EQ(rel.legend, "rel_bw = relative_bandwidth [x]");
  const auto model = column_header(naming, ColumnKind::kModel, "ratio", "x");
  EXPECT_EQ(model.text, "m.ratio");
  EXPECT_EQ(model.legend, "m.ratio = model ratio [x]");
  const auto counter = column_header(naming, ColumnKind::kCounter, "l2_hit_rate", "%");
  EXPECT_EQ(counter.text, "c.l2_hit_rate");
  EXPECT_EQ(counter.legend, "c.l2_hit_rate = counter l2_hit_rate [%]");
  // Times and sizes carry their unit in the cells: no "[s]" anywhere.
  const auto lat = column_header(naming, ColumnKind::kSummary, "startup_latency", "s");
  EXPECT_EQ(lat.text, "startup_lat");
  EXPECT_EQ(lat.legend, "startup_lat = startup_latency");
}

TEST(RenderLayout, WideNamingIsTheFullName) {
  Glossary g = core_glossary();
  const Naming wide{&g, "transfer", true};
  EXPECT_EQ(column_header(wide, ColumnKind::kModel, "fit_bandwidth", "GB/s").text,
            "model fit_bandwidth [GB/s]");
  EXPECT_EQ(column_header(wide, ColumnKind::kMetric, "bandwidth", "GB/s").text, "bandwidth [GB/s]");
  EXPECT_EQ(column_header(wide, ColumnKind::kCounter, "hits", "").text, "counter hits");
  EXPECT_TRUE(column_header(wide, ColumnKind::kMetric, "bandwidth", "GB/s").legend.empty());
}

// ---- wrapping -----------------------------------------------------------------------------

TEST(RenderLayout, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(display_width("pinned ÷ pageable"), 17u);
  EXPECT_EQ(display_width("a · b — c"), 9u);
  EXPECT_EQ(display_width(""), 0u);
}

TEST(RenderLayout, WrapTextHangsUnderTheFirstWord) {
  const std::string text =
      "one grid-stride copy kernel per (pattern, element width): SMs x resident blocks of 256 "
      "threads, lane l of a warp copies element 32k+l — four elements in flight per thread";
  const auto lines = wrap_text("  method: ", text, 40, 10);
  ASSERT_GT(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("  method: one grid-stride", 0), 0u) << lines[0];
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(display_width(lines[i]), 40u) << lines[i];
    EXPECT_NE(lines[i].back(), ' ') << lines[i];
    if (i > 0) {
      EXPECT_EQ(lines[i].rfind(std::string(10, ' '), 0), 0u) << lines[i];
      EXPECT_NE(lines[i][10], ' ') << lines[i];
    }
  }
  // Nothing is cut: the words are all there, in order.
  EXPECT_EQ(words_joined(lines), "method: " + text);
}

TEST(RenderLayout, WrapTextCutsOnlyWordsWiderThanALine) {
  const auto lines = wrap_text("  note: ", "x " + std::string(50, 'y') + " z", 20, 8);
  for (const auto& line : lines)
    EXPECT_LE(display_width(line), 20u) << line;
  // The long word goes to its own lines (8 blanks + 12 letters each), "z" after its end.
  EXPECT_EQ(lines, (std::vector<std::string>{"  note: x", "        " + std::string(12, 'y'),
                                             "        " + std::string(12, 'y'),
                                             "        " + std::string(12, 'y'),
                                             "        " + std::string(12, 'y'), "        yy z"}));
}

TEST(RenderLayout, WrapItemsBreaksBetweenItems) {
  const std::vector<std::string> items{"sm_clock_before 1980 MHz", "sm_clock_after 1980 MHz",
                                       "working_set_over_l2 8 x", "memory_cap 19.7 GiB"};
  // The first line is 64 characters and 65 bytes ("·" is two): it fits a limit of 65 ...
  const auto lines = wrap_items("  conditions: ", items, " · ", 65, 4);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "  conditions: sm_clock_before 1980 MHz · sm_clock_after 1980 MHz",
                       "    working_set_over_l2 8 x · memory_cap 19.7 GiB"}));
  // ... but not one of 64: the limit counts bytes, so byte-counting tools agree with it.
  const auto narrow = wrap_items("  conditions: ", items, " · ", 64, 4);
  EXPECT_EQ(narrow.front(), "  conditions: sm_clock_before 1980 MHz");
  for (const auto& line : narrow)
    EXPECT_LE(line.size(), 64u) << line;
}

// ---- sections and legends -----------------------------------------------------------------

Metric metric(const std::string& name, const std::string& unit, double median) {
  Statistics s;
  s.median = median;
  s.min = s.max = s.mean = median;
  s.n = 3;
  return {name, unit, s, {}};
}

// Two tables: the first has model sectors_per_request, the second a different model column.
RunReport two_table_report() {
  RunReport report;
  report.tool.version = "0.1.0";
  ProbeResult r;
  r.probe = "coalescing";
  r.device = 0;
  for (int offset : {0, 1}) {
    Row row;
    row.params = {{"offset", std::int64_t{offset}, ""}};
    row.metrics = {metric("bandwidth", "GB/s", 2600)};
    row.model = {{"sectors_per_request", "sectors", 4.0}};
    r.rows.push_back(row);
  }
  for (int stride : {1, 2}) {
    Row row;
    row.params = {{"stride", std::int64_t{stride}, ""}};
    row.metrics = {metric("bandwidth", "GB/s", 2600.0 / stride)};
    row.model = {{"predicted_relative_bandwidth", "x", 1.0 / stride}};
    r.rows.push_back(row);
  }
  report.results = {r};
  return report;
}

// The lines under each rule of dashes up to the blank line: the header above, rows and legend.
struct Block {
  std::string header;
  std::vector<std::string> legend;  // lines with " = "
};

std::vector<Block> blocks_of(const std::string& table) {
  const auto lines = lines_of(table);
  std::vector<Block> blocks;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].find("--") == std::string::npos ||
        lines[i].find_first_not_of(" -") != std::string::npos)
      continue;
    Block b{lines[i - 1], {}};
    for (std::size_t k = i + 1; k < lines.size() && !lines[k].empty(); ++k) {
      if (lines[k].find(" = ") != std::string::npos) b.legend.push_back(lines[k]);
    }
    blocks.push_back(b);
  }
  return blocks;
}

TEST(RenderLayout, LegendOnlyForShownColumns) {
  Glossary g = core_glossary();
  g.add_term("coalescing", "model.sectors_per_request", {"sect/req", "model: sectors touched"});
  const auto blocks = blocks_of(render_table(two_table_report(), TableStyle{}, g));
  ASSERT_EQ(blocks.size(), 2u);
  ASSERT_EQ(blocks[0].legend.size(), 1u);
  EXPECT_EQ(blocks[0].legend[0],
            "  GB/s = bandwidth, median of the samples; GB/s = 1e9 B/s · m.sect/req = model: "
            "sectors touched [sectors]");
  // The second table explains its own model column, not the first's, and not GB/s again.
  ASSERT_EQ(blocks[1].legend.size(), 1u);
  EXPECT_EQ(blocks[1].legend[0], "  m.pred_rel_bw = model predicted_relative_bandwidth [x]");
  EXPECT_NE(blocks[1].header.find("m.pred_rel_bw"), std::string::npos) << blocks[1].header;
}

TEST(RenderLayout, WideTableHasFullNamesAndNoLegend) {
  TableStyle style;
  style.wide = true;
  const auto blocks = blocks_of(render_table(two_table_report(), style, core_glossary()));
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_NE(blocks[0].header.find("model sectors_per_request [sectors]"), std::string::npos);
  EXPECT_NE(blocks[1].header.find("model predicted_relative_bandwidth [x]"), std::string::npos);
  EXPECT_TRUE(blocks[0].legend.empty());
  EXPECT_TRUE(blocks[1].legend.empty());
}

TEST(RenderLayout, MarkdownUsesLabelsAndLegend) {
  const std::string md = render_markdown(two_table_report(), core_glossary());
  EXPECT_NE(md.find("| offset | GB/s | noise | m.sect/req |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\n`GB/s` bandwidth, median of the samples; GB/s = 1e9 B/s · `m.sect/req` "
                    "model sectors_per_request [sectors]\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\n`m.pred_rel_bw` model predicted_relative_bandwidth [x]\n"),
            std::string::npos)
      << md;
  MarkdownStyle wide;
  wide.wide = true;
  const std::string full = render_markdown(two_table_report(), core_glossary(), wide);
  EXPECT_NE(full.find("| offset | bandwidth [GB/s] | noise | model sectors_per_request "
                      "[sectors] |\n"),
            std::string::npos)
      << full;
  EXPECT_EQ(full.find('`'), std::string::npos) << full;
}

// ---- findings -----------------------------------------------------------------------------

RunReport findings_report() {
  RunReport report;
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  const std::string long_text(30, 'w');
  r.findings = {
      {"v", FindingKind::kVerdict, {}, {}, "pinned is 7.84x pageable (measured)", {}},
      {"w", FindingKind::kWarning, {}, {}, "SM clock low", {}},
      {"n", FindingKind::kNote, {}, {}, "link: PCIe gen 5 x16", {}},
      {"long",
       FindingKind::kNote,
       {},
       {},
       "a note that goes on " + std::string(200, '.') + " and on, to be wrapped",
       {}},
  };
  report.results = {r};
  return report;
}

TEST(RenderLayout, FindingsInTheTable) {
  TableStyle style;
  style.header = false;
  const auto lines = lines_of(render_table(findings_report(), style));
  const std::vector<std::string> expected{
      "", "== transfer · GPU 0 · ok", "  => pinned is 7.84x pageable (measured)",
      "  warning: SM clock low", "  note: link: PCIe gen 5 x16"};
  ASSERT_GT(lines.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + 5), expected);
  // The long note: cut at 120 columns (its 200 dots form one word), continued under its text.
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[5], "  note: a note that goes on");
  EXPECT_EQ(display_width(lines[6]), 120u);
  EXPECT_EQ(lines[6].rfind("        .", 0), 0u) << lines[6];
  EXPECT_EQ(lines[7].rfind("        .", 0), 0u) << lines[7];
  EXPECT_NE(lines[7].find(" and on, to be wrapped"), std::string::npos) << lines[7];
}

TEST(RenderLayout, VerdictsBoldOnATerminal) {
  TableStyle style;
  style.header = false;
  style.color = true;
  const std::string table = render_table(findings_report(), style);
  EXPECT_NE(table.find("\x1b[1m  => pinned is 7.84x pageable (measured)\x1b[0m\n"),
            std::string::npos)
      << table;
}

TEST(RenderLayout, FindingsInMarkdown) {
  const std::string md = render_markdown(findings_report(), core_glossary());
  EXPECT_NE(md.find("- **pinned is 7.84x pageable (measured)**\n- Warning: SM clock low\n"
                    "- Note: link: PCIe gen 5 x16\n"),
            std::string::npos)
      << md;
}

// ---- CSV with finding values --------------------------------------------------------------

TEST(RenderLayout, CsvFindingValuesStayRectangular) {
  RunReport report;
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  Row row;
  row.params = {{"memory", std::string("pinned"), ""}, {"bytes", std::int64_t{4096}, "B"}};
  row.metrics = {metric("bandwidth", "GB/s", 5.0)};
  r.rows = {row};
  r.findings = {verdict("pinned_vs_pageable", {{"memory", std::string("pinned"), ""}},
                        {{"ratio", "x", 7.84}, {"pinned_bandwidth", "GB/s", 54.0}}),
                note("link", {}, {{"limit", "GB/s", std::nullopt}})};
  r.findings[0].text = "pinned is 7.84x pageable";
  r.findings[1].text = "link, \"PCIe\"";
  report.results = {r};
  const std::string csv = render_csv(report);
  const auto lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 4u) << csv;
  EXPECT_EQ(lines[0],
            "device,probe,status,memory,bytes,bandwidth.median[GB/s],bandwidth.min[GB/s],"
            "bandwidth.max[GB/s],bandwidth.mean[GB/s],bandwidth.stdev[GB/s],bandwidth.rel_noise,"
            "bandwidth.n,finding,finding_kind,finding.ratio[x],finding.pinned_bandwidth[GB/s],"
            "finding.limit[GB/s],finding_text");
  EXPECT_EQ(lines[2],
            "0,transfer,ok,pinned,,,,,,,,,pinned_vs_pageable,verdict,7.84,54,,"
            "pinned is 7.84x pageable");
  EXPECT_EQ(lines[3], "0,transfer,ok,,,,,,,,,,link,note,,,,\"link, \"\"PCIe\"\"\"");
}

// A section's heading names what the result is about: one GPU, the GPUs a host-scoped probe
// spanned, or a plan (with the GPUs it was planned for when --device named several).
TEST(RenderLayout, HeadingNamesTheGpuOrTheGpusSpannedOrThePlan) {
  RunReport report;
  DeviceInfo d;
  d.index = 1;
  d.name = "NVIDIA H200";
  report.devices.push_back(d);
  ProbeResult r;
  r.probe = "peer";
  EXPECT_EQ(render_detail::device_label(report, r), "plan (no GPU used)");
  r.device = 1;
  EXPECT_EQ(render_detail::device_label(report, r), "GPU 1: NVIDIA H200");
  r.devices = {1, 0};
  EXPECT_EQ(render_detail::device_label(report, r), "GPUs 1, 0");
  r.status = Status::kPlanned;
  EXPECT_EQ(render_detail::device_label(report, r), "plan across GPUs 1, 0 (no GPU used)");
  r.devices.clear();
  EXPECT_EQ(render_detail::device_label(report, r), "plan for GPU 1 (no GPU used)");
}

}  // namespace
}  // namespace gpuprobe
