// bank-conflicts' words (host-only): its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::bank {
namespace {

constexpr const char* kProbe = "bank-conflicts";
constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"wavefronts_per_request_counter", "wf ctr",
     "counters: shared wavefronts / instructions of the row's op, one launch"},
    {"wavefronts_per_request_counter_vs_model", "wf c/m",
     "wf ctr / the model's wavefronts per request"},
    {"load_wavefronts_per_request_counter", "ld ctr",
     "counters: shared-load wavefronts / load instructions, one launch"},
    {"load_wavefronts_per_request_counter_vs_model", "ld c/m",
     "ld ctr / the model's wavefronts per column read"},
    {"store_wavefronts_per_request_counter", "st ctr",
     "counters: shared-store wavefronts / store instructions, one launch"},
    {"store_wavefronts_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's wavefronts per row write"},
    {"load_wavefronts_per_request", "ld wf",
     "model: shared wavefronts per column read of the tile (with counters)"},
    {"store_wavefronts_per_request", "st wf",
     "model: shared wavefronts per row write of the tile (with counters)"},
    {"time_per_instruction", "t/instr", "time per warp-wide shared instruction per SM, median"},
    {"relative_to_copy", "vs copy", "bandwidth / bandwidth of copy"},
    {"slowdown", "slowdown", "time_per_instruction / that at stride 1 (same op, width)"},
    {"cycles_per_request", "cyc/req",
     "time_per_instruction x the SM clock sampled around the sweep"},
    {"conflict_ways", "ways",
     "model: n-way bank conflict (ladder: the larger of loads and stores)"},
    {"load_conflict_ways", "ld ways", "model: n-way conflict of the tile's loads"},
    {"store_conflict_ways", "st ways", "model: n-way conflict of the tile's stores"},
    {"wavefronts_per_request", "wf/req", "model: shared-memory wavefronts per warp instruction"},
    {"predicted_slowdown", "pred x", "model: wavefronts / wavefronts at stride 1 (same op, width)"},
    {"bandwidth_ratio", "ratio", "bandwidth of one kernel / that of the other"},
    {"stride1_bandwidth", "s1 GB/s", "bandwidth at stride 1"},
    {"stride1_cycles_per_request", "s1 cyc", "cycles_per_request at stride 1"},
    {"max_slowdown", "max x", "largest measured slowdown vs stride 1"},
    {"model_max_slowdown", "model x", "model: largest predicted slowdown"},
    {"element_bytes", "B", "element width, bytes"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms(kProbe, kTerms);
}

}  // namespace gpuprobe::bank
