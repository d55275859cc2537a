// The per-device probe context: the harness in rounds (in this process or one per round),
// progress counted against the plan, teardown.
#include "gpuprobe/runtime/context.hpp"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <stdexcept>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/core/trace.hpp"

namespace gpuprobe::runtime {
namespace {

// Runs the operations' teardowns when the scope ends, also when measuring threw. A teardown that
// throws (a checked CUDA call on a faulted GPU) is not let out of the destructor: the error that
// ended the measurement, if any, is the one the user sees.
struct TeardownAll {
  const std::vector<Operation>& ops;
  ~TeardownAll() {
    for (const Operation& op : ops) {
      if (!op.teardown) continue;
      try {
        op.teardown();
      } catch (...) {  // best effort: the buffers and streams are freed by their own owners
      }
    }
  }
};

// Nested NVTX push/pop ranges for the scope's life; ncu and nsys address them as "a/b/c/".
class NvtxRanges {
 public:
  explicit NvtxRanges(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      nvtxRangePushA(name);
      ++depth_;
    }
  }
  ~NvtxRanges() {
    for (; depth_ > 0; --depth_)
      nvtxRangePop();
  }
  NvtxRanges(const NvtxRanges&) = delete;
  NvtxRanges& operator=(const NvtxRanges&) = delete;

 private:
  int depth_ = 0;
};

}  // namespace

ProbeContext::ProbeContext(const DeviceInfo& device, const MeasureOptions& options,
                           ProgressFn progress, std::string probe_name, std::size_t planned_points,
                           CounterPass counter_pass, RoundProcess round_process)
    : device_(device),
      measurer_(options, device.l2_bytes, device.persisting_l2_max_bytes),
      progress_(std::move(progress)),
      counter_pass_(std::move(counter_pass)),
      round_process_(std::move(round_process)),
      probe_name_(std::move(probe_name)),
      planned_(planned_points),
      batches_(options.first_batch) {}

std::vector<SampleSet> ProbeContext::measure_all(const std::vector<Operation>& ops) {
  const TeardownAll teardown{ops};
  std::vector<SampleSet> out = time_in_rounds(ops);
  add_counters(ops, out);
  return out;
}

std::vector<SampleSet> ProbeContext::measure_all_in_processes(const std::vector<Operation>& ops,
                                                              const std::vector<std::string>& keys,
                                                              const AxisValues& values,
                                                              std::size_t least_rounds) {
  const MeasureOptions& options = measurer_.options();
  std::size_t rounds = effective_rounds(options.rounds, options.rule);
  if (!round_process_ || rounds < 2 || options.only_round) return measure_all(ops);
  // at least least_rounds processes, but never more than fixed samples give rounds (a child takes
  // the same effective_rounds: rounds past it would measure nothing)
  rounds = effective_rounds(std::max(rounds, least_rounds), options.rule);
  if (keys.size() != ops.size()) throw std::logic_error("one key per operation");
  const TeardownAll teardown{ops};
  std::vector<SampleSet> out = time_in_processes(ops, keys, values, rounds);
  add_counters(ops, out);
  return out;
}

void ProbeContext::add_counters(const std::vector<Operation>& ops, std::vector<SampleSet>& out) {
  if (!counter_pass_ || ops.empty()) return;
  trace(fmt::format("{}: counter pass over {} points", probe_name_, ops.size()));
  std::vector<CounterPoint> points;
  for (const Operation& op : ops) {
    PassSteps steps = measurer_.pass_steps(op);  // each pass: prepare, reset_pass, cache, run
    steps.run = [this, &op, run = std::move(steps.run)] {
      const NvtxRanges nvtx{"gpuprobe", probe_name_.c_str(), op.label.c_str()};
      run();
    };
    points.push_back({op.label, std::move(steps)});
  }
  auto counters = counter_pass_(points);
  for (std::size_t i = 0; i < out.size() && i < counters.size(); ++i)
    out[i].counters = std::move(counters[i]);
  trace(fmt::format("{}: counter pass done", probe_name_));
}

