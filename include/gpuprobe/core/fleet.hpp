// `gpuprobe fleet`: the same probes' results from many nodes or GPUs side by side — per row the
// fleet's median and spread, and the members beyond it, named by host and GPU (host-only).
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// One result file of the fleet.
struct FleetMember {
  std::string file;
  RunReport report;
};

struct FleetOptions {
  // An outlier lies more than k robust standard deviations (1.4826 x the median absolute
  // deviation) from the fleet's median ...
  double k = 4.0;
  // ... and more than this share of the median away from it (so a fleet of nearly identical
  // GPUs does not call 0.3% an outlier).
  double min_deviation = 0.03;
  // The metrics compared, by name (--metric; empty: a row's `bandwidth` when it has one, else
  // all of its metrics).
  std::vector<std::string> value_names;
  // A GPU is an outlier in a probe when more than this share of its values there are beyond the
  // fleet: a slow link or slow memory moves most rows, run-to-run noise only a few.
  double max_outlier_share = 0.10;
};

// Fewer GPUs than this in a row: its median and spread are shown, no member is judged.
inline constexpr std::size_t kFleetMinMembers = 3;

// Every member's GPUs, grouped by product (the device's name) and judged within it; results matched
// by probe and row params (GPU i of one file is a member of its own: a node's several GPUs are
// several members). A GPU is its UUID (without one: its index in its file), so several runs of
// one GPU are one GPU: a row is judged only among kFleetMinMembers GPUs or more, and a GPU's
// values are tallied over all its runs. One result per product and probe (params `gpu`: the
// product): rows with params (plus `metric`) and derived fleet_median, spread (robust relative, %),
// fleet_min, fleet_max, members (runs), gpus and beyond (values beyond the fleet); findings:
// fleet_outlier (warning: a GPU with more than max_outlier_share of its values in the probe beyond
// the fleet), fleet_beyond (note: one value beyond the fleet), fleet_summary (verdict: files, GPUs,
// models, runs), fleet_model (note: a product's GPUs and runs) and fleet_incomplete (note: GPUs of
// the product without a result of the probe).
RunReport fleet_report(const std::vector<FleetMember>& members, const FleetOptions& options);

// How many fleet_outlier findings (GPUs beyond the fleet in some probe) a fleet report holds.
std::size_t fleet_outlier_count(const RunReport& report);

// The fleet findings' phrasings and its columns' short headers.
Glossary fleet_glossary();

}  // namespace gpuprobe
