// The list of probes: adding a probe is one folder under probes/ plus one line here.
#include "registry.hpp"

namespace gpuprobe {

Glossary make_glossary(const std::vector<std::unique_ptr<Probe>>& probes) {
  Glossary glossary = core_glossary();
  for (const auto& p : probes)
    p->add_words(glossary);
  return glossary;
}

std::vector<std::unique_ptr<Probe>> make_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(make_transfer_probe());
  probes.push_back(make_coalescing_probe());
  probes.push_back(make_bank_conflicts_probe());
  probes.push_back(make_overlap_probe());
  probes.push_back(make_zerocopy_probe());
  probes.push_back(make_l2_persist_probe());
  probes.push_back(make_cache_probe());
  probes.push_back(make_peer_probe());
  probes.push_back(make_host_links_probe());
  probes.push_back(make_latency_probe());
  probes.push_back(make_constant_probe());
  probes.push_back(make_local_probe());
  probes.push_back(make_occupancy_probe());
  probes.push_back(make_partitions_probe());
  return probes;
}

}  // namespace gpuprobe