std::vector<SampleSet> ProbeContext::time_in_rounds(const std::vector<Operation>& ops) {
  const MeasureOptions& options = measurer_.options();
  const std::size_t rounds = effective_rounds(options.rounds, options.rule);
  std::vector<Measurer::RoundState> states(ops.size());
  if (options.only_round && earlier_.size() == ops.size()) {
    for (std::size_t i = 0; i < ops.size(); ++i)
      states[i].samples = std::move(earlier_[i]);
  }
  earlier_.clear();
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t round = 0; round < rounds; ++round) {
    if (options.only_round && round != *options.only_round) continue;  // in a round process
    const StoppingRule rule = options.rule.share(rounds, round);
    const bool last = round + 1 == rounds || options.only_round.has_value();
    order = round_order(ops.size(), options.seed, batches_, round);
    for (const std::size_t i : order) {
      // Progress counts rounds of points; a probe may measure a point the plan does not list
      // (a repeat of a baseline): never count past the plan's total.
      const std::size_t total = std::max(planned_ * rounds, done_ + 1);
      if (progress_) progress_(probe_name_, done_, total, ops[i].label);
      ++done_;
      const NvtxRanges nvtx{"gpuprobe", probe_name_.c_str(), ops[i].label.c_str()};
      if (trace_on()) trace(fmt::format("{}: round {} {}", probe_name_, round, ops[i].label));
      measurer_.measure_round(ops[i], states[i], static_cast<std::uint32_t>(round), rule, last);
    }
  }
  ++batches_;
  trace(fmt::format("{}: verifying {} points", probe_name_, ops.size()));
  std::vector<SampleSet> out;
  out.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i)
    out.push_back(measurer_.finish(ops[i], std::move(states[i])));
  trace(fmt::format("{}: verified", probe_name_));
  return out;
}

std::vector<SampleSet> ProbeContext::time_in_processes(const std::vector<Operation>& ops,
                                                       const std::vector<std::string>& keys,
                                                       const AxisValues& values,
                                                       std::size_t rounds) {
  const MeasureOptions& options = measurer_.options();
  RoundRequest request{probe_name_,
                       device_.index,
                       keys,
                       0,
                       rounds,
                       options.seed,
                       batches_,
                       options.rule,
                       options.warmup_batches,
                       options.target_batch_seconds,
                       options.max_batch,
                       {},
                       devices_.size() > 1 ? devices_ : std::vector<int>{},
                       values};
  std::vector<SampleSet> merged(ops.size());
  for (std::size_t round = 0; round < rounds; ++round) {
    throw_if_interrupted();
    const std::size_t total = std::max(planned_ * rounds, done_ + ops.size());
    if (progress_)
      progress_(probe_name_, done_, total,
                fmt::format("{} points, round {} of {} in a process of its own", ops.size(),
                            round + 1, rounds));
    done_ += ops.size();
    request.round = static_cast<std::uint32_t>(round);
    request.earlier = merged;  // the child's stopping rule weighs them, as in one process
    trace(fmt::format("{}: round {} of {} points in a process", probe_name_, round, ops.size()));
    const RoundAnswer answer = round_process_(request);
    trace(fmt::format("{}: round process {} returned", probe_name_, round));
    ++round_processes_;
    if (!answer.wrong_result.empty()) throw VerificationError(answer.wrong_result);
    if (answer.sets.size() != ops.size())
      throw RunError(fmt::format("the process of round {} measured {} points of {}", round + 1,
                                 answer.sets.size(), ops.size()));
    for (std::size_t i = 0; i < ops.size(); ++i)
      append_round(merged[i], answer.sets[i]);
  }
  ++batches_;
  for (std::size_t i = 0; i < ops.size(); ++i)
    merged[i] = measurer_.finish(ops[i], {0, std::move(merged[i]), false});
  return merged;
}

SampleSet ProbeContext::measure(const Operation& op) {
  return std::move(measure_all({op}).front());
}

}  // namespace gpuprobe::runtime
