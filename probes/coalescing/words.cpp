// coalescing's words (host-only): its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::coalescing {
namespace {

constexpr const char* kProbe = "coalescing";
constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"sectors_per_request_counter", "sec ctr",
     "counters: global-load sectors / load requests (l1tex), one launch"},
    {"sectors_per_request_counter_vs_model", "sec c/m",
     "sec ctr / the model's sectors per warp load"},
    {"store_sectors_per_request_counter", "st ctr",
     "counters: global-store sectors / store requests (l1tex), one launch"},
    {"store_sectors_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's sectors per warp store (unit-stride, aligned)"},
    {"l2_sectors_per_request_counter", "L2 ctr",
     "counters: L2 sectors read by L1 / load requests: what L1 sends on"},
    {"l2_sectors_per_request_counter_vs_model", "L2 c/m", "L2 ctr / m.L2 sec"},
    {"l1_hit_sectors_per_request_counter", "L1 hit",
     "counters: load sectors that hit in L1 / load requests"},
    {"l2_sectors_per_request", "m.L2 sec",
     "model: sectors per warp load less the L1 hits counted (what L1 sends on)"},
    {"dram_read_bytes_per_useful_byte_counter", "rd ctr",
     "counters: DRAM bytes read / useful bytes read (N x width)"},
    {"dram_read_bytes_per_useful_byte_counter_vs_model", "rd c/m",
     "rd ctr / m.rd (agrees anywhere from m.rd to m.rd max)"},
    {"dram_read_bytes_per_useful_byte", "m.rd",
     "model: load fetch-block bytes per useful byte, a shared block fetched once"},
    {"dram_read_bytes_per_useful_byte_refetch", "m.rd max",
     "model: the same, a shared block fetched once per request touching it"},
    {"shared_blocks_refetched", "refetch",
     "(rd ctr - m.rd) / (m.rd max - m.rd): share of shared blocks fetched twice"},
    {"dram_write_bytes_per_useful_byte_counter", "wr ctr",
     "counters: DRAM bytes written in the launch's range + written back after it / N x width"},
    {"dram_write_bytes_per_useful_byte_counter_vs_model", "wr c/m", "wr ctr / m.wr"},
    {"dram_write_bytes_per_useful_byte", "m.wr",
     "model: store fetch-block bytes per useful byte written"},
    {"store_sectors_per_request", "st sec",
     "model: distinct 32-B sectors one warp store touches (with counters)"},
    {"element_bytes", "width", "element width in bytes"},
    {"relative_bandwidth", "rel", "bandwidth / that of offset 0 or stride 1 at the same width"},
    {"working_set_over_l2", "ws/L2", "distinct sectors in + out per launch x 32 B / L2 size"},
    {"implied_dram_bandwidth", "DRAM bw", "bandwidth x DRAM-model bytes per useful byte, GB/s"},
    {"sectors_per_request", "sec/req", "model: distinct 32-B sectors one warp load touches"},
    {"lines_per_request", "lin/req", "model: distinct 128-B lines one warp load touches"},
    {"sector_efficiency", "sec eff", "model: useful load bytes / loaded sector bytes"},
    {"predicted_relative_bandwidth", "model",
     "model: baseline ld+st sectors per request / this point's"},
    {"predicted_relative_bandwidth_dram", "DRAM mdl",
     "model: baseline DRAM fetch-block bytes per warp / this point's"},
    {"baseline_bandwidth", "base", "bandwidth of offset 0 / stride 1, GB/s"},
    {"misaligned_mean_relative", "misalign",
     "mean rel of offsets that load more sectors than offset 0"},
    {"model_misaligned_relative", "mdl mis", "sector model for those offsets"},
    {"model_dram_misaligned_relative", "DRAM mis", "DRAM model for those offsets"},
    {"line_misaligned_mean_relative", "line mis",
     "mean rel of 32-B aligned offsets touching more lines than offset 0"},
    {"line_aligned_mean_relative", "aligned",
     "mean rel of other offsets with offset 0's sectors and lines"},
    {"worst_relative_bandwidth", "worst", "lowest rel of the sweep"},
    {"worst_at", "at", "offset or stride of the worst rel, elements"},
    {"model_at_worst", "mdl@w", "sector model at the worst point"},
    {"model_dram_at_worst", "DRAM@w", "DRAM model at the worst point"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms(kProbe, kTerms);
}

}  // namespace gpuprobe::coalescing
