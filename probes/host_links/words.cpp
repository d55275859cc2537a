// host-links' words (host-only): its findings (findings.hpp) and the columns' short headers.
#include "analysis.hpp"
#include "findings.hpp"

namespace gpuprobe::host_links {
namespace {

constexpr TermEntry kTerms[] = {
    {"bandwidth_h2d", "h2d GB/s", "bandwidth of bidir's h2d lane"},
    {"bandwidth_d2h", "d2h GB/s", "bandwidth of bidir's d2h lane"},
    {"solo_bandwidth", "solo GB/s", "the same GPU's bandwidth measured alone"},
    {"slowdown", "slowdown", "solo / concurrent bandwidth: how much slower with every GPU copying"},
    {"loss", "loss", "1 - concurrent / solo bandwidth (the aggregate: against the solos summed)"},
    {"solo_sum", "solo sum", "every GPU's solo bandwidth summed: what no contention would give"},
    {"fraction_of_raw", "of raw", "measured bandwidth / the PCIe link's raw limit (model)"},
    {"gpu_node", "GPU node", "the GPU's NUMA node (sysfs)"},
    {"host_node", "host node", "the NUMA node its pinned host buffer landed on"},
    {"model.raw_limit", "raw GB/s",
     "model: the PCIe link's raw data rate (both directions for bidir; summed for the aggregate)"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(kFindings);
  g.add_terms("host-links", kTerms);
}

}  // namespace gpuprobe::host_links
