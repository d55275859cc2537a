// The default metric set of each probe, with the always-on companions appended.
#include "gpuprobe/counters/default_sets.hpp"

#include <algorithm>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::counters::defaults {

namespace {

template <std::size_t N>
std::vector<std::string> with_companions(const std::array<std::string_view, N>& set) {
  std::vector<std::string> out(set.begin(), set.end());
  for (const auto companion : kCompanions)
    if (std::find(out.begin(), out.end(), companion) == out.end()) out.emplace_back(companion);
  return out;
}

}  // namespace

std::vector<std::string> probes_with_defaults() {
  return {"transfer", "coalescing", "bank-conflicts"};
}

std::vector<std::string> metrics_for_probe(std::string_view probe) {
  if (probe == "transfer") return with_companions(kTransfer);
  if (probe == "coalescing") return with_companions(kCoalescing);
  if (probe == "bank-conflicts") return with_companions(kBankConflicts);
  throw UsageError("probe '" + std::string(probe) +
                   "' has no default counter set (known: transfer, coalescing, bank-conflicts)");
}

}  // namespace gpuprobe::counters::defaults
