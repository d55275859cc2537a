// Unit tests for the JSON form of a report: round trip, rejection of bad input, atomic writes.
#include "gpuprobe/core/json_io.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

RunReport sample_report() {
  RunReport report;
  report.tool = {"gpuprobe", "0.1.0", "deadbeef"};
  report.command = {"gpuprobe", "--json", "x.json", "transfer"};
  report.started_at = "2026-11-22T12:00:00Z";
  report.host = {"node17", "Intel(R) Xeon(R) Platinum 8480+", 12080, std::nullopt};
  DeviceInfo d;
  d.index = 1;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-aaaa";
  d.pci_bus_id = "00000000:2A:00.0";
  d.compute_capability = "9.0";
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.memory_clock_khz = 3201000;
  d.memory_bus_width_bits = 6144;
  d.total_memory_bytes = 150754820096ULL;
  d.l2_bytes = 62914560;
  d.persisting_l2_max_bytes = 47185920;
  d.access_policy_max_window_bytes = 134213632;
  d.shared_memory_per_sm_bytes = 233472;
  d.shared_memory_per_block_optin_bytes = 232448;
  d.async_engine_count = 3;
  d.can_map_host_memory = true;
  d.ecc_enabled = true;
  d.pcie_link_gts = 32;
  d.pcie_link_width = 16;
  d.peak_dram_estimate_gbps = 4917.3;
  report.devices = {d};

  ProbeResult ok;
  ok.probe = "transfer";
  ok.device = 1;
  ok.method = "events";
  ok.params = {{"sizes", std::string("4KiB"), ""},
               {"samples", std::int64_t{5}, ""},
               {"pinned", false, ""},
               {"ratio", 2.0, ""},
               {"nothing", std::monostate{}, ""}};
  Row row;
  row.params = {{"memory", std::string("pinned"), ""}, {"bytes", std::int64_t{4096}, "B"}};
  Statistics s;
  s.median = 5.25;
  s.min = 5.0;
  s.max = 5.5;
  s.mean = 5.25;
  s.stdev = 0.125;
  s.rel_noise = 0.0238;
  s.n = 5;
  row.metrics = {{"bandwidth", "GB/s", s, {{5.0, 5.5, 5.25}, {5.1, 5.3}}}};
  row.derived = {{"ratio", "", 0.97}};
  row.model = {{"bandwidth", "GB/s", 5.5}, {"latency", "s", std::nullopt}};
  row.counters = std::vector<Quantity>{{"dram_bytes", "B", 4096.0}};
  row.flags = {"noisy", "gate-timeout"};
  Row bare;
  bare.params = {{"memory", std::string("pageable"), ""}, {"bytes", std::int64_t{8192}, "B"}};
  ok.rows = {row, bare};
  ok.summary = {{{{"memory", std::string("pinned"), ""}}, {{"latency", "s", 1e-5}}}};
  ok.conditions = {{"sm_clock", "MHz", std::nullopt}};
  ok.findings = {{"pinned_over_pageable",
                  FindingKind::kVerdict,
                  {{"direction", std::string("h2d"), ""}},
                  {{"ratio", "x", 7.6}, {"pageable", "GB/s", std::nullopt}},
                  "pinned is 7.6x pageable",
                  {{"at", std::int64_t{4096}, "B"}}},
                 {"sizing", FindingKind::kNote, {}, {}, "a note", {}}};

  ProbeResult skipped;
  skipped.probe = "tma";
  skipped.device = 1;
  skipped.status = Status::kSkipped;
  skipped.reason = "needs cc 9.0";

  ProbeResult planned;
  planned.probe = "transfer";
  planned.status = Status::kPlanned;

  report.results = {ok, skipped, planned};
  return report;
}

json sample_json() {
  return json::parse(to_json(sample_report()).dump());
}

