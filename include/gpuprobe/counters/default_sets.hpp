// The metrics each probe collects by default (GH100 names, verified in unit tests).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::counters::defaults {

// SM clock during the counter pass; added to every session (cycles per second).
inline constexpr std::string_view kSmClock = "sm__cycles_elapsed.avg.per_second";

// Always collected beside a probe's set: range duration (spans the whole push..pop range, a
// cross-check, never a kernel time), SM clock and DRAM clock.
inline constexpr std::array<std::string_view, 3> kCompanions = {
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
};

// transfer: bytes that crossed PCIe during the range. Device-wide counters (they also count
// other traffic on the link), so CUPTI puts them in a configuration of their own.
inline constexpr std::array<std::string_view, 2> kTransfer = {
    "pcie__read_bytes.sum",
    "pcie__write_bytes.sum",
};

// coalescing: global-load requests and the sectors they touched (sectors per request), L2
// sectors from L1, DRAM bytes, useful bytes per sector. 4 passes on GH100.
inline constexpr std::array<std::string_view, 9> kCoalescing = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
};

// bank-conflicts: shared load/store instructions, wavefronts and bank conflicts. 1 pass.
inline constexpr std::array<std::string_view, 6> kBankConflicts = {
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};

// Names of the probes that have a default set: "transfer", "coalescing", "bank-conflicts".
std::vector<std::string> probes_with_defaults();

// The probe's set followed by the companions (no duplicates, in that order). Throws
// UsageError naming the probe when it has no default set.
std::vector<std::string> metrics_for_probe(std::string_view probe);

}  // namespace gpuprobe::counters::defaults
