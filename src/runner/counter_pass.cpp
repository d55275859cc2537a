// The counter pass: a CUPTI session per probe and device, one range per timed operation.
#include "counter_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "gpuprobe/counters/default_sets.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/session.hpp"
#include "gpuprobe/runtime/measure.hpp"

namespace gpuprobe::runner {
namespace {

struct Refusal {
  std::string reason;
  std::string hint;
};

// Devices whose counters were refused earlier in this process: later probes do not ask again
// (under ncu every attempt fails the same way). Leaked on purpose: no static destructor.
std::map<int, Refusal>& refusals() {
  static auto* known = new std::map<int, Refusal>;
  return *known;
}

// CUPTI nests ranges on '/': a label keeps its words, with '/' turned into '-'.
std::string range_name(const std::string& label) {
  std::string name = label.empty() ? std::string("point") : label;
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

std::vector<std::string> without_duplicates(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (auto& name : names)
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  return out;
}

}  // namespace

CounterPassDriver::CounterPassDriver(const std::vector<std::string>& probe_metrics, int device,
                                     const CounterOptions& options)
    : device_(device) {
  std::vector<std::string> asked = probe_metrics;
  asked.insert(asked.end(), options.extra_metrics.begin(), options.extra_metrics.end());
  asked = without_duplicates(std::move(asked));
  if (!options.enabled) {
    status_.state = CounterState::kOff;
    status_.metrics = asked;
    status_.reason = "switched off with --no-counters";
    return;
  }
  if (asked.empty()) {
    status_.state = CounterState::kNone;
    status_.reason = "this probe collects no counters by default; name some with --metrics";
    return;
  }
  status_.metrics = counters::defaults::with_companions(std::move(asked));
  if (const auto known = refusals().find(device); known != refusals().end()) {
    status_.state = CounterState::kRefused;
    status_.reason = known->second.reason;
    status_.hint = known->second.hint;
    return;
  }
  try {
    session_ = std::make_unique<counters::CounterSession>(device, status_.metrics, 1);
    status_.state = CounterState::kCollected;
    status_.chip = session_->chip();
    status_.passes = session_->passes();
  } catch (const counters::CountersUnavailable& e) {
    refuse(e.reason(), e.hint());
  }
}

CounterPassDriver::~CounterPassDriver() {
  close();
}

void CounterPassDriver::close() {
  if (session_) session_->close();
  session_.reset();
}

void CounterPassDriver::refuse(const std::string& reason, const std::string& hint) {
  close();
  status_.state = CounterState::kRefused;
  status_.reason = reason;
  status_.hint = hint;
  refusals()[device_] = {reason, hint};
}

runtime::CounterPass CounterPassDriver::pass() {
  if (!session_) return {};
  return [this](const std::string& range, const PassSteps& steps) { return collect(range, steps); };
}

std::optional<std::vector<Quantity>> CounterPassDriver::collect(const std::string& range,
                                                                const PassSteps& steps) {
  if (!session_) return std::nullopt;  // refused at an earlier point
  counters::RangeWork work;
  work.before = [&steps](std::size_t) {
    if (steps.reset) steps.reset();
    if (steps.cache) steps.cache();
  };
  work.work = [&steps](std::size_t) {
    if (steps.run) steps.run();
  };
  work.after = [&steps, &range](std::size_t) {
    if (!steps.verify) return;
    const std::string problem = steps.verify();
    if (!problem.empty())
      throw runtime::VerificationError(fmt::format("{} (counter pass): {}", range, problem));
  };
  std::vector<counters::RangeCounters> got;
  try {
    got = session_->collect({range_name(range)}, work);
  } catch (const counters::CountersUnavailable& e) {
    refused_during_run_ = true;
    refuse(e.reason(), e.hint());
    return std::nullopt;
  }
  std::vector<Quantity> values;
  for (const auto& v : got.front().values) {
    values.push_back({v.name, v.unit, v.value});
    if (!v.value) missing_.try_emplace(v.name, v.reason);
  }
  if (const auto hz = got.front().sm_clock_hz) {
    clock_min_hz_ = std::min(clock_min_hz_.value_or(*hz), *hz);
    clock_max_hz_ = std::max(clock_max_hz_.value_or(*hz), *hz);
  }
  return values;
}

std::vector<Finding> CounterPassDriver::findings() const {
  std::vector<Finding> out;
  if (status_.state == CounterState::kRefused) {
    std::vector<Param> params{{"reason", status_.reason, ""}, {"hint", status_.hint, ""}};
    if (refused_during_run_) params.push_back({"during_run", true, ""});
    out.push_back(warning("counters_unavailable", std::move(params), {}));
  }
  if (!missing_.empty()) {
    std::vector<std::string> names, reasons;
    for (const auto& [name, reason] : missing_) {
      names.push_back(name);
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
        reasons.push_back(reason);
    }
    out.push_back(warning("counters_missing",
                          {{"metrics", fmt::format("{}", fmt::join(names, ", ")), ""},
                           {"reasons", fmt::format("{}", fmt::join(reasons, "; ")), ""}},
                          {{"count", "", static_cast<double>(names.size())}}));
  }
  return out;
}

std::vector<Quantity> CounterPassDriver::conditions() const {
  if (!clock_min_hz_) return {};
  return {{"counter_sm_clock_min", "MHz", *clock_min_hz_ / 1e6},
          {"counter_sm_clock_max", "MHz", *clock_max_hz_ / 1e6}};
}

}  // namespace gpuprobe::runner
