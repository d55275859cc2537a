// The counter pass: a CUPTI session per probe and device, one range per timed operation.
#include "counter_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "gpuprobe/counters/default_sets.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/names.hpp"
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

// Ranges one CUPTI collection holds. Each collection costs ~0.2 s of set-up on an H100 (the
// first replay pass after configuring), so points are batched; the counter-data image grows
// with this number.
constexpr std::size_t kRangesPerCollect = 64;

// Unique within the driver ("3 stride 32, 4 B"); CUPTI nests ranges on '/', so '/' becomes '-'.
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
    status_.metrics = asked.empty() ? asked : counters::defaults::with_companions(asked);
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
    session_ =
        std::make_unique<counters::CounterSession>(device, status_.metrics, kRangesPerCollect);
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
  return [this](const std::vector<runtime::CounterPoint>& points) { return collect(points); };
}

std::vector<std::optional<std::vector<Quantity>>> CounterPassDriver::collect(
    const std::vector<runtime::CounterPoint>& points) {
  std::vector<std::optional<std::vector<Quantity>>> out(points.size());
  for (std::size_t first = 0; first < points.size() && session_; first += kRangesPerCollect)
    collect_chunk(points, first, std::min(kRangesPerCollect, points.size() - first), out);
  return out;
}

void CounterPassDriver::collect_chunk(const std::vector<runtime::CounterPoint>& points,
                                      std::size_t first, std::size_t count,
                                      std::vector<std::optional<std::vector<Quantity>>>& out) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i)
    names.push_back(counters::range_name(++ranges_named_, points[first + i].label));
  counters::RangeWork work;
  work.before = [&](std::size_t r) {
    const PassSteps& steps = points[first + r].steps;
    if (steps.reset) steps.reset();
    if (steps.cache) steps.cache();
  };
  work.work = [&](std::size_t r) {
    if (points[first + r].steps.run) points[first + r].steps.run();
  };
  work.after = [&](std::size_t r) {
    const runtime::CounterPoint& point = points[first + r];
    if (!point.steps.verify) return;
    const std::string problem = point.steps.verify();
    if (!problem.empty())
      throw runtime::VerificationError(fmt::format("{} (counter pass): {}", point.label, problem));
  };
  std::vector<counters::RangeCounters> got;
  try {
    got = session_->collect(names, work);
  } catch (const counters::CountersUnavailable& e) {
    refused_during_run_ = true;
    refuse(e.reason(), e.hint());
    return;
  }
  for (std::size_t r = 0; r < count && r < got.size(); ++r) {
    std::vector<Quantity> values;
    for (const auto& v : got[r].values) {
      values.push_back({v.name, v.unit, v.value});
      if (!v.value) missing_.try_emplace(v.name, v.reason);
    }
    if (const auto hz = got[r].sm_clock_hz) {
      clock_min_hz_ = std::min(clock_min_hz_.value_or(*hz), *hz);
      clock_max_hz_ = std::max(clock_max_hz_.value_or(*hz), *hz);
    }
    out[first + r] = std::move(values);
  }
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
