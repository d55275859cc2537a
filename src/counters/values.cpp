// Looking up one metric in a range's values.
#include "gpuprobe/counters/values.hpp"

namespace gpuprobe::counters {

const CounterValue* RangeCounters::find(const std::string& name) const {
  for (const auto& value : values)
    if (value.name == name) return &value;
  return nullptr;
}

}  // namespace gpuprobe::counters
