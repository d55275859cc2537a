// What a check covers: a file that is no run it can judge, and reference bounds whose probe failed
// or is missing, so that `gpuprobe check` never passes on nothing (README "gpuprobe check").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpuprobe/core/expect.hpp"

namespace gpuprobe {
namespace {

constexpr const char* kNoResult = "the run has no ";

bool is_ok(const ProbeResult& r) {
  return r.status == Status::kOk;
}

std::string device_text(const std::optional<int>& device) {
  return device ? fmt::format("GPU {}", *device) : std::string("no GPU");
}

// Why the run has no ok result of `probe` on `device` (any GPU when nullopt), or "" when it has.
std::string missing_probe(const RunReport& report, const std::string& probe,
                          const std::optional<int>& device) {
  const ProbeResult* other = nullptr;
  for (const auto& r : report.results) {
    if (r.probe != probe || (device && r.device != device)) continue;
    if (is_ok(r)) return "";
    other = &r;
  }
  if (!other) return fmt::format("{}{} result", kNoResult, probe);
  const char* what = other->status == Status::kFailed    ? "failed"
                     : other->status == Status::kSkipped ? "was skipped"
                                                         : "was not run (a plan)";
  return fmt::format("{} {}: {}", probe, what,
                     other->reason.empty() ? std::string("no reason given") : other->reason);
}

// The probes an expectation reads: its subject's, and its reference's when that is a probe value.
std::vector<std::string> probes_read(const Expectation& e) {
  std::vector<std::string> out{e.subject.probe};
  const Source s = e.reference.source;
  if (s != Source::kConstant && s != Source::kDevice && e.reference.probe != e.subject.probe)
    out.push_back(e.reference.probe);
  return out;
}

bool has_element(const std::vector<std::string>& list, const std::string& text) {
  return std::find(list.begin(), list.end(), text) != list.end();
}

// Reference bounds left out: of one probe on one GPU, how many and why.
struct LeftOut {
  std::optional<int> device;
  std::string probe, why;
  std::size_t count = 0;
};

bool lacks_probe(const LeftOut& l) {
  return l.why.starts_with(kNoResult);
}

// One line per failed or skipped probe, then one per GPU for the probes the run lacks.
std::vector<std::string> left_out_lines(const std::vector<LeftOut>& left) {
  std::vector<std::string> out;
  std::vector<std::optional<int>> lacking;  // GPUs with a probe the run lacks, in order
  for (const auto& l : left) {
    if (!lacks_probe(l))
      out.push_back(fmt::format("{}: {} reference bound(s) on {} not checked: {}",
                                device_text(l.device), l.count, l.probe, l.why));
    else if (std::find(lacking.begin(), lacking.end(), l.device) == lacking.end())
      lacking.push_back(l.device);
  }
  for (const auto& d : lacking) {
    std::size_t count = 0;
    std::vector<std::string> probes;
    for (const auto& l : left) {
      if (l.device != d || !lacks_probe(l)) continue;
      count += l.count;
      probes.push_back(l.probe);
    }
    out.push_back(fmt::format("{}: {} reference bound(s) not checked: {}{} result", device_text(d),
                              count, kNoResult, fmt::join(probes, ", ")));
  }
  return out;
}

}  // namespace

std::optional<std::string> not_checkable(const RunReport& report) {
  if (!report.sides.empty()) return "it is `gpuprobe compare` output, not a run's results";
  if (report.devices.empty()) {
    for (const auto& r : report.results)
      if (r.status == Status::kPlanned) return "it is a plan (--plan): nothing was measured";
    if (has_element(report.command, "fleet"))
      return "it is `gpuprobe fleet` output, not a run's results";
    return "it names no GPU: not a run's results";
  }
  if (report.results.empty()) return "it holds no probe results";
  if (std::any_of(report.results.begin(), report.results.end(), is_ok)) return std::nullopt;
  const ProbeResult& first = report.results.front();
  return fmt::format("no probe result is ok ({}): {}", device_text(first.device),
                     missing_probe(report, first.probe, first.device));
}

ReferenceCoverage reference_coverage(const std::vector<Expectation>& reference,
                                     const RunReport& report) {
  ReferenceCoverage out;
  std::vector<LeftOut> left;
  for (const auto& e : reference) {
    LeftOut l{e.device, "", "", 1};
    for (const auto& p : probes_read(e))
      if (l.why.empty()) l = {e.device, p, missing_probe(report, p, e.device), 1};
    if (l.why.empty()) {
      out.checkable.push_back(e);
      continue;
    }
    auto same = std::find_if(left.begin(), left.end(), [&l](const LeftOut& x) {
      return x.device == l.device && x.probe == l.probe;
    });
    if (same == left.end())
      left.push_back(l);
    else
      ++same->count;
  }
  out.unchecked = left_out_lines(left);
  return out;
}

}  // namespace gpuprobe
