// Compact tables on real H100 output (examples/results/h100/all.json): with the terms the probes
// ship (their analyses' add_words) no line of the table output is over 120 columns; --wide keeps
// the full column names.
#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bank_conflicts/analysis.hpp"
#include "coalescing/analysis.hpp"
#include "core/render_layout.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"
#include "transfer/analysis.hpp"

namespace gpuprobe {
namespace {

using render_detail::display_width;

std::string read_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string examples_file(const std::string& name) {
  return std::string(GPUPROBE_FIXTURES_DIR) + "/schema1/h100-" + name;
}

// The real report, with the byte units of its params that schema 1 files do not carry (a live
// run has them, and its tables show "64 MiB" where a file read back shows 67108864).
RunReport h100_report() {
  const std::string path = examples_file("all.json.gz");
  RunReport report = report_from_json(read_json_file(path), path);
  auto add_units = [](std::vector<Param>& params) {
    for (auto& p : params) {
      if (p.key == "bytes" || p.key == "element_bytes") p.unit = "B";
    }
  };
  for (auto& result : report.results) {
    for (auto& row : result.rows)
      add_units(row.params);
    for (auto& row : result.summary)
      add_units(row.params);
  }
  return report;
}

// The words gpuprobe ships: core's and every probe's (what make_glossary builds at run time).
Glossary h100_glossary() {
  Glossary g = core_glossary();
  transfer::add_words(g);
  coalescing::add_words(g);
  bank::add_words(g);
  return g;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string strip_ansi(const std::string& text) {
  static const std::regex ansi("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, ansi, "");
}

bool is_rule(const std::string& line) {
  return line.find("--") != std::string::npos && line.find_first_not_of(" -") == std::string::npos;
}

// The header line of every table: the line above each rule of dashes.
std::vector<std::string> table_headers(const std::vector<std::string>& lines) {
  std::vector<std::string> headers;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (is_rule(lines[i])) headers.push_back(lines[i - 1]);
  }
  return headers;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// Every line (tables, legends, headings, conditions, method, findings) fits in 120 terminal
// columns, with and without colour, and every result has its tables.
TEST(RenderCompact, H100ReportFits120Columns) {
  const RunReport report = h100_report();
  ASSERT_EQ(report.results.size(), 3u);
  for (bool color : {false, true}) {
    TableStyle style;
    style.color = color;
    const std::string table = strip_ansi(render_table(report, style, h100_glossary()));
    const auto lines = lines_of(table);
    EXPECT_EQ(table_headers(lines).size(), 15u);  // 8 + 1 transfer, 2 + 1 coalescing, 2 + 1
    for (const auto& line : lines) {
      EXPECT_LE(display_width(line), render_detail::kTextWidth)
          << "line of " << display_width(line) << " columns:\n"
          << line;
    }
  }
}

// Without the probes' terms (core's only) the generic abbreviations are not enough for the
// coalescing tables: they are split in blocks of at most 120 columns that repeat the params.
TEST(RenderCompact, H100ReportFitsWithoutProbeTerms) {
  const auto lines = lines_of(render_table(h100_report(), TableStyle{}, core_glossary()));
  for (const auto& line : lines) {
    EXPECT_LE(display_width(line), render_detail::kTextWidth)
        << "line of " << display_width(line) << " columns:\n"
        << line;
  }
  const auto headers = table_headers(lines);
  std::size_t split = 0;
  for (std::size_t i = 0; i + 1 < headers.size(); ++i) {
    // Both blocks of a split table start with its params (2 or 3); the second has no metric.
    const auto first = words(headers[i]);
    const auto second = words(headers[i + 1]);
    if (first[0] != "pattern" || first[1] != second[1]) continue;
    ++split;
    EXPECT_EQ(second[0], first[0]);
    EXPECT_EQ(std::find(second.begin(), second.end(), "GB/s"), second.end()) << headers[i + 1];
  }
  EXPECT_GE(split, 2u);  // the offsets and the strides table at least
}

// Each table's legend explains labels of that table only, and every short label of a table is
// explained under it or under an earlier table of the same result.
TEST(RenderCompact, H100LegendsExplainShownLabels) {
  const auto lines = lines_of(render_table(h100_report(), TableStyle{}, h100_glossary()));
  std::vector<std::string> explained;
  // Short labels of transfer's, coalescing's and bank-conflicts' tables; each must be shown.
  const std::vector<std::string> shorts = {"m.fit",     "h2d GB/s",   "fit GB/s",
                                           "m.sec/req", "m.DRAM rel", "ws/L2",
                                           "m.wf/req",  "s1 cyc",     "DRAM@w"};
  std::set<std::string> shown;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].rfind("== ", 0) == 0) explained.clear();
    if (!is_rule(lines[i])) continue;
    const std::string& header = lines[i - 1];
    std::size_t k = i + 1;
    while (k < lines.size() && !lines[k].empty() && lines[k].find(" = ") == std::string::npos)
      ++k;
    // "label = meaning · label = meaning" on each legend line: each label is in the header.
    static const std::regex entry(R"((?:^|· )\s*([^=·]+?) = )");
    for (; k < lines.size() && !lines[k].empty(); ++k) {
      const std::string& legend = lines[k];
      for (auto it = std::sregex_iterator(legend.begin(), legend.end(), entry);
           it != std::sregex_iterator(); ++it) {
        const std::string label = (*it)[1].str();
        EXPECT_NE(header.find(label), std::string::npos)
            << "legend label '" << label << "' is not in the header:\n"
            << header;
        explained.push_back(label);
      }
    }
    for (const std::string& label : shorts) {
      if (header.find(label) == std::string::npos) continue;
      shown.insert(label);
      EXPECT_NE(std::find(explained.begin(), explained.end(), label), explained.end())
          << label << " is not explained by the time of:\n"
          << header;
    }
  }
  EXPECT_EQ(shown.size(), shorts.size()) << "a label of the list is in no table's header";
}

// --wide shows what the tool showed before compact tables: every table header of the H100
// output in examples/results/h100/all.txt, word for word, and no legend.
TEST(RenderCompact, H100WideReproducesFullHeaders) {
  TableStyle style;
  style.wide = true;
  const auto wide = lines_of(render_table(h100_report(), style, h100_glossary()));
  const auto before = lines_of(read_file_text(examples_file("all.txt")));
  const auto expected = table_headers(before);
  const auto actual = table_headers(wide);
  ASSERT_EQ(expected.size(), 15u);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(words(actual[i]), words(expected[i])) << "table " << i;
  for (const auto& line : wide)
    EXPECT_EQ(line.find(" = m"), std::string::npos) << line;
  EXPECT_EQ(std::count_if(wide.begin(), wide.end(),
                          [](const std::string& l) { return l.rfind("  m.fit = ", 0) == 0; }),
            0);
}

TEST(RenderCompact, H100MarkdownTablesUseLabels) {
  const std::string md = render_markdown(h100_report(), h100_glossary());
  EXPECT_NE(md.find("| pattern | offset | width | GB/s | time | noise | rel | ws/L2 | DRAM bw | "
                    "m.sec/req | m.lin/req | m.sec eff | m.rel | m.DRAM rel |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`m.sec/req` model: distinct 32-B sectors one warp load touches [sectors]"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuprobe
