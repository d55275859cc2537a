// Unit tests for the renderers: golden files for JSON/CSV/Markdown/table, plus targeted checks.
#include "gpuprobe/core/render.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "golden.hpp"

namespace gpuprobe {
namespace {

// ---- the fixed report behind the golden files ---------------------------------------------

Metric metric(const std::string& name, const std::string& unit, double median, double min,
              double max, double mean, double stdev, double rel_noise, std::size_t n) {
  Statistics s;
  s.median = median;
  s.min = min;
  s.max = max;
  s.mean = mean;
  s.stdev = stdev;
  s.rel_noise = rel_noise;
  s.n = n;
  return {name, unit, s, {}};
}

std::vector<Param> transfer_params(const std::string& memory, const std::string& direction,
                                   std::int64_t bytes) {
  return {{"memory", memory, ""}, {"direction", direction, ""}, {"bytes", bytes, "B"}};
}

DeviceInfo h100() {
  DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-12345678-90ab-cdef-1234-567890abcdef";
  d.pci_bus_id = "00000000:1B:00.0";
  d.compute_capability = "9.0";
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
  d.total_memory_bytes = 85520809984ULL;
  d.l2_bytes = 52428800;
  d.persisting_l2_max_bytes = 32768000;
  d.access_policy_max_window_bytes = 134213632;
  d.shared_memory_per_sm_bytes = 233472;
  d.shared_memory_per_block_optin_bytes = 232448;
  d.async_engine_count = 3;
  d.can_map_host_memory = true;
  d.integrated = false;
  d.ecc_enabled = true;
  d.pcie_link_gts = 32;
  d.pcie_link_width = 16;
  d.peak_dram_estimate_gbps = 3352.32;
  return d;
}

ProbeResult transfer_result() {
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  r.status = Status::kOk;
  r.method = "cudaMemcpyAsync batches timed with events; GB/s = 1e9 B/s; bytes counted once";
  r.params = {{"sizes", std::string("4KiB:64MiB:x4"), ""},
              {"samples", std::int64_t{20}, ""},
              {"pinned", true, ""},
              {"max_noise", 0.02, ""}};

  Row small;
  small.params = transfer_params("pinned", "h2d", 4096);
  small.metrics = {
      metric("bandwidth", "GB/s", 5.2, 4.9, 5.5, 5.21, 0.12, 0.023, 20),
      metric("time", "s", 7.877e-07, 7.447e-07, 8.359e-07, 7.862e-07, 1.8e-08, 0.0229, 20)};
  small.model = {{"bandwidth", "GB/s", 5.6}};

  Row big;
  big.params = transfer_params("pinned", "h2d", 67108864);
  big.metrics = {metric("bandwidth", "GB/s", 54.1, 53.9, 54.3, 54.1, 0.1, 0.0018, 20),
                 metric("time", "s", 0.00124, 0.001236, 0.001245, 0.00124, 2.3e-06, 0.0019, 20)};
  big.model = {{"bandwidth", "GB/s", 55.0}};

  // A text parameter with a comma and quotes (CSV quoting), a missing model value and a flag.
  Row noisy;
  noisy.params = transfer_params("pinned, \"portable\"", "d2h", 67108864);
  noisy.metrics = {metric("bandwidth", "GB/s", 53.2, 40.1, 54.0, 51.7, 4.1, 0.0793, 37),
                   metric("time", "s", 0.00126, 0.001243, 0.001674, 0.001298, 9.8e-05, 0.0755, 37)};
  noisy.model = {{"bandwidth", "GB/s", std::nullopt}};
  noisy.flags = {"noisy"};
  r.rows = {small, big, noisy};

  r.summary = {
      {{{"memory", std::string("pinned"), ""}, {"direction", std::string("h2d"), ""}},
       {{"latency", "s", 9.5e-06}, {"asymptotic_bandwidth", "GB/s", 55.3}}},
      {{{"memory", std::string("pinned"), ""}, {"direction", std::string("d2h|bidir"), ""}},
       {{"latency", "s", std::nullopt}, {"asymptotic_bandwidth", "GB/s", 53.9}}},
  };
  r.conditions = {{"sm_clock", "MHz", 1980.0},
                  {"working_set", "B", 134217728.0},
                  {"temperature", "C", std::nullopt}};
  r.findings = {{"model_share",
                 FindingKind::kVerdict,
                 {},
                 {},
                 "pinned h2d reaches 98% of the model at 64 MiB",
                 {}}};
  for (const char* text : {"pageable memory not measured (--pinned given)",
                           "the d2h|bidir fit has too few points for a latency"})
    r.findings.push_back({"remark", FindingKind::kNote, {}, {}, text, {}});
  return r;
}

ProbeResult failed_result() {
  ProbeResult r;
  r.probe = "coalescing";
  r.device = 0;
  r.status = Status::kFailed;
  r.reason = "CUDA error: out of memory (cudaMalloc of 96 GiB)";
  r.method = "strided loads, one warp per 128 B segment; bytes counted as requested";
  r.params = {{"strides", std::string("1:32"), ""}};
  return r;
}

RunReport golden_report() {
  RunReport report;
  report.tool.version = "0.1.0";
  report.tool.git = "3f2c1ab00d9e";
  report.command = {"gpuprobe", "transfer", "--pinned", "--json", "out.json"};
  report.started_at = "2026-11-22T12:00:00Z";
  report.host = {"node17", "AMD EPYC 9654 96-Core Processor", 13000, 13000};
  report.devices = {h100()};
  report.results = {transfer_result(), failed_result()};
  return report;
}

// ---- golden file comparison ---------------------------------------------------------------

using gpuprobe::testing::expect_golden;

TEST(RenderGolden, Json) {
  expect_golden("report.json", render_json(golden_report()));
}

TEST(RenderGolden, Csv) {
  expect_golden("report.csv", render_csv(golden_report()));
}

TEST(RenderGolden, Markdown) {
  expect_golden("report.md", render_markdown(golden_report()));
}

TEST(RenderGolden, Table) {
  TableStyle style;
  style.color = false;
  expect_golden("report.txt", render_table(golden_report(), style));
}

TEST(RenderGolden, WideTable) {
  TableStyle style;
  style.wide = true;
  expect_golden("report-wide.txt", render_table(golden_report(), style, core_glossary()));
}

TEST(RenderGolden, WideMarkdown) {
  MarkdownStyle style;
  style.wide = true;
  expect_golden("report-wide.md", render_markdown(golden_report(), core_glossary(), style));
}

// ---- helpers for the targeted checks ------------------------------------------------------

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// RFC 4180 parser: fields may be quoted, "" is a quote inside a quoted field.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n') {
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quoted CSV field";
  EXPECT_TRUE(field.empty() && record.empty()) << "CSV does not end with a newline";
  return records;
}

std::size_t column_index(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no CSV column " << name;
  return header.size();
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// A one-row report: a text param, a bytes param and a model quantity.
RunReport small_report(const std::string& text, std::int64_t bytes,
                       std::optional<double> model_value) {
  RunReport report;
  report.tool.version = "0.1.0";
  report.tool.git = "abc";
  ProbeResult r;
  r.probe = "probe";
  r.device = 0;
  Row row;
  row.params = {{"label", text, ""}, {"bytes", bytes, "B"}};
  row.metrics = {metric("bandwidth", "GB/s", 1.5, 1.0, 2.0, 1.5, 0.5, 0.333, 2)};
  row.model = {{"bw", "GB/s", model_value}};
  r.rows = {row};
  report.results = {r};
  return report;
}

// ---- JSON ---------------------------------------------------------------------------------

TEST(RenderJson, ShapeOfTheGoldenReport) {
  const auto j = nlohmann::json::parse(render_json(golden_report()));
  ASSERT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["schema_version"], 3);
  EXPECT_EQ(j["tool"]["name"], "gpuprobe");
  EXPECT_EQ(j["command"].size(), 5u);
  EXPECT_EQ(j["host"]["driver_version"], 13000);
  const auto& dev = j["devices"][0];
  for (const char* key : {"index", "name", "uuid", "pci_bus_id", "compute_capability", "sm_count",
                          "sm_clock_khz", "memory_clock_khz", "l2_bytes", "persisting_l2_max_bytes",
                          "memory_bus_width_bits", "peak_dram_estimate_gbps"}) {
    EXPECT_TRUE(dev.contains(key)) << key;
  }
  EXPECT_TRUE(dev["l2_bytes"].is_number_integer());
  EXPECT_EQ(dev["l2_bytes"], 52428800);

  const auto& ok = j["results"][0];
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_TRUE(ok["reason"].is_null());
  EXPECT_EQ(ok["device"], 0);
  EXPECT_EQ(ok["params"]["samples"], 20);
  EXPECT_EQ(ok["params"]["pinned"], true);
  EXPECT_TRUE(ok["params"]["max_noise"].is_number_float());
  ASSERT_EQ(ok["rows"].size(), 3u);
  for (const auto& row : ok["rows"]) {
    ASSERT_TRUE(row["params"].is_object());
    EXPECT_TRUE(row["params"]["bytes"].is_number_integer());
    for (const char* name : {"bandwidth", "time"}) {
      const auto& m = row["metrics"][name];
      ASSERT_TRUE(m.is_object()) << name;
      EXPECT_TRUE(m["unit"].is_string());
      for (const char* stat : {"median", "min", "max", "mean", "stdev", "rel_noise", "n"})
        EXPECT_TRUE(m[stat].is_number()) << name << "." << stat;
      EXPECT_TRUE(m["n"].is_number_integer());
    }
    EXPECT_TRUE(row["model"].is_object());
    EXPECT_TRUE(row.contains("counters"));
    EXPECT_TRUE(row["counters"].is_null());
  }
  EXPECT_EQ(ok["rows"][1]["metrics"]["bandwidth"]["unit"], "GB/s");
  EXPECT_DOUBLE_EQ(ok["rows"][1]["metrics"]["bandwidth"]["median"].get<double>(), 54.1);
  EXPECT_EQ(ok["rows"][1]["metrics"]["time"]["unit"], "s");
  EXPECT_EQ(ok["rows"][2]["flags"], nlohmann::json::array({"noisy"}));
  EXPECT_TRUE(ok["summary"][1]["values"]["latency"]["value"].is_null());
  EXPECT_EQ(ok["summary"][1]["values"]["latency"]["unit"], "s");
  EXPECT_TRUE(ok["conditions"]["temperature"]["value"].is_null());
  ASSERT_EQ(ok["findings"].size(), 3u);
  EXPECT_EQ(ok["findings"][0]["kind"], "verdict");
  EXPECT_EQ(ok["findings"][1]["kind"], "note");
  EXPECT_EQ(ok["findings"][1]["text"], "pageable memory not measured (--pinned given)");

  const auto& failed = j["results"][1];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["reason"], "CUDA error: out of memory (cudaMalloc of 96 GiB)");
  EXPECT_TRUE(failed["rows"].is_array());
  EXPECT_TRUE(failed["rows"].empty());
}

