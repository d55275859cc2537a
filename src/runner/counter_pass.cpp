// The counter pass: a CUPTI session per probe and device, one range per timed operation.
#include "counter_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "gpuprobe/core/runner_findings.hpp"
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
  // Chunks of whole points: a point with a write-back step takes two ranges.
  std::size_t first = 0, ranges = 0;
  for (std::size_t i = 0; i < points.size() && session_; ++i) {
    const std::size_t need = points[i].steps.write_back ? 2 : 1;
    if (ranges + need > kRangesPerCollect) {
      collect_chunk(points, first, i - first, out);
      first = i;
      ranges = 0;
    }
    ranges += need;
  }
  if (first < points.size() && session_) collect_chunk(points, first, points.size() - first, out);
  return out;
}

namespace {

// The ranges of a chunk of points: each point's own range, then its write-back range if it has
// a write-back step.
struct RangeOf {
  std::size_t point;  // index into the chunk's points
  bool write_back;
};

std::vector<RangeOf> ranges_of(const std::vector<runtime::CounterPoint>& points, std::size_t first,
                               std::size_t count) {
  std::vector<RangeOf> out;
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back({first + i, false});
    if (points[first + i].steps.write_back) out.push_back({first + i, true});
  }
  return out;
}

// The range work over `ranges`: reset, cache and (with a write-back step) an L2 flush before a
// point's own range, the operation in it, the L2 flush again in its write-back range; the
// verification after the point's last range (after the write-back, which must find the
// operation's dirty lines still in the L2), in the first pass only: every pass repeats the same
// work from the same reset, and verifying a 256 MiB host buffer costs more than the copy it
// verifies.
counters::RangeWork range_work(const std::vector<runtime::CounterPoint>& points,
                               const std::vector<RangeOf>& ranges) {
  // The lambdas outlive this call: they hold pointers to the caller's vectors, which outlive
  // the collect() they are used in; `checked` lives as long as the lambdas.
  const auto* pts = &points;
  const auto* rs = &ranges;
  auto checked = std::make_shared<std::vector<bool>>(ranges.size(), false);
  counters::RangeWork work;
  work.before = [pts, rs](std::size_t r) {
    if ((*rs)[r].write_back) return;
    const PassSteps& steps = (*pts)[(*rs)[r].point].steps;
    if (steps.reset) steps.reset();
    if (steps.cache) steps.cache();
    // No dirty line of earlier work (a reset's writes) may be written back inside the range.
    if (steps.write_back) steps.write_back();
  };
  work.work = [pts, rs](std::size_t r) {
    const PassSteps& steps = (*pts)[(*rs)[r].point].steps;
    if ((*rs)[r].write_back) {
      steps.write_back();
    } else if (steps.run) {
      steps.run();
    }
  };
  work.after = [pts, rs, checked](std::size_t r) {
    const runtime::CounterPoint& point = (*pts)[(*rs)[r].point];
    const bool last = r + 1 == rs->size() || (*rs)[r + 1].point != (*rs)[r].point;
    if (!last || !point.steps.verify || (*checked)[r]) return;
    (*checked)[r] = true;
    const std::string problem = point.steps.verify();
    if (!problem.empty())
      throw runtime::VerificationError(fmt::format("{} (counter pass): {}", point.label, problem));
  };
  return work;
}

// The write-back range's DRAM writes, added to its point's values under their own name.
void add_write_back(const counters::RangeCounters& range,
                    std::optional<std::vector<Quantity>>& point) {
  if (!point) return;
  for (const auto& v : range.values) {
    if (v.name != counters::kDramWriteBytes) continue;
    point->push_back({std::string(counters::kWriteBackPrefix) + v.name, v.unit, v.value});
  }
}

}  // namespace

void CounterPassDriver::collect_chunk(const std::vector<runtime::CounterPoint>& points,
                                      std::size_t first, std::size_t count,
                                      std::vector<std::optional<std::vector<Quantity>>>& out) {
  const std::vector<RangeOf> ranges = ranges_of(points, first, count);
  std::vector<std::string> names;
  for (const auto& range : ranges) {
    const std::string& label = points[range.point].label;
    names.push_back(
        counters::range_name(++ranges_named_, range.write_back ? label + " write-back" : label));
  }
  std::vector<counters::RangeCounters> got;
  try {
    got = session_->collect(names, range_work(points, ranges));
  } catch (const counters::CountersUnavailable& e) {
    refused_during_run_ = true;
    refuse(e.reason(), e.hint());
    return;
  }
  for (std::size_t r = 0; r < ranges.size() && r < got.size(); ++r) {
    if (ranges[r].write_back) {
      add_write_back(got[r], out[ranges[r].point]);
      continue;
    }
    std::vector<Quantity> values;
    for (const auto& v : got[r].values) {
      values.push_back({v.name, v.unit, v.value});
      if (!v.value) missing_.try_emplace(v.name, v.reason);
    }
    if (const auto hz = got[r].sm_clock_hz) {
      clock_min_hz_ = std::min(clock_min_hz_.value_or(*hz), *hz);
      clock_max_hz_ = std::max(clock_max_hz_.value_or(*hz), *hz);
    }
    out[ranges[r].point] = std::move(values);
  }
}

std::vector<Finding> CounterPassDriver::findings() const {
  std::vector<Finding> out;
  if (status_.state == CounterState::kRefused) {
    out.push_back(runner_findings::kCountersUnavailable.make(
        runner_findings::kReason(status_.reason), runner_findings::kHint(status_.hint),
        runner_findings::kDuringRun(refused_during_run_ ? std::optional<bool>(true)
                                                        : std::nullopt)));
  }
  if (!missing_.empty()) {
    std::vector<std::string> names, reasons;
    for (const auto& [name, reason] : missing_) {
      names.push_back(name);
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
        reasons.push_back(reason);
    }
    out.push_back(runner_findings::kCountersMissing.make(
        runner_findings::kMetrics(fmt::format("{}", fmt::join(names, ", "))),
        runner_findings::kReasons(fmt::format("{}", fmt::join(reasons, "; "))),
        runner_findings::kCount(names.size())));
  }
  return out;
}

std::vector<Quantity> CounterPassDriver::conditions() const {
  if (!clock_min_hz_) return {};
  return {{"counter_sm_clock_min", "MHz", *clock_min_hz_ / 1e6},
          {"counter_sm_clock_max", "MHz", *clock_max_hz_ / 1e6}};
}

}  // namespace gpuprobe::runner
