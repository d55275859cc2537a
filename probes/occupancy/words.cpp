// occupancy's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::occupancy {
namespace {

constexpr TermEntry kTerms[] = {
    {"op", "op", "read, write or copy (copy: bytes read + written counted)"},
    {"warps", "warps", "resident warps per SM asked for"},
    {"ilp", "ilp", "independent accesses in flight per thread"},
    {"width", "width", "bytes per access"},
    {"bytes_in_flight", "in flight", "bytes in flight per SM: warps x 32 x ilp x width"},
    {"block_threads", "thr/blk", "threads per block"},
    {"blocks_per_sm", "blk/SM", "resident blocks per SM (cudaOccupancyMaxActiveBlocks...)"},
    {"shared_bytes", "smem", "dynamic shared memory per block: what limits the blocks per SM"},
    {"registers", "regs", "registers per thread of the compiled function (numRegs)"},
    {"registers_per_sm", "regs/SM", "registers per thread x resident threads per SM"},
    {"occupancy", "occ", "theoretical occupancy: resident warps / the SM's most (%)"},
    {"streamed_bytes", "streamed", "bytes read + written by one repetition"},
    {"of_plateau", "of plat", "bandwidth / the op's plateau"},
    {"implied_latency", "lat", "latency Little's law implies at this point (ns)"},
    {"achieved_occupancy", "ach", "counters: active warps / the most, while active (%)"},
    {"dram_bytes", "DRAM", "counters: DRAM bytes read + written"},
    {"achieved_occupancy_vs_model", "ach c/m", "ach / occ: achieved over theoretical occupancy"},
    {"dram_bytes_vs_model", "DRAM c/m", "DRAM / streamed: DRAM bytes per byte streamed"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("occupancy", kTerms);
}

}  // namespace gpuprobe::occupancy
