// Factories of the probes under probes/, one per folder; registry.cpp lists them.
#pragma once

#include <memory>

#include "gpuprobe/probe.hpp"

namespace gpuprobe {

std::unique_ptr<Probe> make_transfer_probe();
std::unique_ptr<Probe> make_coalescing_probe();
std::unique_ptr<Probe> make_l2_persist_probe();
std::unique_ptr<Probe> make_bank_conflicts_probe();
std::unique_ptr<Probe> make_overlap_probe();
std::unique_ptr<Probe> make_zerocopy_probe();
std::unique_ptr<Probe> make_peer_probe();
std::unique_ptr<Probe> make_host_links_probe();
std::unique_ptr<Probe> make_cache_probe();
std::unique_ptr<Probe> make_latency_probe();
std::unique_ptr<Probe> make_constant_probe();
std::unique_ptr<Probe> make_local_probe();
std::unique_ptr<Probe> make_occupancy_probe();
std::unique_ptr<Probe> make_partitions_probe();

}  // namespace gpuprobe