// Expects report_from_json to throw UsageError whose message names the origin.
void expect_rejected(const json& j, const std::string& what) {
  try {
    report_from_json(j, "bad.json");
    ADD_FAILURE() << "accepted: " << what;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos)
        << what << ": " << e.what();
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception type: " << e.what();
  }
}

TEST(JsonRoundTrip, ToJsonFromJsonToJsonIsEqual) {
  const auto first = to_json(sample_report());
  const RunReport back =
      report_from_json(nlohmann::ordered_json::parse(first.dump()), "round-trip");
  const auto second = to_json(back);
  // Byte for byte: reading keeps key order, so params come back in the probe's order.
  EXPECT_EQ(first.dump(), second.dump()) << first.dump(2) << "\n---\n" << second.dump(2);
}

TEST(JsonRoundTrip, ValuesSurvive) {
  const RunReport back = report_from_json(sample_json(), "x");
  EXPECT_EQ(back.schema_version, 3);
  EXPECT_EQ(back.tool.git, "deadbeef");
  EXPECT_EQ(back.host.driver_version, 12080);
  EXPECT_FALSE(back.host.runtime_version.has_value());
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_EQ(back.devices[0].index, 1);
  EXPECT_EQ(back.devices[0].total_memory_bytes, 150754820096ULL);
  EXPECT_DOUBLE_EQ(back.devices[0].peak_dram_estimate_gbps, 4917.3);
  ASSERT_EQ(back.results.size(), 3u);
  const ProbeResult& ok = back.results[0];
  EXPECT_EQ(ok.status, Status::kOk);
  EXPECT_EQ(ok.device, 1);
  EXPECT_TRUE(ok.reason.empty());
  const Param* ratio = find_param(ok.params, "ratio");
  ASSERT_NE(ratio, nullptr);
  EXPECT_TRUE(std::holds_alternative<double>(ratio->value));
  const Param* samples = find_param(ok.params, "samples");
  ASSERT_NE(samples, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(samples->value), 5);
  const Param* nothing = find_param(ok.params, "nothing");
  ASSERT_NE(nothing, nullptr);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(nothing->value));
  ASSERT_EQ(ok.rows.size(), 2u);
  const Metric* bw = find_metric(ok.rows[0], "bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->unit, "GB/s");
  EXPECT_DOUBLE_EQ(bw->stats.median, 5.25);
  EXPECT_DOUBLE_EQ(bw->stats.stdev, 0.125);
  EXPECT_EQ(bw->stats.n, 5u);
  EXPECT_EQ(bw->samples, (std::vector<std::vector<double>>{{5.0, 5.5, 5.25}, {5.1, 5.3}}));
  const Quantity* latency = find_quantity(ok.rows[0].model, "latency");
  ASSERT_NE(latency, nullptr);
  EXPECT_FALSE(latency->value.has_value());
  ASSERT_TRUE(ok.rows[0].counters.has_value());
  EXPECT_EQ(ok.rows[0].counters->size(), 1u);
  EXPECT_FALSE(ok.rows[1].counters.has_value());
  EXPECT_EQ(ok.rows[0].flags, (std::vector<std::string>{"noisy", "gate-timeout"}));
  EXPECT_EQ(back.results[1].status, Status::kSkipped);
  EXPECT_EQ(back.results[1].reason, "needs cc 9.0");
  EXPECT_EQ(back.results[2].status, Status::kPlanned);
  EXPECT_FALSE(back.results[2].device.has_value());
}

// A report of one transfer result with one 4 KiB row that holds `metric`.
RunReport one_metric_report(const Metric& metric) {
  RunReport report;
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  Row row;
  row.params = {{"bytes", std::int64_t{4096}, "B"}};
  row.metrics = {metric};
  r.rows = {row};
  report.results = {r};
  return report;
}