TEST(RenderJson, EndsWithOneNewlineAndNeverSaysNA) {
  const std::string text = render_json(golden_report());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.substr(text.size() - 2), "\n\n");
  EXPECT_EQ(text.find("N/A"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

TEST(RenderJson, MissingQuantityIsNull) {
  const auto j = nlohmann::json::parse(render_json(small_report("x", 4096, std::nullopt)));
  const auto& q = j["results"][0]["rows"][0]["model"]["bw"];
  EXPECT_TRUE(q.contains("value"));
  EXPECT_TRUE(q["value"].is_null());
  EXPECT_EQ(q["unit"], "GB/s");
}

TEST(RenderJson, PlannedResultHasNullDevice) {
  RunReport report;
  ProbeResult r;
  r.probe = "transfer";
  r.status = Status::kPlanned;
  report.results = {r};
  const auto j = nlohmann::json::parse(render_json(report));
  EXPECT_TRUE(j["results"][0]["device"].is_null());
  EXPECT_EQ(j["results"][0]["status"], "planned");
}

TEST(RenderJson, BytesAreRawIntegers) {
  const auto j = nlohmann::json::parse(render_json(small_report("x", 67108864, 1.0)));
  const auto& bytes = j["results"][0]["rows"][0]["params"]["bytes"];
  ASSERT_TRUE(bytes.is_number_integer());
  EXPECT_EQ(bytes.get<std::int64_t>(), 67108864);
}

// ---- CSV ----------------------------------------------------------------------------------

TEST(RenderCsv, GoldenReportIsRectangular) {
  const auto records = parse_csv(render_csv(golden_report()));
  // header, 3 rows, 3 findings, 1 line for the failed result
  ASSERT_EQ(records.size(), 8u);
  for (const auto& r : records)
    EXPECT_EQ(r.size(), records[0].size());
  const auto& h = records[0];
  EXPECT_EQ(h[0], "device");
  EXPECT_EQ(h[1], "probe");
  EXPECT_EQ(h[2], "status");
  const auto memory = column_index(h, "memory");
  const auto bw = column_index(h, "bandwidth.median[GB/s]");
  const auto n = column_index(h, "time.n");
  const auto model = column_index(h, "model.bandwidth[GB/s]");
  const auto flags = column_index(h, "flags");
  ASSERT_LT(flags, h.size());
  EXPECT_EQ(records[3][memory], "pinned, \"portable\"");
  EXPECT_EQ(records[2][bw], "54.1");
  EXPECT_EQ(records[3][n], "37");
  EXPECT_EQ(records[1][model], "5.6");
  EXPECT_EQ(records[3][model], "");
  EXPECT_EQ(records[3][flags], "noisy");
  EXPECT_EQ(records[1][flags], "");
  const auto reason = column_index(h, "reason");
  ASSERT_LT(reason, h.size());
  EXPECT_EQ(records[1][reason], "");
  EXPECT_EQ(records[4][0], "0");
  EXPECT_EQ(records[4][1], "coalescing");
  EXPECT_EQ(records[4][2], "failed");
  EXPECT_EQ(records[4][reason], "CUDA error: out of memory (cudaMalloc of 96 GiB)");
  EXPECT_EQ(records[4][bw], "");
}

TEST(RenderCsv, QuotesCommaAndQuote) {
  const std::string csv = render_csv(small_report("say \"hi\", bye", 4096, 1.0));
  EXPECT_NE(csv.find(",\"say \"\"hi\"\", bye\","), std::string::npos) << csv;
  const auto records = parse_csv(csv);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1][column_index(records[0], "label")], "say \"hi\", bye");
}

