// local's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::local {
namespace {

constexpr TermEntry kTerms[] = {
    {"kernel", "kernel", "compute: values updated every step; memory: values kept across a chase"},
    {"carveout", "carve", "shared-memory carve-out, % of the most (the L1 keeps the rest)"},
    {"max_registers", "cap", "register cap compiled in (__maxnreg__); 0: the compiler's choice"},
    {"step_time", "step", "time per thread-step over the whole GPU (ps)"},
    {"registers", "regs", "registers per thread of the compiled function (numRegs)"},
    {"local_bytes", "spill", "stack frame per thread of the compiled function (localSizeBytes)"},
    {"blocks_per_sm", "blk/SM", "resident blocks per SM (cudaOccupancyMaxActiveBlocks...)"},
    {"occupancy", "occ", "resident warps / the SM's most"},
    {"threads", "thr", "threads launched"},
    {"steps", "steps", "steps per thread (compute) or chase loads per thread (memory)"},
    {"touches", "touch", "times each spilled byte is stored and loaded per thread"},
    {"slowdown", "slow", "time / the unspilled baseline's time (model: from the spill cost)"},
    {"extra_step_time", "+step", "step time over the baseline's (ps)"},
    {"spill_load_sectors", "ld sec", "model: stack frame x threads x touches / 32 B"},
    {"spill_store_sectors", "st sec", "model: as the loads"},
    {"spill_footprint", "frames/SM", "model: stack frame x resident threads per SM"},
    {"l1_bytes", "L1", "model: the L1 the carve-out leaves per SM"},
    {"spill_cost", "cost", "model: spill traffic per thread-step at the L1 path or latency (ps)"},
    {"chase_step_time", "chase", "model: latency-bound chase, waves x steps x L2 latency (ps)"},
    {"local_l1_hit", "L1hit", "counters: local load sectors that hit L1"},
    {"l2_sectors", "L2 sec", "counters: L2 sectors read + written from the SMs"},
    {"dram_bytes", "DRAM", "counters: DRAM bytes read + written"},
    {"achieved_occupancy", "ach", "counters: active warps / the most, while active"},
    {"local_load_sectors", "ld ctr", "counters: local load sectors"},
    {"local_store_sectors", "st ctr", "counters: local store sectors"},
    {"local_load_sectors_vs_model", "ld c/m", "ld ctr / m.ld sec"},
    {"local_store_sectors_vs_model", "st c/m", "st ctr / m.st sec"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("local", kTerms);
}

}  // namespace gpuprobe::local
