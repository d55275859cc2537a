// The result model: run -> devices -> probe results -> rows of params, metrics, model values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {

// A list of integers or of texts, for a param that names a set (offsets 1, 2, 4; widths 4, 8).
// JSON carries it as an array; people read it as the CLI's list syntax, "1,2,4".
using IntList = std::vector<std::int64_t>;
using TextList = std::vector<std::string>;

// A parameter value as echoed into results: null, bool, integer, real, text or a list.
using Scalar =
    std::variant<std::monostate, bool, std::int64_t, double, std::string, IntList, TextList>;

// An IntList of any range of integers (std::uint64_t offsets, int widths).
template <typename Range>
IntList int_list(const Range& values) {
  IntList out;
  for (const auto v : values)
    out.push_back(static_cast<std::int64_t>(v));
  return out;
}

// One named parameter. `unit` is informational ("B" makes tables print sizes as KiB/MiB);
// JSON and CSV always carry the raw value.
struct Param {
  std::string key;
  Scalar value;
  std::string unit;
};

// A measured quantity with statistics over its samples ("bandwidth" in GB/s, "time" in s).
struct Metric {
  std::string name;
  std::string unit;
  Statistics stats;
  // The raw values behind `stats`, in `unit`, grouped by measurement round: samples[r] holds the
  // values taken in round r, in the order taken. Empty where not recorded (schema 1 and 2 files,
  // values made without samples).
  std::vector<std::vector<double>> samples;
};

// A single value with a unit: a model prediction, a value derived from metrics, a summary
// figure or a measurement condition. nullopt means "not available" (JSON null).
struct Quantity {
  std::string name;
  std::string unit;
  std::optional<double> value;
};

// One sweep point of a probe.
struct Row {
  std::vector<Param> params;
  std::vector<Metric> metrics;
  std::vector<Quantity> derived;  // computed from this and other rows' metrics (ratios)
  std::vector<Quantity> model;    // first-principles predictions for this point
  std::optional<std::vector<Quantity>> counters;  // hardware counters; nullopt = not collected
  std::vector<std::string> flags;  // e.g. "noisy" (time cap hit above the noise bound)
};

// A planned sweep point: its params (and flags), nothing measured or predicted yet.
Row unmeasured_row(std::vector<Param> params, std::vector<std::string> flags = {});

// A figure that summarises several rows (a fit per memory kind, a ratio at the largest size).
struct SummaryRow {
  std::vector<Param> params;
  std::vector<Quantity> values;
};

// What a finding is: a measured conclusion, a remark on method or sizing, or something that
// makes the numbers less trustworthy (a throttled clock, a dropped sweep point).
enum class FindingKind { kVerdict, kNote, kWarning };
const char* finding_kind_name(FindingKind kind) noexcept;  // "verdict", "note", "warning"
// Parses a finding kind name; nullopt when unknown.
std::optional<FindingKind> finding_kind_from_name(const std::string& name);

// A conclusion as data: which finding (`id`, unique within a probe), what it is about
// (`params`), its numbers (`values`, each with a unit) and where the measurement put it
// (`outcome`). `text` is the sentence rendered from all of them by the finding's phrasing
// (include/gpuprobe/core/glossary.hpp); probes leave it empty, the runner fills it, and JSON
// carries both.
//
// A finding's identity is its probe, id and params, never a measured value (finding_key in
// compare_match.hpp): `params` only scope the claim (pattern, element width, memory kind,
// direction), so the same claim has the same identity in every run. Anything the measurement
// decides goes into `values` (numbers) or `outcome` (where an extreme lies — the worst offset,
// the highest row — or which way a comparison went), which a run may change without the finding
// becoming another one.
// The outcome entries that record a decision (how a tolerance or a comparison came out); the
// others locate an extreme (the worst row). compare reports a matched finding whose decision
// changed; where an extreme lies moves with noise and is not reported on its own.
bool is_decision_key(const std::string& key);

struct Finding {
  std::string id;
  FindingKind kind = FindingKind::kNote;
  std::vector<Param> params;
  std::vector<Quantity> values;
  std::string text;
  std::vector<Param> outcome;
};

// The order findings are shown in, declared once for every probe: verdicts, then warnings, then
// notes, each kind in the order the analysis made them (a stable sort). The runner applies it to
// every result and plan, so an analysis need not bucket its findings by kind.
void order_findings(std::vector<Finding>& findings);

// What became of a probe's counter pass: collected, switched off (--no-counters), refused by the
// system (permissions, another profiler, a virtualised GPU, CUPTI missing), or not asked for
// (the probe names no counters and --metrics named none).
enum class CounterState { kCollected, kOff, kRefused, kNone };
const char* counter_state_name(CounterState state) noexcept;  // "collected", "off", ...
std::optional<CounterState> counter_state_from_name(const std::string& name);