TEST(RenderCsv, PlainFieldsAreNotQuoted) {
  const std::string csv = render_csv(small_report("plain", 4096, 1.0));
  EXPECT_EQ(csv.find('"'), std::string::npos) << csv;
}

TEST(RenderCsv, MissingQuantityIsEmpty) {
  const auto records = parse_csv(render_csv(small_report("x", 4096, std::nullopt)));
  ASSERT_EQ(records.size(), 2u);
  const auto col = column_index(records[0], "model.bw[GB/s]");
  ASSERT_LT(col, records[1].size());
  EXPECT_EQ(records[1][col], "");
}

TEST(RenderCsv, BytesAreRaw) {
  const auto records = parse_csv(render_csv(small_report("x", 67108864, 1.0)));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1][column_index(records[0], "bytes")], "67108864");
}

TEST(RenderCsv, SkippedResultWithoutRowsStillHasALine) {
  RunReport report;
  ProbeResult r;
  r.probe = "tma";
  r.device = 1;
  r.status = Status::kSkipped;
  r.reason = "needs cc 9.0, this GPU is cc 8.0";
  report.results = {r};
  const auto records = parse_csv(render_csv(report));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], (std::vector<std::string>{"device", "probe", "status", "reason"}));
  EXPECT_EQ(records[1],
            (std::vector<std::string>{"1", "tma", "skipped", "needs cc 9.0, this GPU is cc 8.0"}));
}

