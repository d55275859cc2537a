// zerocopy's analysis: rows read by name, the break-even computation, the model columns, the
// conditions, and the order of the findings (their builders in findings.cpp).
#include "analysis.hpp"

#include <algorithm>

#include "gpuprobe/core/counter_agreement.hpp"
#include "internal.hpp"

namespace gpuprobe::zerocopy {

const char* break_even_kind_name(BreakEvenKind kind) {
  switch (kind) {
    case BreakEvenKind::kCrossing:
      return "crossing";
    case BreakEvenKind::kZeroCopyAlwaysWins:
      return "zerocopy-wins";
    case BreakEvenKind::kCopyAlwaysWins:
      return "copy-wins";
    case BreakEvenKind::kAlikeThenCopy:
      return "alike-then-copy";
    case BreakEvenKind::kAlike:
      return "alike";
  }
  return "unknown";
}

// The point's winner: as decided beyond noise, else by the medians (-1 zero-copy, +1 copy).
int winner_of(const ReusePoint& p) {
  if (p.winner) return *p.winner;
  return p.zero_copy_s < p.copy_s ? -1 : +1;
}

BreakEven break_even(std::vector<ReusePoint> points) {
  std::ranges::sort(points, {}, &ReusePoint::reuse);
  const auto copy_wins = std::find_if(points.begin(), points.end(),
                                      [](const ReusePoint& p) { return winner_of(p) > 0; });
  const auto zero_copy_won = [&](auto end) {
    return std::any_of(points.begin(), end, [](const ReusePoint& p) { return winner_of(p) < 0; });
  };
  if (copy_wins == points.end())
    return {
        zero_copy_won(points.end()) ? BreakEvenKind::kZeroCopyAlwaysWins : BreakEvenKind::kAlike,
        {},
        {}};
  if (copy_wins == points.begin()) return {BreakEvenKind::kCopyAlwaysWins, {}, {}};
  if (!zero_copy_won(copy_wins))
    return {BreakEvenKind::kAlikeThenCopy, {}, std::prev(copy_wins)->reuse};
  // The medians' crossing between the last point zero-copy won and the first the copy won.
  auto last_zc = std::prev(copy_wins);
  while (winner_of(*last_zc) >= 0)
    --last_zc;
  const auto gap = [](const ReusePoint& p) { return p.zero_copy_s - p.copy_s; };
  for (auto it = std::next(last_zc); it <= copy_wins; ++it) {
    const double a = gap(*std::prev(it)), b = gap(*it);
    if (a < 0 && b >= 0) {
      const auto& lo = *std::prev(it);
      return {BreakEvenKind::kCrossing, lo.reuse + (it->reuse - lo.reuse) * (-a) / (b - a), {}};
    }
  }
  return {BreakEvenKind::kCrossing, std::prev(copy_wins)->reuse, {}};
}

bool is_write(const Measured& m) {
  return m.direction == "write";
}

models::HostAccess access_of(const Measured& m) {
  models::HostAccess a;
  a.zero_copy = m.mode == kZeroCopy;
  a.stride = m.stride;
  a.element_bytes = m.width;
  a.elements = m.width > 0 ? m.bytes / static_cast<std::uint64_t>(m.width) : 0;
  a.reuse = m.reuse;
  return a;
}

namespace {

// A row's params as a Measured, without metrics (planned rows too).
Measured read_params(Row& row) {
  Measured m;
  m.row = &row;
  m.mode = text_param_of(row, "mode").value_or("");
  m.memory = text_param_of(row, "memory").value_or("");
  m.direction = text_param_of(row, "direction").value_or("");
  m.reuse = static_cast<std::uint64_t>(int_param_of(row, "reuse").value_or(1));
  m.stride = static_cast<std::uint64_t>(int_param_of(row, "stride").value_or(1));
  m.width = static_cast<int>(int_param_of(row, "element_bytes").value_or(0));
  m.bytes = static_cast<std::uint64_t>(int_param_of(row, "bytes").value_or(0));
  if (const auto b = int_param_of(row, "blocks")) m.blocks = static_cast<std::uint64_t>(*b);
  return m;
}

bool modelled(const Measured& m) {
  return (m.mode == kZeroCopy || m.mode == kCopy) && m.width > 0;
}

void add_conditions(ProbeResult& result, const RunFacts& facts) {
  auto flag = [](bool b) { return b ? 1.0 : 0.0; };
  result.conditions.push_back({"can_map_host_memory", "", flag(facts.can_map_host_memory)});
  result.conditions.push_back({"integrated", "", flag(facts.integrated)});
  result.conditions.push_back({"unified_addressing", "", flag(facts.unified_addressing)});
  result.conditions.push_back(
      {"l2_fetch_granularity", "B",
       facts.reported_fetch ? std::optional<double>(static_cast<double>(*facts.reported_fetch))
                            : std::nullopt});
  result.conditions.push_back({"host_span", "B", static_cast<double>(facts.span_bytes)});
  if (facts.l2_bytes > 0)
    result.conditions.push_back(
        {"host_span_over_l2", "x",
         static_cast<double>(facts.span_bytes) / static_cast<double>(facts.l2_bytes)});
}

}  // namespace

std::vector<Measured> measured_rows(ProbeResult& result) {
  std::vector<Measured> out;
  for (auto& row : result.rows) {
    const auto time = metric_median(row, "time");
    const auto bw = metric_median(row, "bandwidth");
    if (!time || !bw) continue;  // a planned row
    Measured m = read_params(row);
    m.time_s = *time;
    m.gbps = *bw;
    out.push_back(m);
  }
  return out;
}

std::vector<const Measured*> main_rows(const std::vector<Measured>& all, const std::string& mode) {
  std::vector<const Measured*> out;
  for (const auto& m : all) {
    if (m.mode == mode && !m.blocks) out.push_back(&m);
  }
  return out;
}

void add_model(ProbeResult& result) {
  for (auto& row : result.rows) {
    const Measured m = read_params(row);
    if (!modelled(m)) continue;
    row.model.push_back(
        {"link_bytes_per_payload", "x", models::link_bytes_per_payload(access_of(m), is_write(m))});
  }
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  add_model(result);
  std::vector<Measured> all = measured_rows(result);
  std::vector<Finding> findings;
  once_findings(all, findings);
  break_even_findings(result, all);  // appends to result.findings: they follow the headline
  std::vector<Finding> rest;
  stride_findings(all, rest);
  counter_findings(all, facts, rest);
  merged_write_findings(all, facts, rest);
  in_flight_findings(all, rest);
  rest.push_back(sizing_note(facts));
  result.findings.insert(result.findings.begin(), findings.begin(), findings.end());
  result.findings.insert(result.findings.end(), rest.begin(), rest.end());
  add_conditions(result, facts);
}

}  // namespace gpuprobe::zerocopy
