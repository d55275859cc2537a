// Host memory near a GPU: the GPU's NUMA node and local CPUs as sysfs gives them for its PCI
// function, a scope that runs the calling thread on those CPUs, and the node a page landed on.
#pragma once

#include <sched.h>

#include <optional>
#include <string>

namespace gpuprobe::runtime {

// The NUMA node of the GPU's PCI function (sysfs numa_node); nullopt where unknown (-1, no
// file: one node, or a VM that hides it).
std::optional<int> gpu_numa_node(const std::string& pci_bus_id);

// The NUMA node that holds the page of `address` now (move_pages(2) in query mode); nullopt
// where the kernel does not say.
std::optional<int> page_numa_node(const void* address);

// Runs the calling thread on the GPU's local CPUs (sysfs local_cpulist) for the scope's life,
// then restores its former CPU set. Pinned memory allocated meanwhile comes from the GPU's node
// under the default (local) memory policy. Does nothing where the list is unknown or refused.
class LocalCpuScope {
 public:
  explicit LocalCpuScope(const std::string& pci_bus_id);
  ~LocalCpuScope();
  LocalCpuScope(const LocalCpuScope&) = delete;
  LocalCpuScope& operator=(const LocalCpuScope&) = delete;
  bool bound() const { return bound_; }

 private:
  cpu_set_t previous_{};
  bool bound_ = false;
};

}  // namespace gpuprobe::runtime