// The counter pass of one probe result. Rows carry the values (Row::counters).
struct CounterStatus {
  CounterState state = CounterState::kOff;
  std::string chip;                  // "GH100", when CUPTI got that far
  std::vector<std::string> metrics;  // every metric asked for, in order
  std::size_t passes = 0;            // replay passes per sweep point (when collected)
  std::string reason;                // why not collected; empty when collected
  std::string hint;                  // how to enable them, when refused
};

enum class Status { kOk, kFailed, kSkipped, kPlanned };
const char* status_name(Status status) noexcept;

// Everything one probe produced on one device (or, with --plan, without a device).
struct ProbeResult {
  std::string probe;
  std::optional<int> device;  // nullopt for --plan
  // The GPUs a host-scoped probe (peer) spanned, `device` (the harness's) first; their facts are
  // the run's `devices`. Empty for a device-scoped probe's result and in older files.
  std::vector<int> devices;
  // What the result is about when that is more than one GPU (compare: "A GPU 0: … vs B GPU 0:
  // …"); headings show it in place of the device. Empty for a probe's own result.
  std::string subject;
  Status status = Status::kOk;
  std::string reason;         // why failed/skipped; empty when ok
  std::string method;         // one line: what is timed and how bytes are counted
  std::vector<Param> params;  // the probe's run parameters, echoed
  std::vector<Row> rows;
  std::vector<SummaryRow> summary;
  std::vector<Quantity> conditions;  // clocks, working set / L2, ... measured around the run
  std::vector<Finding> findings;     // verdicts, notes and warnings, as data
  // The counter pass; nullopt where none was attempted (a plan, a failed probe, older files).
  std::optional<CounterStatus> counter_status;
};

struct ToolInfo {
  std::string name = "gpuprobe";
  std::string version;
  std::string git;
};

struct HostInfo {
  std::string hostname;
  std::string cpu;
  std::optional<int> driver_version;   // CUDA driver API version, e.g. 13000
  std::optional<int> runtime_version;  // CUDA runtime version, e.g. 13000
};

// One GPU's link to another GPU of the host, as NVML reports it (runtime/link_facts.hpp). Unknown
// facts stay 0 / empty: NVML absent, too old, or refusing the query.
struct PeerLinkInfo {
  int peer = 0;                     // the other GPU's CUDA index
  std::string peer_pci_bus_id;      // as CUDA names it
  int nvlink_generation = 0;        // 1..5; 0: no active NVLink to the peer, or unknown
  int nvlinks = 0;                  // active NVLinks that reach the peer (directly or via NVSwitch)
  bool via_nvswitch = false;        // those links end at an NVSwitch, not at the peer itself
  double nvlink_gbps_per_link = 0;  // NVML's per-link rate, one direction, GB/s; 0: not given
  // The closest common PCIe ancestor: "same board", "one PCIe switch", "PCIe switches",
  // "host bridge", "same NUMA node", "across sockets"; "" when unknown.
  std::string topology;
  // NVML's P2P status per capability: "ok", "not supported", "chipset not supported", "GPU not
  // supported", "topology not supported", "disabled by regkey", "unknown"; "" when not asked.
  std::string p2p_read, p2p_write, p2p_nvlink, p2p_atomics;
};

// Static facts about one GPU, read from the driver. Clocks are the maximum rated clocks.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::string compute_capability;
  int sm_count = 0;
  std::int64_t sm_clock_khz = 0;
  std::int64_t memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  std::uint64_t total_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t persisting_l2_max_bytes = 0;
  std::uint64_t access_policy_max_window_bytes = 0;
  std::uint64_t shared_memory_per_sm_bytes = 0;
  std::uint64_t shared_memory_per_block_optin_bytes = 0;
  int async_engine_count = 0;
  bool can_map_host_memory = false;
  bool integrated = false;
  bool ecc_enabled = false;
  // PCIe link as the OS reports it (0 when unknown, e.g. in some VMs).
  double pcie_link_gts = 0;  // GT/s per lane: 2.5, 5, 8, 16, 32, 64
  int pcie_link_width = 0;   // lanes
  // Where the link facts come from: "nvml" (NVML answered), "sysfs" (PCIe speed/width only), ""
  // (unknown, or a file written before link facts). NVML's PCIe link: generation now and the most
  // this GPU and slot train to (0 when unknown); a GPU idles at a lower generation.
  std::string link_source;
  int pcie_generation = 0;
  int pcie_max_generation = 0;
  int pcie_max_width = 0;
  std::optional<int> numa_node;  // NVML's NUMA node of the GPU
  std::string cpu_affinity;      // the CPUs near the GPU, "0-31,64-95" ("" when unknown)
  std::string nvml_unavailable;  // why NVML gave no facts ("" when it did, or was not asked)
  std::vector<PeerLinkInfo> peer_links;  // to every other visible GPU, from NVML
  // 2 * memory clock * bus width: an estimate from attributes, never a measurement.
  double peak_dram_estimate_gbps = 0;
};