TEST(JsonRoundTrip, MetricCarriesSamplesByRoundAndRoundSpread) {
  Metric m{"bandwidth", "GB/s", {}, {{10.0, 11.0}, {9.0}}};
  m.stats.median = 10.0;
  const auto j = to_json(one_metric_report(m));
  EXPECT_EQ(j["schema_version"], 3);
  const auto& mj = j["results"][0]["rows"][0]["metrics"]["bandwidth"];
  EXPECT_EQ(mj["samples"], nlohmann::ordered_json::parse("[[10.0, 11.0], [9.0]]"));
  EXPECT_DOUBLE_EQ(mj["round_spread"].get<double>(), (10.5 - 9.0) / 10.0);
}

TEST(JsonRoundTrip, ParamUnitsComeBackToTheRowParams) {
  const auto j = to_json(sample_report());
  // Only params with a unit; every result has the object (empty where none has one).
  EXPECT_EQ(j["results"][0]["param_units"], nlohmann::ordered_json::parse(R"({"bytes": "B"})"));
  EXPECT_EQ(j["results"][1]["param_units"], nlohmann::ordered_json::object());
  const RunReport back = report_from_json(j, "x");
  for (const auto& row : back.results[0].rows) {
    EXPECT_EQ(find_param(row.params, "bytes")->unit, "B");
    EXPECT_EQ(find_param(row.params, "memory")->unit, "");
  }
  // Schema 2 files have none: the params keep no unit.
  auto old = j;
  old["schema_version"] = 2;
  old["results"][0].erase("param_units");
  const RunReport schema2 = report_from_json(old, "x");
  EXPECT_EQ(find_param(schema2.results[0].rows[0].params, "bytes")->unit, "");
  // Not an object of strings: malformed.
  for (const char* bad : {R"(3)", R"({"bytes": 1})"}) {
    auto k = j;
    k["results"][0]["param_units"] = nlohmann::ordered_json::parse(bad);
    EXPECT_THROW(report_from_json(k, "bad.json"), UsageError) << bad;
  }
}

TEST(JsonRead, SamplesThatAreNotRoundsOfNumbersAreMalformed) {
  const RunReport report = one_metric_report({"time", "s", {}, {{1.0}}});
  for (const char* bad : {R"(3)", R"([1.0, 2.0])", R"([["x"]])", R"([[null]])"}) {
    auto j = to_json(report);
    j["results"][0]["rows"][0]["metrics"]["time"]["samples"] = nlohmann::ordered_json::parse(bad);
    EXPECT_THROW(report_from_json(j, "bad.json"), UsageError) << bad;
  }
}

// Real schema-1 output from an H100 (tests/fixtures/schema1/h100-all.json.gz, a copy of the first
// committed examples/results/h100/all.json) is read: every field comes back, and its prose
// verdict and notes lines become findings that carry the lines as their text.
TEST(JsonRoundTrip, Schema1H100ReportIsReadWithItsLinesAsFindings) {
  const std::string path = std::string(GPUPROBE_FIXTURES_DIR) + "/schema1/h100-all.json.gz";
  const nlohmann::ordered_json original = read_json_file(path);
  const RunReport report = report_from_json(original, path);
  EXPECT_EQ(report.schema_version, 1);
  ASSERT_EQ(report.results.size(), 3u);
  nlohmann::ordered_json expected = original;
  expected["schema_version"] = kSchemaVersion;
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const auto& r = report.results[i];
    EXPECT_EQ(r.status, Status::kOk) << r.probe << ": " << r.reason;
    EXPECT_FALSE(r.rows.empty()) << r.probe;
    auto& rj = expected["results"][i];
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const auto& [key, id, kind] : {std::tuple{"verdict", "schema1_verdict", "verdict"},
                                        std::tuple{"notes", "schema1_note", "note"}}) {
      for (const auto& line : rj[key]) {
        findings.push_back({{"id", id},
                            {"kind", kind},
                            {"params", nlohmann::ordered_json::object()},
                            {"values", nlohmann::ordered_json::object()},
                            {"outcome", nlohmann::ordered_json::object()},
                            {"text", line}});
      }
      rj.erase(key);
    }
    EXPECT_FALSE(findings.empty()) << r.probe;
    rj["findings"] = findings;
    rj["counters"] = nullptr;  // schema 1 had no counter pass; a rewrite says so explicitly
  }
  // Schema 1 kept no param units: a rewrite has an empty param_units object in each result.
  nlohmann::ordered_json written = to_json(report);
  for (auto& rj : written["results"]) {
    EXPECT_EQ(rj["param_units"], nlohmann::ordered_json::object());
    rj.erase("param_units");
  }
  // Nor link facts: a rewrite has them unknown in each device.
  for (auto& dj : written["devices"]) {
    EXPECT_EQ(dj["link_source"], "");
    EXPECT_TRUE(dj["numa_node"].is_null());
    EXPECT_EQ(dj["peer_links"], nlohmann::ordered_json::array());
    for (const char* key :
         {"link_source", "pcie_generation", "pcie_max_generation", "pcie_max_width", "numa_node",
          "cpu_affinity", "nvml_unavailable", "peer_links"})
      dj.erase(key);
  }
  EXPECT_EQ(written, expected);
}

