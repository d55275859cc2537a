// zerocopy's words (host-only): its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::zerocopy {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"model.link_bytes_per_payload", "link/pay",
     "model: PCIe bytes (TLP data + headers) in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter", "ctr link/pay",
     "counters: PCIe bytes in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter_vs_model", "ctr/mdl", "counters / model, link bytes"},
    {"bytes_per_access_counter", "B/access",
     "counters: PCIe bytes per element access (isolated accesses only)"},
    {"bytes_in_flight", "in flight", "bytes the grid has requested at once: blocks x 256 x 4 x w"},
    {"summary.break_even_reuse", "break-even",
     "reuse count where the copy starts to win (interpolated; blank: no crossing measured)"},
    {"summary.copy_over_zerocopy_first", "zc gain@min",
     "copy time / zero-copy time at the smallest reuse"},
    {"summary.copy_over_zerocopy_last", "zc gain@max",
     "copy time / zero-copy time at the largest reuse"},
};

// "16 B" (row params read back from JSON carry no unit: the width is said in bytes either way).
}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("zerocopy", kTerms);
}

}  // namespace gpuprobe::zerocopy
