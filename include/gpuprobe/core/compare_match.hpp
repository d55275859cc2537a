// Matching two runs for compare: device pairs, results by probe and device, and rows, summary
// rows and findings by their params (in any order).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// A device in file A compared with a device in file B (`--devices 0:1`).
struct DevicePair {
  int a = 0;
  int b = 0;
  bool operator==(const DevicePair&) const = default;
};

// The GPU indices that have results in a run, and them as text ("0, 2", or "none").
std::set<int> result_devices(const RunReport& report);
std::string device_list(const std::set<int>& devices);

// "GPU 0" when both indices are the same, else "GPU 0 vs 1".
std::string pair_text(const DevicePair& pair);

// A parameter value as matching sees it: 64 and 64.0 are the same, "64" (text) is not.
std::string canonical_scalar(const Scalar& value);
// The identity of a set of params: sorted by key, so the order in the file does not matter.
std::string params_key(const std::vector<Param>& params);
// The identity of a finding within a probe's result: its id and params (in any order), never its
// values or outcome (see Finding). Two runs make "the same finding" when these agree.
std::string finding_key(const Finding& finding);
// Whether a param is a size in bytes: a number whose unit is B, or, without a unit (findings'
// params, files older than param units), named "bytes" or "*_bytes".
bool is_size_param(const Param& param);
// Params for people: "memory=pinned direction=h2d bytes=64 MiB" (a param whose unit is B in IEC
// units; without units, as written: "bytes=67108864").
std::string params_text(const std::vector<Param>& params);

// The device pairs to compare: `requested` when given (each must name a GPU that has results
// in its file, else UsageError naming the file by `a_name`/`b_name`), else every GPU with results
// in A paired with the same index in B.
std::vector<DevicePair> device_pairs(const RunReport& a, const RunReport& b,
                                     const std::vector<DevicePair>& requested,
                                     const std::string& a_name, const std::string& b_name);

// A result of A and its partner in B: same probe, devices as paired.
struct ResultPairing {
  const ProbeResult* a = nullptr;
  const ProbeResult* b = nullptr;
  DevicePair devices;
};

// A result without a partner in the other file.
struct LoneResult {
  const ProbeResult* result = nullptr;
  char side = 'A';     // 'A' or 'B'
  DevicePair devices;  // the pair it would have been compared in
};

struct ResultMatch {
  std::vector<ResultPairing> pairs;  // in A's order
  std::vector<LoneResult> lone;      // A's lone results in A's order, then B's
  std::vector<std::pair<const ProbeResult*, char>> unmeasured;  // no device (--plan), per side
  // results on GPUs that no device pair names, and host-scoped ones under a pair of two GPUs
  std::size_t outside_a = 0;
  std::size_t outside_b = 0;
};

// Pairs results by probe within each device pair; a result of B is used at most once.
ResultMatch match_results(const RunReport& a, const RunReport& b,
                          const std::vector<DevicePair>& pairs);

// Items of A and B matched by key: equal keys pair up in file order, each item used once.
struct KeyMatch {
  std::vector<std::pair<std::size_t, std::size_t>> matched;  // (index in A, index in B)
  std::vector<std::size_t> only_a;
  std::vector<std::size_t> only_b;
};
KeyMatch match_keys(const std::vector<std::string>& keys_a, const std::vector<std::string>& keys_b);

// A row's identity without the sizes that scale with the GPU: when some param is a share (unit
// %), the params in bytes (unit B) are left out. l2-persist's "setaside_pct=100 hot_pct=200" is
// then one row on an H100 (32 MiB set aside) and an H200 (37.5 MiB).
std::string scale_free_key(const std::vector<Param>& params);

// Rows and summary rows match by their params; findings by id and params. Rows left unmatched on
// both sides are matched again by scale_free_key.
KeyMatch match_rows(const std::vector<Row>& a, const std::vector<Row>& b);
KeyMatch match_summaries(const std::vector<SummaryRow>& a, const std::vector<SummaryRow>& b);
KeyMatch match_findings(const std::vector<Finding>& a, const std::vector<Finding>& b);

}  // namespace gpuprobe
