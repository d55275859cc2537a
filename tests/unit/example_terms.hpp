// Short column labels proposed for the current probes' columns, as their analyses will register
// them (probes/<name>/analysis.cpp); the renderer tests use them on real H100 output.
#pragma once

#include "gpuprobe/core/glossary.hpp"

namespace gpuprobe::testing {

// Keys: "<name>" for params and metrics, "derived.<name>", "model.<name>" (the renderer puts
// "m." before a model label) and "summary.<name>" where the meaning differs from the row's.
inline void add_example_terms(Glossary& g) {
  // transfer
  g.add_term(
      "transfer", "model.fit_bandwidth",
      {"fit", "model: bandwidth of the fit time = latency + bytes / bandwidth at this size"});
  g.add_term("transfer", "bandwidth_h2d", {"h2d GB/s", "bidir: the host-to-device part"});
  g.add_term("transfer", "bandwidth_d2h", {"d2h GB/s", "bidir: the device-to-host part"});
  g.add_term("transfer", "summary.fit_bandwidth",
             {"fit GB/s", "asymptotic bandwidth of the fit time = latency + bytes / bandwidth"});
  g.add_term("transfer", "summary.latency", {"latency", "latency of the fit (time at 0 bytes)"});
  g.add_term("transfer", "summary.half_bandwidth_size",
             {"half-bw size", "size at which the fit reaches half its asymptotic bandwidth"});
  g.add_term("transfer", "summary.fit_rms_error",
             {"fit err", "rms relative error of the fit over the sizes"});
  g.add_term("transfer", "summary.largest_size_bandwidth",
             {"GB/s @max", "bandwidth measured at the largest size"});
  g.add_term("transfer", "summary.ratio",
             {"ratio", "bandwidth of the first memory kind / the second at that size"});

  // coalescing
  g.add_term("coalescing", "derived.relative_bandwidth",
             {"rel", "bandwidth / that of offset 0 (stride 1) at the same element width"});
  g.add_term("coalescing", "derived.working_set_over_l2",
             {"WS/L2", "working set (distinct sectors read + written per launch) / L2 size"});
  g.add_term("coalescing", "derived.implied_dram_bandwidth",
             {"DRAM GB/s", "bandwidth x DRAM-model bytes per useful byte"});
  g.add_term("coalescing", "model.sectors_per_request",
             {"sect/req", "model: distinct 32-B sectors one warp load touches"});
  g.add_term("coalescing", "model.lines_per_request",
             {"ln/req", "model: distinct 128-B lines one warp load touches"});
  g.add_term("coalescing", "model.sector_efficiency",
             {"eff", "model: useful bytes / bytes of the sectors touched"});
  g.add_term("coalescing", "model.predicted_relative_bandwidth",
             {"rel", "model: relative bandwidth from load + store sectors per request"});
  g.add_term("coalescing", "model.predicted_relative_bandwidth_dram",
             {"rel DRAM", "model: relative bandwidth from distinct DRAM fetch blocks"});
  g.add_term("coalescing", "summary.baseline_bandwidth",
             {"base GB/s", "bandwidth at offset 0 / stride 1"});
  g.add_term("coalescing", "summary.misaligned_mean_relative",
             {"misal", "mean relative bandwidth of the misaligned offsets"});
  g.add_term("coalescing", "summary.model_misaligned_relative",
             {"m.misal", "model: the same from sectors"});
  g.add_term("coalescing", "summary.model_dram_misaligned_relative",
             {"m.misal DRAM", "model: the same from DRAM fetch blocks"});
  g.add_term("coalescing", "summary.line_misaligned_mean_relative",
             {"ln misal", "mean relative bandwidth of the offsets that touch more lines"});
  g.add_term("coalescing", "summary.line_aligned_mean_relative",
             {"ln align", "mean relative bandwidth of the offsets that touch as many lines"});
  g.add_term("coalescing", "summary.worst_relative_bandwidth",
             {"worst", "lowest relative bandwidth"});
  g.add_term("coalescing", "summary.worst_at", {"at", "offset or stride of the worst"});
  g.add_term("coalescing", "summary.model_at_worst",
             {"m.worst", "model: relative bandwidth there, from sectors"});
  g.add_term("coalescing", "summary.model_dram_at_worst",
             {"m.worst DRAM", "model: relative bandwidth there, from DRAM fetch blocks"});

  // bank-conflicts
  g.add_term("bank-conflicts", "derived.relative_to_copy",
             {"rel copy", "bandwidth / that of the copy kernel"});
  g.add_term("bank-conflicts", "model.conflict_ways",
             {"ways", "model: bank-conflict degree of the column accesses (1 = none)"});
  g.add_term("bank-conflicts", "model.load_conflict_ways",
             {"ld ways", "model: bank-conflict degree of the shared loads"});
  g.add_term("bank-conflicts", "model.store_conflict_ways",
             {"st ways", "model: bank-conflict degree of the shared stores"});
  g.add_term("bank-conflicts", "derived.slowdown",
             {"slowdown", "time per request / that at stride 1"});
  g.add_term("bank-conflicts", "derived.cycles_per_request",
             {"cyc/req", "SM cycles per warp-wide shared request (time x SM clock)"});
  g.add_term("bank-conflicts", "model.wavefronts_per_request",
             {"wavef/req", "model: shared-memory wavefronts per warp request"});
  g.add_term("bank-conflicts", "model.predicted_slowdown",
             {"slowdown", "model: wavefronts per request / those at stride 1"});
  g.add_term("bank-conflicts", "summary.bandwidth_ratio",
             {"ratio", "bandwidth of the first kernel / the second"});
  g.add_term("bank-conflicts", "summary.stride1_bandwidth", {"s1 GB/s", "bandwidth at stride 1"});
  g.add_term("bank-conflicts", "summary.stride1_cycles_per_request",
             {"s1 cyc/req", "SM cycles per request at stride 1"});
  g.add_term("bank-conflicts", "summary.max_slowdown",
             {"max slowdown", "largest slowdown over the strides"});
  g.add_term("bank-conflicts", "summary.model_max_slowdown",
             {"m.max slowdown", "model: the same, predicted"});
}

}  // namespace gpuprobe::testing
