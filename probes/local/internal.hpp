// local's analysis internals (host-only): the variants of one (kernel, carve-out) that
// analysis.cpp derives and findings.cpp turns into findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::local {

// One register cap's row, read by name.
struct Variant {
  Row* row = nullptr;
  std::int64_t cap = 0;
  double registers = 0, local_bytes = 0, blocks = 0, occupancy = 0;
  double threads = 0, steps = 0, touches = 0;
  const Metric* time = nullptr;  // the repetition's time: the same work at every cap
  double step_time = 0;          // ps
  double footprint = 0;          // model: bytes of stack frames resident per SM
  std::optional<double> l1_hit;  // counters: local load sectors that hit L1
};

// The caps of one (kernel, carve-out), in row order, and the unspilled baseline among them.
struct Group {
  std::string kernel;
  std::int64_t carveout = 0;
  std::vector<Variant> variants;
  std::optional<std::size_t> base;  // index of the baseline in variants
  std::optional<double> l1_bytes;   // the L1 the carve-out leaves (model)
};

// The baseline: the compiler's own choice (cap 0) when it spills nothing, else the unspilled
// variant with the most registers; nullopt when every variant spills.
std::optional<std::size_t> baseline(const std::vector<Variant>& variants);
// The variant the trade-off is decided on: of those with more resident blocks than the
// baseline, the fastest (lowest median time); nullopt when none has more.
std::optional<std::size_t> traded(const Group& g);
// The footprints served by L1 (hit rate at least kL1Served) and not, from the variants with
// counters and spills: the largest that was, the smallest that was not.
struct L1Fit {
  std::optional<std::size_t> largest_in, smallest_out;
  std::size_t with_counters = 0;
};
L1Fit l1_fit(const Group& g);

void add_findings(ProbeResult& result, const std::vector<Group>& groups, const RunFacts& facts);
const FindingList& finding_list();
extern const CounterAgreementMaker kCounterLoads;
extern const CounterAgreementMaker kCounterStores;

}  // namespace gpuprobe::local
