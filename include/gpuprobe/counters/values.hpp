// Counter values as gpuprobe reports them: per range, every metric asked for, value or reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::counters {

// One metric of one range. value is empty when CUPTI could not give a number (NaN, evaluation
// failure, range missing); reason then says why. A metric asked for is never left out.
struct CounterValue {
  std::string name;
  std::string unit;  // CUPTI's dimension unit, e.g. "byte", "l2_sector", "percent"
  std::optional<double> value;
  std::string reason;  // empty when value is set
};

// All metrics of one range (one named piece of the caller's work).
struct RangeCounters {
  std::string range;
  std::vector<CounterValue> values;
  // SM clock during this range (sm__cycles_elapsed.avg.per_second), when it was collected.
  std::optional<double> sm_clock_hz;

  // The value named `name`, or nullptr when it is not in this range.
  const CounterValue* find(const std::string& name) const;
};

}  // namespace gpuprobe::counters
