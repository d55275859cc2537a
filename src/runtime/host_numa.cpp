// Host memory near a GPU: sysfs NUMA facts of its PCI function, CPU binding, page placement.
#include "gpuprobe/runtime/host_numa.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::runtime {
namespace {

// Parses a sysfs CPU list ("0-15,32-47") into `set`; false when malformed or empty.
bool parse_cpu_list(const std::string& text, cpu_set_t& set) {
  CPU_ZERO(&set);
  std::stringstream in(text);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    int first = 0, last = 0;
    char dash = 0;
    std::stringstream range(item);
    if (!(range >> first)) return false;
    last = first;
    if (range >> dash && !(dash == '-' && range >> last)) return false;
    if (first < 0 || last < first || last >= CPU_SETSIZE) return false;
    for (int cpu = first; cpu <= last; ++cpu)
      CPU_SET(cpu, &set);
    any = true;
  }
  return any;
}

}  // namespace

std::optional<int> gpu_numa_node(const std::string& pci_bus_id) {
  std::ifstream in(pci_sysfs_dir(pci_bus_id) + "numa_node");
  int node = -1;
  if (!(in >> node) || node < 0) return std::nullopt;
  return node;
}

std::optional<int> page_numa_node(const void* address) {
  const long page = sysconf(_SC_PAGE_SIZE);
  if (page <= 0 || !address) return std::nullopt;
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  void* pages[1] = {reinterpret_cast<void*>(at - at % static_cast<std::uintptr_t>(page))};
  int status[1] = {-1};
  if (syscall(SYS_move_pages, 0, 1UL, pages, static_cast<const int*>(nullptr), status, 0) != 0 ||
      status[0] < 0)
    return std::nullopt;
  return status[0];
}

LocalCpuScope::LocalCpuScope(const std::string& pci_bus_id) {
  std::ifstream in(pci_sysfs_dir(pci_bus_id) + "local_cpulist");
  std::string text;
  cpu_set_t local;
  if (!std::getline(in, text) || !parse_cpu_list(text, local)) return;
  if (sched_getaffinity(0, sizeof(previous_), &previous_) != 0) return;
  bound_ = sched_setaffinity(0, sizeof(local), &local) == 0;
}

LocalCpuScope::~LocalCpuScope() {
  if (bound_) (void)sched_setaffinity(0, sizeof(previous_), &previous_);
}

}  // namespace gpuprobe::runtime
