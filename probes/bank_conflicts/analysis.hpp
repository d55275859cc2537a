// bank-conflicts' analysis (host-only, tested in CI): the model beside each row, measured rows ->
// ratios to copy, slowdowns, cycles per request, summary rows (analysis.cpp); its findings and
// words (findings.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::bank {

// The shared-memory counters the probe collects (full CUPTI names), over one launch of the row's
// kernel. kCounterMetrics lists them in the order asked for; the analysis reads the named ones.
inline constexpr std::string_view kLoadInstructions = "smsp__inst_executed_op_shared_ld.sum";
inline constexpr std::string_view kStoreInstructions = "smsp__inst_executed_op_shared_st.sum";
inline constexpr std::string_view kLoadWavefronts =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr std::string_view kStoreWavefronts =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr std::string_view kLoadBankConflicts =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr std::string_view kStoreBankConflicts =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr std::array<std::string_view, 6> kCounterMetrics = {
    kLoadInstructions, kStoreInstructions, kLoadWavefronts,
    kStoreWavefronts,  kLoadBankConflicts, kStoreBankConflicts};

// The transpose ladder, in the order it is measured (`kernel` param of the ladder rows).
inline constexpr const char* kLadderKernels[] = {"copy", "naive", "tiled", "padded", "swizzled"};

// The model columns of a ladder row: conflict degree of the tile's column reads (loads) and row
// writes (stores), by the model applied to the kernel's own index expression; null for kernels
// without a tile (copy, naive).
std::vector<Quantity> ladder_model(const std::string& kernel);
// The model columns of a stride row, evaluated for the row's op ("load" or "store").
std::vector<Quantity> stride_model(const std::string& op, std::uint64_t stride, int element_bytes);

// How the stride kernel of one (op, width) was launched: one full wave of blocks on every SM.
struct StrideShape {
  std::string op;  // "load" or "store"
  int element_bytes = 0;
  int blocks_per_sm = 0;  // resident blocks per SM (occupancy API)
  int threads_per_block = 0;
  double instructions_per_warp = 0;  // warp-wide shared instructions each warp executes
};

// What the analysis needs besides the rows, as plain values from the device and the run.
struct Inputs {
  int sm_count = 0;
  double l2_bytes = 0;  // 0: unknown
  // SM clock sampled in a kernel before and after the stride sweep (0: not sampled), and the
  // rated maximum, used when a sample is missing.
  double sweep_clock_before_mhz = 0;
  double sweep_clock_after_mhz = 0;
  double sm_clock_max_mhz = 0;
  std::vector<StrideShape> shapes;  // one per (op, width) measured
  // Bandwidth (GB/s) of copy measured once more after the ladder: not a row, it shows whether
  // the baseline of every ratio moved while the ladder ran. nullopt: not measured.
  std::optional<Metric> copy_repeat;
};

// Reads the measured rows of `result` by name: ladder rows (params kernel, size; metric
// bandwidth) and stride rows (params op, element_bytes, stride; metrics bandwidth and
// time_per_instruction; model predicted_slowdown), and adds:
//   ladder: derived relative_to_copy; summary rows of bandwidth ratios (padded ÷ tiled, ...);
//           condition working_set_over_l2; findings bank_padded_vs_tiled,
//           bank_swizzled_vs_padded, bank_source_claim, bank_copy_repeat,
//           bank_transpose_beats_copy, bank_ladder_fits_l2;
//   strides: derived slowdown and cycles_per_request; condition stride_sweep_sm_clock; a summary
//           row per (op, width); findings bank_stride_slowdowns, bank_stride_model_agreement,
//           bank_stride_model_miss, bank_no_stride1, bank_stride_shape, bank_cycles_method,
//           bank_counters_not_collected.
// Rows with counters (one launch of the row's kernel) also get, in derived, the counter-measured
// wavefronts per instruction beside the model's (`<name>`, `<name>_vs_model`: ladder
// load_/store_wavefronts_per_request_counter, null for copy and naive; strides
// wavefronts_per_request_counter, of the row's op), flag ctr-vs-model where one is more than 5%
// off, and findings bank_counter_{ladder_loads,ladder_stores,stride}; bank_counters_not_collected
// only when no stride row has counters.
// Either part may be absent. Verdicts come first, then the counter findings, then notes.
void analyse(ProbeResult& result, const Inputs& inputs);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::bank
