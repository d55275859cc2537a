// cache's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::cache {
namespace {

constexpr TermEntry kTerms[] = {
    {"scope", "scope", "shared: shared memory per block; sm: one ring per SM; device: one ring"},
    {"op", "op", "read, write, or copy (read + write bytes)"},
    {"working_set_bytes", "set", "working set: per SM (shared, sm) or across the GPU (device)"},
    {"bytes_moved", "moved", "bytes one repetition reads and writes"},
    {"l1_hit_rate", "L1hit", "counters: global load sectors that hit L1"},
    {"l2_hit_rate", "L2hit", "counters: L2 read sectors from the SMs that hit"},
    {"dram_bytes_per_byte", "DRAM/B", "counters: DRAM bytes read + written per byte moved"},
    {"l1_peak", "L1 pk", "model: 128 B/clk/SM x SMs x measured clock"},
    {"dram_peak", "DRAM pk", "model: 2 x memory clock x bus width"},
    {"plateau", "plateau", "median bandwidth over the plateau's sizes"},
    {"plateau_low", "lo", "lowest 95% bound of a plateau size's median"},
    {"plateau_high", "hi", "highest 95% bound of a plateau size's median"},
    {"from_bytes", "from", "smallest size of the plateau"},
    {"to_bytes", "to", "largest size of the plateau"},
    {"model_peak", "model", "the model's peak for the level"},
    {"knee_bytes", "knee", "working set where bandwidth is halfway between plateaus"},
    {"level", "level", "the level a plateau's sizes put it at"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("cache", kTerms);
}

}  // namespace gpuprobe::cache
