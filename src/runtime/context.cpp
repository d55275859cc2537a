// The per-device probe context: the harness, progress counted against the plan, teardown.
#include "gpuprobe/runtime/context.hpp"

#include <algorithm>

namespace gpuprobe::runtime {
namespace {

// Runs an operation's teardown when the scope ends, also when measuring threw.
struct Teardown {
  const Operation& op;
  ~Teardown() {
    if (op.teardown) op.teardown();
  }
};

}  // namespace

ProbeContext::ProbeContext(const DeviceInfo& device, const MeasureOptions& options,
                           ProgressFn progress, std::string probe_name, std::size_t planned_points)
    : device_(device),
      measurer_(options, device.l2_bytes, device.persisting_l2_max_bytes),
      progress_(std::move(progress)),
      probe_name_(std::move(probe_name)),
      planned_(planned_points) {}

SampleSet ProbeContext::measure(const Operation& op) {
  // A probe may measure a point the plan does not list (a repeat of a baseline): never count
  // past the plan's total.
  if (progress_) progress_(probe_name_, done_, std::max(planned_, done_ + 1), op.label);
  ++done_;
  const Teardown teardown{op};
  return measurer_.measure(op);
}

std::vector<std::string> ProbeContext::run_passes(const Operation& op, std::size_t passes,
                                                  const PassWrapper& wrap) {
  measurer_.prepare(op);
  return measurer_.run_passes(op, passes, wrap);
}

}  // namespace gpuprobe::runtime
