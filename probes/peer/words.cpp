// peer's words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <string>

#include "analysis.hpp"

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

std::string path_text(const Finding& f) {
  const auto fraction = optional_value_of(f, "fraction_of_raw");
  const std::string limit = fraction ? fmt::format(", {:.0f}% of the raw {}", *fraction * 100.0,
                                                   value_text(f, "raw_limit"))
                                     : std::string(", no raw limit known for this link");
  return fmt::format("GPU {} -> GPU {} {} {}: peak {} at {}{}; {} per copy of {} (measured)",
                     param_text_of(f, "src"), param_text_of(f, "dst"), param_text_of(f, "mode"),
                     param_text_of(f, "direction"), value_text(f, "bandwidth"),
                     param_text_of(f, "at"), limit, value_text(f, "latency"),
                     value_text(f, "latency_bytes"));
}

}  // namespace

void add_words(Glossary& g) {
  g.add_phrasing("peer_path", path_text);
  g.add_phrasing("peer_above_model", [](const Finding& f) {
    return fmt::format(
        "GPU {} -> GPU {} {} {}: {} exceeds the link's raw {} ({}): the GPUs are joined by "
        "something faster than the link facts say (NVLink NVML did not report?)",
        param_text_of(f, "src"), param_text_of(f, "dst"), param_text_of(f, "mode"),
        param_text_of(f, "direction"), value_text(f, "bandwidth"), value_text(f, "raw_limit"),
        param_text_of(f, "link"));
  });
  g.add_phrasing("peer_chase", [](const Finding& f) {
    return fmt::format(
        "GPU {} reading GPU {}'s memory, one dependent load at a time: {} per load over a chain "
        "of {}, {} over {}",
        param_text_of(f, "dst"), param_text_of(f, "src"), value_text(f, "latency"),
        value_text(f, "latency_bytes"), value_text(f, "latency_largest"),
        value_text(f, "largest_bytes"));
  });
  g.add_phrasing("peer_link_assumed", [](const Finding&) {
    return std::string(
        "link facts from sysfs (PCIe speed and width now), not NVML (unavailable: see the "
        "device's nvml_unavailable): the raw limit assumes each pair talks over the narrower "
        "PCIe link of its two GPUs, which an NVLink pair exceeds");
  });
  g.add_phrasing("peer_no_p2p", [](const Finding& f) {
    return fmt::format("GPU {} -> GPU {} {} {}: not measured, the pair has no P2P access ({})",
                       param_text_of(f, "src"), param_text_of(f, "dst"), param_text_of(f, "mode"),
                       param_text_of(f, "direction"),
                       "cudaDeviceCanAccessPeer says no; staged copies still run");
  });
  g.add_phrasing("peer_pattern_no_p2p", [](const Finding&) {
    return std::string(
        "some pattern points were not measured: a pair among their copies has no P2P access "
        "(cudaDeviceCanAccessPeer says no)");
  });
  g.add_phrasing("peer_plan_every_gpu", [](const Finding&) {
    return std::string(
        "the pairs are those of every GPU visible at run time (--device all): name the GPUs "
        "(--device 0,1) to list the sweep");
  });
  g.add_phrasing("peer_plan_one_gpu", [](const Finding&) {
    return std::string(
        "--device selects one GPU: peer pairs the GPUs of --device and needs two (--device 0,1 or "
        "--device all)");
  });
  g.add_terms("peer", kTerms);
}

}  // namespace gpuprobe::peer