// ---- table --------------------------------------------------------------------------------

TableStyle wide_style() {
  TableStyle style;
  style.wide = true;
  return style;
}

TEST(RenderTable, WideHeaderNamesUnits) {
  const std::string table = render_table(golden_report(), wide_style());
  bool found = false;
  for (const auto& line : lines_of(table)) {
    if (!found && line.find("bandwidth [GB/s]") != std::string::npos) {
      found = true;  // the first such line heads the rows (the summary's comes later)
      EXPECT_NE(line.find("model bandwidth [GB/s]"), std::string::npos) << line;
      EXPECT_NE(line.find("memory"), std::string::npos) << line;
      EXPECT_NE(line.find("noise"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found) << table;
  EXPECT_EQ(table.find("  GB/s = "), std::string::npos) << "no legend with --wide:\n" << table;
}

// Compact (the default): core's terms give "GB/s" for bandwidth and "m.GB/s" for the model's,
// with a legend line under the table saying what they stand for.
TEST(RenderTable, CompactHeaderUsesTermsAndLegend) {
  const auto lines = lines_of(render_table(golden_report()));
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("m.GB/s") != std::string::npos) {
      header = i;
      break;
    }
  }
  ASSERT_LT(header + 5, lines.size());
  EXPECT_EQ(words(lines[header]), (std::vector<std::string>{"memory", "direction", "bytes", "GB/s",
                                                            "time", "noise", "m.GB/s", "flags"}));
  // rule, 3 rows, then the legend of the two labels that are not full names
  EXPECT_EQ(lines[header + 5],
            "  GB/s = bandwidth, median of the samples; GB/s = 1e9 B/s · m.GB/s = model: bandwidth "
            "predicted for this point");
  EXPECT_TRUE(lines[header + 6].empty()) << lines[header + 6];
}

TEST(RenderTable, BytesAsBinaryUnits) {
  const std::string table = render_table(small_report("x", 67108864, 1.0));
  EXPECT_NE(table.find("64 MiB"), std::string::npos) << table;
  EXPECT_EQ(table.find("67108864"), std::string::npos) << table;
}

TEST(RenderTable, MissingQuantityIsDash) {
  const auto lines = lines_of(render_table(small_report("x", 4096, std::nullopt)));
  // The data row: label, bytes, bandwidth, noise, model.
  bool found = false;
  for (const auto& line : lines) {
    const auto w = words(line);
    if (!w.empty() && w[0] == "x") {
      found = true;
      EXPECT_EQ(w.back(), "-") << line;
    }
  }
  EXPECT_TRUE(found);
}

TEST(RenderTable, ColourOnlyWhenAsked) {
  TableStyle plain;
  TableStyle colour;
  colour.color = true;
  EXPECT_EQ(render_table(golden_report(), plain).find('\x1b'), std::string::npos);
  EXPECT_NE(render_table(golden_report(), colour).find("\x1b["), std::string::npos);
}

TEST(RenderTable, HeaderCanBeLeftOut) {
  TableStyle style;
  style.header = false;
  const std::string table = render_table(golden_report(), style);
  EXPECT_EQ(table.find("node17"), std::string::npos);
  EXPECT_EQ(table.find("\nGPU 0: NVIDIA H100 80GB HBM3 · cc 9.0"), std::string::npos);
  EXPECT_NE(render_table(golden_report()).find("\nGPU 0: NVIDIA H100 80GB HBM3 · cc 9.0"),
            std::string::npos);
  EXPECT_NE(table.find("== transfer"), std::string::npos);
}

TEST(RenderTable, MissingConditionHasNoUnit) {
  const std::string table = render_table(golden_report());
  EXPECT_NE(table.find("  conditions: sm_clock 1980 MHz · working_set 128 MiB · temperature -\n"),
            std::string::npos)
      << table;
}

TEST(RenderTable, PlanHeaderLeavesOutUnknownHostFields) {
  RunReport report;
  report.tool.version = "0.1.0";
  report.tool.git = "abc";
  report.started_at = "2026-11-22T12:00:00Z";
  const auto lines = lines_of(render_table(report));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "gpuprobe 0.1.0 (abc) · 2026-11-22T12:00:00Z");
}