// One side of a comparison (compare's output): what it was made from, for the header. Tool, host,
// start time and devices are those of the side's first file.
struct ComparedSide {
  std::string label;               // "A" or "B"
  std::vector<std::string> files;  // the side's result files, in order
  ToolInfo tool;
  HostInfo host;
  std::string started_at;
  std::vector<DeviceInfo> devices;
};

// Expectations (--expect; evaluated by core/expect.hpp).
// A comparison: in selectors all six, in bounds the four orderings.
enum class Relation { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };
const char* relation_text(Relation relation) noexcept;  // "<", "<=", ">", ">=", "=", "!="

enum class ExpectState { kPass, kInconclusive, kFail, kUnmatched, kError };
const char* expect_state_name(ExpectState state) noexcept;  // "pass", ..., "unmatched", "error"

// One value tested against its bound (JSON: an entry of an expectation's "checks").
struct BoundTest {
  std::string probe;
  std::optional<int> device;
  std::vector<Param> params;  // the row's, summary row's or finding's params
  std::string name;
  std::string unit;
  double measured = 0;                     // a metric's median, or the value
  std::optional<double> low;               // a metric with samples: the 95% interval of its median
  std::optional<double> high;              // (compare's bootstrap, the run-level term included)
  double bound = 0;                        // in `unit`
  ExpectState state = ExpectState::kPass;  // pass, inconclusive or fail
};

// How one expectation went: fail when a checked value is beyond its bound (for a metric with
// samples: its median beyond it and the whole interval too; a median beyond it with the interval
// reaching it is inconclusive, not a failure); unmatched when nothing in the run matched (a probe
// skipped or failed); error when the bound cannot be formed (no such value, units that do not
// convert, a reference matching several values). bound_tests: every value tested (JSON "checks").
struct ExpectationResult {
  std::string expression;
  std::string origin;
  Relation relation = Relation::kGreaterEqual;  // value RELATION bound
  ExpectState state = ExpectState::kPass;
  std::string reason;  // unmatched and error: why
  std::vector<BoundTest> bound_tests;
};

struct RunReport {
  // The schema this report was written in (3 for reports made by this build; 1 and 2 for older
  // files read back: schema 1 findings are prose only, schema 1 and 2 metrics have no samples).
  int schema_version = 3;
  ToolInfo tool;
  std::vector<std::string> command;
  std::string started_at;  // UTC, ISO 8601
  HostInfo host;
  std::vector<DeviceInfo> devices;
  // compare's output only: the two sides compared (headers show both); empty otherwise.
  std::vector<ComparedSide> sides;
  std::vector<ProbeResult> results;
  // The run's expectations and how each went (--expect, --expect-file); empty without them.
  std::vector<ExpectationResult> expectations;
};

// Lookups used by probes, renderers and tests. Return nullptr when absent.
const Param* find_param(const std::vector<Param>& params, const std::string& key);
const Metric* find_metric(const Row& row, const std::string& name);
const Quantity* find_quantity(const std::vector<Quantity>& values, const std::string& name);
const Finding* find_finding(const ProbeResult& result, const std::string& id);

// Typed readers of a row's params and metrics, for analyses. Each returns nullopt when the entry
// is absent or holds another type; int_param_of reads integers only, text_param_of text only,
// number_param_of an integer or a real (as a double). metric_median is the median of a metric's
// statistics; quantity_value the value of a derived or model value (or a condition) by name,
// nullopt also when it is null. The param readers read any list of params too (a summary
// row's). (The `_of` names read; Param builders elsewhere are named without it.)
std::optional<std::int64_t> int_param_of(const std::vector<Param>& params, std::string_view key);
std::optional<std::string> text_param_of(const std::vector<Param>& params, std::string_view key);
std::optional<double> number_param_of(const std::vector<Param>& params, std::string_view key);
std::optional<std::int64_t> int_param_of(const Row& row, std::string_view key);
std::optional<std::string> text_param_of(const Row& row, std::string_view key);
std::optional<double> number_param_of(const Row& row, std::string_view key);
std::optional<double> metric_median(const Row& row, std::string_view name);
std::optional<double> quantity_value(const std::vector<Quantity>& values, std::string_view name);
// A list param's items as text (an IntList's numbers, a TextList's texts); any other value is one
// item, its scalar_text; nullopt when absent. Older files carry lists as one text ("1,2,4"): that
// stays one item, never split.
std::optional<TextList> list_items_of(const std::vector<Param>& params, std::string_view key);

// Renders a scalar for a person ("pinned", "64", "0.5", "true", "" for null, "1,2,4" for a list).
std::string scalar_text(const Scalar& value);

}  // namespace gpuprobe
