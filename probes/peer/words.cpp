// peer's words (host-only): its findings (findings.hpp) and the columns' short headers.
#include "analysis.hpp"
#include "findings.hpp"

namespace gpuprobe::peer {
namespace {

constexpr TermEntry kTerms[] = {
    {"fraction_of_raw", "of raw", "measured bandwidth / the link's raw limit (model)"},
    {"access_latency", "per load", "sm-latency: time per dependent load over the link"},
    {"bandwidth_gpu", "GPU GB/s",
     "patterns: the row's GPU's own traffic (received; sent for one-to-all) / the longest of its "
     "copies"},
    {"model.raw_limit", "raw GB/s",
     "model: the link's raw data rate for this path (both directions for bidir)"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(kFindings);
  g.add_terms("peer", kTerms);
}

}  // namespace gpuprobe::peer
