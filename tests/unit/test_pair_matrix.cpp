// Unit tests of the source x destination matrices (core/pair_matrix.hpp) and how the table and
// Markdown renderers show them, on synthetic peer results of 2 and 4 GPUs (numbers made up, each
// cell different so that a transposed or misplaced value shows), plus compare of two of them.
#include "gpuprobe/core/pair_matrix.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "golden.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"

namespace gpuprobe {
namespace {

using gpuprobe::testing::expect_golden;

constexpr std::int64_t kSmall = 4096;
constexpr std::int64_t kLarge = 64 << 20;

Metric metric(const std::string& name, const std::string& unit, double median) {
  Metric m{name, unit, {}, {}};
  m.stats.median = m.stats.mean = median;
  m.stats.min = median * 0.99;
  m.stats.max = median * 1.01;
  m.stats.stdev = median * 0.005;
  m.stats.rel_noise = 0.005;
  m.stats.n = 10;
  return m;
}

// The made-up bandwidth of one row: per mode and direction, less at the small size, plus src and
// dst / 10 so that every cell differs from its transpose.
double gbps(int src, int dst, const std::string& mode, const std::string& direction,
            std::int64_t bytes) {
  double base = mode == "ce" ? 40.0 : 20.0;
  if (direction == "bidir") base *= 1.5;
  if (bytes == kSmall) base /= 20.0;
  return base + src + dst / 10.0;
}

// A peer row as the probe makes it: src, dst, mode, direction, bytes, then the link (which
// differs between pairs: a param that follows from the pair, never a path).
Row peer_row(int src, int dst, const std::string& mode, const std::string& direction,
             std::int64_t bytes, double scale = 1.0) {
  Row r;
  r.params = {{"src", std::int64_t{src}, ""},
              {"dst", std::int64_t{dst}, ""},
              {"mode", mode, ""},
              {"direction", direction, ""},
              {"bytes", bytes, "B"},
              {"link", std::string((src + dst) % 2 ? "NVLink 4" : "PCIe gen5 x16"), ""}};
  const double bw = gbps(src, dst, mode, direction, bytes) * scale;
  r.metrics = {metric("bandwidth", "GB/s", bw),
               metric("time", "s", static_cast<double>(bytes) / (bw * 1e9))};
  return r;
}

std::vector<Row> peer_rows(int gpus, const std::vector<std::string>& modes, double scale = 1.0) {
  std::vector<Row> rows;
  for (int s = 0; s < gpus; ++s)
    for (int d = 0; d < gpus; ++d)
      for (const auto& mode : modes)
        for (const std::string direction : {"uni", "bidir"})
          for (const auto bytes : {kSmall, kLarge})
            if (s != d) rows.push_back(peer_row(s, d, mode, direction, bytes, scale));
  return rows;
}

RunReport peer_report(int gpus, double scale = 1.0) {
  RunReport report;
  report.tool.version = "0.1.0";
  report.tool.git = "3f2c1ab00d9e";
  report.command = {"gpuprobe", "--device", "all", "peer"};
  report.started_at = "2026-11-26T12:00:00Z";
  report.host = {"node17", "AMD EPYC 9654 96-Core Processor", 13000, 13000};
  for (int i = 0; i < gpus; ++i) {
    DeviceInfo d;
    d.index = i;
    d.name = "NVIDIA H100 80GB HBM3";
    d.uuid = "GPU-synthetic-" + std::to_string(i);
    d.pci_bus_id = "0000:0" + std::to_string(i + 1) + ":00.0";
    d.compute_capability = "9.0";
    report.devices.push_back(d);
  }
  ProbeResult r;
  r.probe = "peer";
  r.device = 0;
  r.method = "synthetic rows for the matrix tests (not measured)";
  r.rows = peer_rows(gpus, {"ce", "staged"}, scale);
  report.results.push_back(r);
  return report;
}

std::string path_text(const PairMatrix& m) {
  std::string out;
  for (const auto& p : m.path)
    out += p.key + "=" + scalar_text(p.value) + " ";
  return out;
}

TEST(PairMatrix, PeakBandwidthPerModeAndDirection) {
  const auto matrices = pair_matrices(peer_rows(2, {"ce", "staged"}));
  ASSERT_EQ(matrices.size(), 8u);  // (bandwidth, time) x (ce, staged) x (uni, bidir)
  const PairMatrix& m = matrices[0];
  EXPECT_EQ(m.metric, "bandwidth");
  EXPECT_EQ(m.cell, PairCell::kPeak);
  EXPECT_EQ(path_text(m), "mode=ce direction=uni ");  // link differs per pair: not a path
  EXPECT_EQ(m.devices, (std::vector<std::int64_t>{0, 1}));
  EXPECT_DOUBLE_EQ(*m.cells[0][1], 40.1);  // the 64 MiB row, not the 4 KiB one
  EXPECT_DOUBLE_EQ(*m.cells[1][0], 41.0);
  EXPECT_FALSE(m.cells[0][0].has_value());
  EXPECT_FALSE(m.cells[1][1].has_value());
  EXPECT_EQ(path_text(matrices[1]), "mode=ce direction=bidir ");
  EXPECT_DOUBLE_EQ(*matrices[1].cells[0][1], 60.1);
  EXPECT_EQ(path_text(matrices[2]), "mode=staged direction=uni ");
  EXPECT_EQ(matrices[4].metric, "time");
}

TEST(PairMatrix, LatencyIsTheTimeAtTheSmallestSize) {
  const auto matrices = pair_matrices(peer_rows(2, {"ce"}));
  ASSERT_EQ(matrices.size(), 4u);
  const PairMatrix& m = matrices[2];
  EXPECT_EQ(m.metric, "time");
  EXPECT_EQ(m.cell, PairCell::kAtSmallest);
  EXPECT_EQ(m.bytes, kSmall);
  EXPECT_DOUBLE_EQ(*m.cells[1][0], kSmall / (gbps(1, 0, "ce", "uni", kSmall) * 1e9));
  // One mode only: it tells no rows apart, so the path is the direction.
  EXPECT_EQ(path_text(m), "direction=uni ");
}

TEST(PairMatrix, FourGpusEveryOffDiagonalCell) {
  const auto matrices = pair_matrices(peer_rows(4, {"ce"}));
  ASSERT_EQ(matrices.size(), 4u);
  const PairMatrix& m = matrices[0];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      if (i == j) {
        EXPECT_FALSE(m.cells[i][j].has_value());
        continue;
      }
      ASSERT_TRUE(m.cells[i][j].has_value()) << i << "->" << j;
      EXPECT_DOUBLE_EQ(*m.cells[i][j], gbps(i, j, "ce", "uni", kLarge));
    }
}

TEST(PairMatrix, MeasuredDiagonalShowsItsValue) {
  auto rows = peer_rows(2, {"ce"});
  rows.push_back(peer_row(1, 1, "ce", "uni", kLarge));
  const auto m = pair_matrices(rows).at(0);
  ASSERT_TRUE(m.cells[1][1].has_value());
  EXPECT_DOUBLE_EQ(*m.cells[1][1], gbps(1, 1, "ce", "uni", kLarge));
  EXPECT_FALSE(m.cells[0][0].has_value());
}

TEST(PairMatrix, RowsWithoutSrcOrDstAreLeftOut) {
  auto rows = peer_rows(2, {"ce"});
  Row stray = peer_row(0, 1, "ce", "uni", kLarge, 10.0);
  stray.params.erase(stray.params.begin() + 1);  // no dst
  rows.push_back(stray);
  EXPECT_DOUBLE_EQ(*pair_matrices(rows).at(0).cells[0][1], 40.1);
  EXPECT_TRUE(pair_matrices({stray}).empty());
  Row text_src = peer_row(0, 1, "ce", "uni", kLarge);
  text_src.params[0].value = std::string("0");  // src must be an integer
  EXPECT_TRUE(pair_matrices({text_src}).empty());
}

TEST(PairMatrix, PlannedRowsGiveNone) {
  std::vector<Row> rows;
  for (const auto& r : peer_rows(2, {"ce"}))
    rows.push_back(unmeasured_row(r.params));
  EXPECT_TRUE(pair_matrices(rows).empty());
}

// A latency mode whose rows carry a `latency` metric and no bandwidth: its own latency matrix,
// and no bandwidth matrix for that mode.
TEST(PairMatrix, LatencyModeRowsGiveTheirLatency) {
  auto rows = peer_rows(2, {"ce"});
  for (int s = 0; s < 2; ++s) {
    // As peer's sm-latency rows: a bandwidth and a time per repetition beside their own
    // latency, which alone stands for the path (a chase's bytes per second are no copy rate).
    Row r = peer_row(s, 1 - s, "latency", "uni", 8);
    r.metrics.push_back(metric("latency", "s", 2e-6 + s * 1e-7));
    rows.push_back(r);
  }
  const auto matrices = pair_matrices(rows);
  std::vector<std::string> names;
  for (const auto& m : matrices)
    names.push_back(m.metric + " " + path_text(m));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "bandwidth mode=ce direction=uni ", "bandwidth mode=ce direction=bidir ",
                       "time mode=ce direction=uni ", "time mode=ce direction=bidir ",
                       "latency mode=latency direction=uni "}));
  EXPECT_DOUBLE_EQ(*matrices.back().cells[1][0], 2.1e-6);
  EXPECT_EQ(matrices.back().bytes, 8);
}

