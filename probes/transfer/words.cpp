// transfer's words (host-only): its findings (findings.hpp) and the columns' short headers.
#include "analysis.hpp"
#include "findings.hpp"

namespace gpuprobe::transfer {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"link_bytes_per_payload", "link/pay",
     "counters: PCIe bytes in the copy's direction(s) / payload bytes"},
    {"reverse_link_bytes_per_payload", "rev/pay",
     "counters: PCIe bytes in the other direction / payload bytes"},
    {"model.fit_bandwidth", "fit",
     "model: the fitted t = latency + bytes/bandwidth at this size, GB/s"},
    {"bandwidth_h2d", "h2d GB/s", "bandwidth of bidir's h2d lane"},
    {"bandwidth_d2h", "d2h GB/s", "bandwidth of bidir's d2h lane"},
    {"summary.fit_bandwidth", "fit GB/s", "asymptotic bandwidth of the fit"},
    {"summary.half_bandwidth_size", "half-bw size",
     "size reaching half the fit bandwidth (per direction)"},
    {"summary.fit_rms_error", "fit err", "rms relative error of the fit"},
    {"summary.largest_size_bandwidth", "GB/s @max", "measured bandwidth at the largest size"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(kFindings);
  g.add_terms("transfer", kTerms);
}

}  // namespace gpuprobe::transfer