TEST(JsonRoundTrip, SubjectIsWrittenOnlyWhenSet) {
  RunReport report = sample_report();
  EXPECT_FALSE(to_json(report)["results"][0].contains("subject"));
  report.results[0].subject = "A GPU 0: X vs B GPU 1: Y";
  const auto j = to_json(report);
  EXPECT_EQ(j["results"][0]["subject"], "A GPU 0: X vs B GPU 1: Y");
  EXPECT_EQ(report_from_json(j, "mem").results[0].subject, "A GPU 0: X vs B GPU 1: Y");
}

// A host-scoped result (peer) names the GPUs it spanned; a device-scoped one, and older files,
// have no "devices" and read back with none.
TEST(JsonRoundTrip, SpannedDevicesAreWrittenOnlyWhenSetAndReadBack) {
  RunReport report = sample_report();
  EXPECT_FALSE(to_json(report)["results"][0].contains("devices"));
  EXPECT_TRUE(report_from_json(to_json(report), "mem").results[0].devices.empty());
  report.results[0].devices = {1, 0};
  const auto j = to_json(report);
  EXPECT_EQ(j["results"][0]["devices"], nlohmann::ordered_json::array({1, 0}));
  EXPECT_EQ(report_from_json(j, "mem").results[0].devices, (std::vector<int>{1, 0}));
}

TEST(JsonRead, SpannedDevicesThatAreNotAListOfIndicesAreMalformed) {
  json j = sample_json();
  j["results"][0]["devices"] = "0,1";
  expect_rejected(j, "devices as text");
  j["results"][0]["devices"] = json::array({0, "x"});
  expect_rejected(j, "a device index as text");
}

TEST(JsonRead, RejectsNonObject) {
  expect_rejected(json::array({1, 2}), "array at top level");
  expect_rejected(json("text"), "string at top level");
}

TEST(JsonRead, RejectsMissingSchemaVersion) {
  json j = sample_json();
  j.erase("schema_version");
  expect_rejected(j, "no schema_version");
}

TEST(JsonRead, RejectsSchemaVersionsItDoesNotKnow) {
  for (int version : {0, 4}) {
    json j = sample_json();
    j["schema_version"] = version;
    expect_rejected(j, "schema_version " + std::to_string(version));
    try {
      report_from_json(j, "bad.json");
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("schema_version " + std::to_string(version) + " "),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("reads 1 to 3"), std::string::npos) << e.what();
    }
  }
}