TEST(PairMatrixRender, TwoGpusTable) {
  TableStyle style;
  style.header = false;
  expect_golden("peer-2gpu.txt", render_table(peer_report(2), style));
}

TEST(PairMatrixRender, FourGpusTable) {
  TableStyle style;
  style.header = false;
  expect_golden("peer-4gpu.txt", render_table(peer_report(4), style));
}

TEST(PairMatrixRender, TwoGpusMarkdown) {
  expect_golden("peer-2gpu.md", render_markdown(peer_report(2)));
}

// The JSON keeps the rows only: the matrices are derived when rendering. Its file is also the
// input of the compare test below and of the report's peer test (tests/report).
TEST(PairMatrixRender, JsonKeepsRowsOnly) {
  const std::string json = render_json(peer_report(2));
  EXPECT_EQ(json.find("src x dst"), std::string::npos);
  EXPECT_EQ(json.find("\"cells\""), std::string::npos);
  expect_golden("peer-2gpu.json", json);
  expect_golden("peer-2gpu-slower.json", render_json(peer_report(2, 0.8)));
}

TEST(PairMatrixRender, SkippedAndOneGpuResultsHaveNoMatrices) {
  RunReport report = peer_report(1);
  EXPECT_TRUE(report.results[0].rows.empty());
  report.results[0].status = Status::kSkipped;
  report.results[0].reason = "peer needs two GPUs; 1 visible";
  EXPECT_EQ(render_table(report).find("src x dst"), std::string::npos);
  EXPECT_EQ(render_markdown(report).find("src x dst"), std::string::npos);
  // Rows of other probes have no src and dst: no matrices either.
  const std::string both = render_table(peer_report(2));
  EXPECT_NE(both.find("src x dst matrices"), std::string::npos);
}

// compare matches peer rows by their params (src and dst among them); its own rows carry no
// metrics, so its tables show no matrices.
TEST(PairMatrixRender, CompareOfTwoPeerResults) {
  const std::string dir = GPUPROBE_GOLDEN_DIR;
  const RunReport a = report_from_json(read_json_file(dir + "/peer-2gpu.json"), "a");
  const RunReport b = report_from_json(read_json_file(dir + "/peer-2gpu-slower.json"), "b");
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_rows, 16u);
  EXPECT_EQ(out.unmatched_a + out.unmatched_b, 0u);
  EXPECT_EQ(out.slower, 32u);  // every row: bandwidth 0.8x, time 1.25x
  const std::string table = render_table(out.report);
  EXPECT_NE(table.find("compare peer"), std::string::npos);
  EXPECT_EQ(table.find("src x dst"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe
