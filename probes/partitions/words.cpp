// partitions' words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::partitions {
namespace {

constexpr TermEntry kTerms[] = {
    {"mode", "mode", "stride: streams a stride apart; transpose: the tiled transpose"},
    {"order", "order", "block order: row, scatter (stride), diagonal (transpose)"},
    {"pad", "pad", "bytes added to the swept stride (0: aligned)"},
    {"stride", "stride", "bytes between the regions the streams read at once"},
    {"n", "n", "transpose matrix side (floats)"},
    {"streams", "streams", "regions read at once (4 per block of 64 threads)"},
    {"region_bytes", "region", "bytes each stream reads"},
    {"steps", "steps", "256-B chunks each stream reads"},
    {"wave_blocks", "wave", "transpose blocks resident at once (SMs x blocks per SM)"},
    {"gt200_partitions", "GT200 parts", "model: GT200 partitions (of 8) the streams hit at once"},
    {"gt200_read_partitions", "GT200 rd", "model: GT200 partitions the first wave reads"},
    {"gt200_write_partitions", "GT200 wr", "model: GT200 partitions the first wave writes"},
    {"gt200_slowdown", "GT200 slow", "model: GT200 slowdown, 8 / partitions hit"},
    {"vs_padded", "vs pad", "aligned bandwidth / the padded stride's (model: GT200's)"},
    {"vs_row", "vs row", "bandwidth / the row order's (model: GT200's)"},
    {"l2_sectors", "L2 sec", "counters: L2 sectors from the SMs"},
    {"dram_bytes", "DRAM", "counters: DRAM bytes read + written"},
    {"fabric_share", "fabric", "counters: L2 sectors over the fabric / L2 sectors"},
    {"l2_slices", "slices", "counters: L2 slices (sum / avg)"},
    {"l2_spread", "L2 spread", "counters: sum / busiest slice (slices an even share needs)"},
    {"l2_imbalance", "L2 imb", "counters: busiest slice / mean slice"},
    {"dram_units", "DRAM units", "counters: DRAM units (sum / avg)"},
    {"dram_spread", "DRAM spread", "counters: sum / busiest DRAM unit"},
    {"dram_imbalance", "DRAM imb", "counters: busiest DRAM unit / mean"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("partitions", kTerms);
}

}  // namespace gpuprobe::partitions