TEST(JsonRoundTrip, FindingsKeepIdKindParamsValuesAndText) {
  const RunReport back = report_from_json(sample_json(), "x");
  const auto& f = back.results[0].findings;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].id, "pinned_over_pageable");
  EXPECT_EQ(f[0].kind, FindingKind::kVerdict);
  EXPECT_EQ(scalar_text(f[0].params.at(0).value), "h2d");
  ASSERT_EQ(f[0].values.size(), 2u);
  const Quantity* ratio = find_quantity(f[0].values, "ratio");
  ASSERT_NE(ratio, nullptr);
  EXPECT_EQ(ratio->unit, "x");
  EXPECT_DOUBLE_EQ(*ratio->value, 7.6);
  const Quantity* pageable = find_quantity(f[0].values, "pageable");
  ASSERT_NE(pageable, nullptr);
  EXPECT_FALSE(pageable->value.has_value());
  EXPECT_EQ(f[0].text, "pinned is 7.6x pageable");
  EXPECT_EQ(f[1].kind, FindingKind::kNote);
}

TEST(JsonRead, RejectsAnUnknownFindingKind) {
  json j = sample_json();
  j["results"][0]["findings"][0]["kind"] = "rumour";
  expect_rejected(j, "finding kind 'rumour'");
}

TEST(JsonRead, RejectsSchemaVersionOfWrongType) {
  json j = sample_json();
  j["schema_version"] = "1";
  expect_rejected(j, "schema_version as text");
}

TEST(JsonRead, RejectsIntegersOutOfRange) {
  json j = sample_json();
  j["schema_version"] = 1e300;  // a double: converting it to int would be undefined
  expect_rejected(j, "schema_version 1e300");
  j = sample_json();
  j["devices"][0]["sm_count"] = 4294967296LL;
  expect_rejected(j, "sm_count beyond int");
  j = sample_json();
  j["results"][0]["device"] = -3000000000LL;
  expect_rejected(j, "device beyond int");
  j = sample_json();
  j["results"][0]["rows"][0]["metrics"]["bandwidth"]["n"] = -1;
  expect_rejected(j, "negative sample count");
  j = sample_json();
  j["results"][0]["rows"][0]["params"]["bytes"] = 18446744073709551615ULL;
  expect_rejected(j, "parameter beyond int64");
}

// Lists of integers or of strings are params (IntList, TextList); any other array is not.
TEST(JsonRead, RejectsParametersThatAreNeitherScalarsNorLists) {
  const char* bad[] = {
      "[[[[{\"a\": [1]}]]]]", "[1, \"a\"]",    "[1.5, 2]",   "[{\"a\": 1}]",
      "[[1], [2]]",           "[\"a\", null]", "{\"a\": 1}", "[18446744073709551615]"};
  for (const char* text : bad) {
    json j = sample_json();
    j["results"][0]["params"]["nested"] = json::parse(text);
    expect_rejected(j, text);
  }
}

TEST(JsonRoundTrip, ListParamsComeBackAsLists) {
  json j = sample_json();
  j["results"][0]["findings"][0]["params"]["offsets"] = json::array({1, 2, 4});
  j["results"][0]["findings"][0]["params"]["kinds"] = json::array({"pinned", "wc"});
  j["results"][0]["findings"][0]["params"]["none"] = json::array();
  j["results"][0]["findings"][0]["params"]["older"] = "1,2,4";
  const RunReport back = report_from_json(j, "x");
  const auto& params = back.results[0].findings[0].params;
  EXPECT_EQ(std::get<IntList>(find_param(params, "offsets")->value), (IntList{1, 2, 4}));
  EXPECT_EQ(std::get<TextList>(find_param(params, "kinds")->value), (TextList{"pinned", "wc"}));
  EXPECT_TRUE(std::get<IntList>(find_param(params, "none")->value).empty());
  EXPECT_EQ(scalar_text(find_param(params, "offsets")->value), "1,2,4");
  EXPECT_EQ(list_items_of(params, "offsets"), (TextList{"1", "2", "4"}));
  EXPECT_EQ(list_items_of(params, "kinds"), (TextList{"pinned", "wc"}));
  // An older file's text stays one item (never split), and is written back as text.
  EXPECT_EQ(list_items_of(params, "older"), (TextList{"1,2,4"}));
  EXPECT_EQ(list_items_of(params, "absent"), std::nullopt);
  const json again = json::parse(to_json(back).dump());
  EXPECT_EQ(again["results"][0]["findings"][0]["params"]["offsets"], json::array({1, 2, 4}));
  EXPECT_EQ(again["results"][0]["findings"][0]["params"]["kinds"], json::array({"pinned", "wc"}));
  EXPECT_EQ(again["results"][0]["findings"][0]["params"]["older"], "1,2,4");
}