TEST(RenderTable, FailedResultShowsReason) {
  const std::string table = render_table(golden_report());
  EXPECT_NE(table.find("== coalescing · GPU 0: NVIDIA H100 80GB HBM3 · failed: CUDA error: out "
                       "of memory (cudaMalloc of 96 GiB)"),
            std::string::npos)
      << table;
}

// Every table block (header, rule of dashes, rows) must line up with its rule: numeric
// cells end where the dashes end, text cells start where they start, and gaps are blank.
// (The legend under a compact table ends the block: its lines have " = ".)
void expect_aligned_columns(const std::string& table) {
  const auto lines = lines_of(table);
  int blocks = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& rule = lines[i];
    if (rule.find("--") == std::string::npos || rule.find_first_not_of(" -") != std::string::npos)
      continue;
    ++blocks;
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end)
    for (std::size_t p = 0; p < rule.size();) {
      if (rule[p] == '-') {
        const std::size_t end = rule.find(' ', p);
        runs.emplace_back(p, end == std::string::npos ? rule.size() : end);
        p = runs.back().second;
      } else {
        ++p;
      }
    }
    std::vector<std::string> block = {lines[i - 1]};
    for (std::size_t k = i + 1;
         k < lines.size() && !lines[k].empty() && lines[k].find(" = ") == std::string::npos; ++k)
      block.push_back(lines[k]);
    ASSERT_GE(block.size(), 2u);
    for (const auto& line : block) {
      EXPECT_LE(line.size(), rule.size()) << "line: '" << line << "'";
      EXPECT_NE(line.back(), ' ') << "trailing blank in '" << line << "'";
      // Lines are trimmed on the right: pad them back to the rule for the checks.
      const std::string padded = line + std::string(rule.size() - line.size(), ' ');
      std::size_t prev_end = 0;
      for (const auto& [b, e] : runs) {
        for (std::size_t p = prev_end; p < b; ++p)
          EXPECT_EQ(padded[p], ' ') << "gap not blank in '" << line << "'";
        const std::string cell = padded.substr(b, e - b);
        const bool left = cell.front() != ' ';
        const bool right = cell.back() != ' ';
        EXPECT_TRUE(left || right || cell.find_first_not_of(' ') == std::string::npos)
            << "cell '" << cell << "' touches neither edge of its column in '" << line << "'";
        prev_end = e;
      }
    }
  }
  EXPECT_EQ(blocks, 2);  // the rows table and the summary table
}

TEST(RenderTable, ColumnsAreAligned) {
  expect_aligned_columns(render_table(golden_report()));
  expect_aligned_columns(render_table(golden_report(), wide_style()));
}

TEST(RenderTable, NumbersRightTextLeft) {
  const auto lines = lines_of(render_table(golden_report(), wide_style()));
  // The row of 4 KiB: "  pinned ... h2d ...   4 KiB   5.2 ..." with bytes right-aligned
  // under its header "bytes" (whose last letter is above the last letter of "KiB").
  std::size_t header_row = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("bandwidth [GB/s]") != std::string::npos) {
      header_row = i;
      break;
    }
  }
  ASSERT_LT(header_row + 2, lines.size());
  const std::string& header = lines[header_row];
  const std::string& row = lines[header_row + 2];
  EXPECT_EQ(header.find("memory"), row.find("pinned"));
  EXPECT_EQ(header.find("bytes") + 5, row.find("KiB") + 3);
  EXPECT_EQ(header.find("bandwidth [GB/s]") + 16, row.find("5.2") + 3);
}

// ---- Markdown -----------------------------------------------------------------------------

TEST(RenderMarkdown, EscapesPipesInCells) {
  const std::string md = render_markdown(small_report("a|b", 4096, 1.0));
  EXPECT_NE(md.find("| a\\|b |"), std::string::npos) << md;
}

TEST(RenderMarkdown, TablesHaveAsManyCellsAsHeaders) {
  const auto lines = lines_of(render_markdown(golden_report()));
  int tables = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const bool is_header = lines[i].rfind("| ", 0) == 0;
    const bool is_align =
        lines[i + 1].rfind("| ---", 0) == 0 || lines[i + 1].rfind("| :---", 0) == 0;
    if (!is_header || !is_align) continue;
    ++tables;
    auto cells = [](const std::string& line) {
      std::size_t n = 0;
      for (std::size_t p = 0; p < line.size(); ++p) {
        if (line[p] == '|' && (p == 0 || line[p - 1] != '\\')) ++n;
      }
      return n;
    };
    const std::size_t expected = cells(lines[i]);
    for (std::size_t k = i + 1; k < lines.size() && !lines[k].empty(); ++k)
      EXPECT_EQ(cells(lines[k]), expected) << lines[k];
  }
  EXPECT_EQ(tables, 2);
}

TEST(RenderMarkdown, MissingQuantityIsDash) {
  const std::string md = render_markdown(small_report("x", 4096, std::nullopt));
  EXPECT_NE(md.find(" | - |\n"), std::string::npos) << md;
}

TEST(RenderMarkdown, MissingConditionHasNoUnit) {
  const std::string md = render_markdown(golden_report());
  EXPECT_NE(md.find("Conditions: sm_clock = 1980 MHz; working_set = 128 MiB; temperature = -;\n"),
            std::string::npos)
      << md;
}

TEST(RenderMarkdown, FailedResultHeading) {
  const std::string md = render_markdown(golden_report());
  EXPECT_NE(md.find("\n## coalescing — GPU 0: NVIDIA H100 80GB HBM3 — failed: CUDA error"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace gpuprobe