TEST(JsonRead, RejectsResultsNotAnArray) {
  json j = sample_json();
  j["results"] = json::object();
  expect_rejected(j, "results is an object");
  j.erase("results");
  expect_rejected(j, "no results");
}

TEST(JsonRead, RejectsRowWithoutParams) {
  json j = sample_json();
  j["results"][0]["rows"][0].erase("params");
  expect_rejected(j, "row without params");
}

TEST(JsonRead, RejectsMetricWithoutMedian) {
  json j = sample_json();
  j["results"][0]["rows"][0]["metrics"]["bandwidth"].erase("median");
  expect_rejected(j, "metric without median");
}

TEST(JsonRead, RejectsUnknownStatus) {
  json j = sample_json();
  j["results"][1]["status"] = "exploded";
  expect_rejected(j, "unknown status");
  try {
    report_from_json(j, "bad.json");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("exploded"), std::string::npos) << e.what();
  }
}

TEST(JsonRead, RejectsResultWithoutProbe) {
  json j = sample_json();
  j["results"][0].erase("probe");
  expect_rejected(j, "result without probe");
}

TEST(JsonRead, AcceptsMinimalReport) {
  const RunReport r =
      report_from_json(json{{"schema_version", 1}, {"results", json::array()}}, "minimal.json");
  EXPECT_TRUE(r.results.empty());
  EXPECT_TRUE(r.devices.empty());
}

// ---- files --------------------------------------------------------------------------------

class JsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("gpuprobe_json_io_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

  fs::path dir_;
};

TEST_F(JsonFile, WriteOutputWritesTheTextAndLeavesNoTempFile) {
  const fs::path path = dir_ / "out.json";
  const std::string text = to_json(sample_report()).dump(2) + "\n";
  write_output(path.string(), text);
  EXPECT_EQ(slurp(path), text);
  // Overwriting replaces the whole file (a shorter text leaves no tail of the longer one).
  write_output(path.string(), "{}\n");
  EXPECT_EQ(slurp(path), "{}\n");
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
        << "leftover " << entry.path();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(JsonFile, WriteOutputIntoMissingFolderIsARunFailure) {
  const fs::path path = dir_ / "no-such-folder" / "out.json";
  try {
    write_output(path.string(), "{}\n");
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRunFailure);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(JsonFile, ReadJsonFileReadsWhatWasWritten) {
  const fs::path path = dir_ / "r.json";
  write_output(path.string(), to_json(sample_report()).dump(2));
  const json j = read_json_file(path.string());
  EXPECT_EQ(j["schema_version"], 3);
  EXPECT_EQ(report_from_json(j, path.string()).results.size(), 3u);
}

TEST_F(JsonFile, ReadJsonFileMissingIsUsageError) {
  const fs::path path = dir_ / "missing.json";
  try {
    read_json_file(path.string());
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(JsonFile, ReadJsonFileInvalidIsUsageError) {
  const fs::path path = dir_ / "broken.json";
  {
    std::ofstream out(path);
    out << "{\"schema_version\": 1, \"results\": [";
  }
  try {
    read_json_file(path.string());
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(JsonFile, FoldersAreRefusedByName) {
  try {
    read_json_file(dir_.string());
    ADD_FAILURE() << "read a folder";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("folder"), std::string::npos) << e.what();
  }
  try {
    write_output(dir_.string(), "{}\n");
    ADD_FAILURE() << "wrote over a folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRunFailure);
    EXPECT_NE(std::string(e.what()).find("folder"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_));
}

}  // namespace
}  // namespace gpuprobe
