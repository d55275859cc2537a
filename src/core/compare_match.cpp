// Matches two runs for compare: device pairs, results, and rows/summary rows/findings by params.
#include "gpuprobe/core/compare_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

template <typename T, typename KeyOf>
KeyMatch match_items(const std::vector<T>& a, const std::vector<T>& b, KeyOf key_of) {
  std::vector<std::string> ka, kb;
  for (const auto& x : a)
    ka.push_back(key_of(x));
  for (const auto& x : b)
    kb.push_back(key_of(x));
  return match_keys(ka, kb);
}

}  // namespace

std::set<int> result_devices(const RunReport& report) {
  std::set<int> out;
  for (const auto& r : report.results) {
    if (r.device) out.insert(*r.device);
  }
  return out;
}

std::string device_list(const std::set<int>& devices) {
  if (devices.empty()) return "none";
  return fmt::format("{}", fmt::join(devices, ", "));
}

std::string pair_text(const DevicePair& pair) {
  return pair.a == pair.b ? fmt::format("GPU {}", pair.a)
                          : fmt::format("GPU {} vs {}", pair.a, pair.b);
}

std::string canonical_scalar(const Scalar& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return fmt::format("{}", i); }
    std::string operator()(double d) const {
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
        return fmt::format("{}", static_cast<std::int64_t>(d));
      return fmt::format("{}", d);
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    // A list is the same claim as the text older files carried for it ("1,2,4"), so findings
    // match across the change.
    std::string operator()(const IntList& l) const { return (*this)(scalar_text(l)); }
    std::string operator()(const TextList& l) const { return (*this)(scalar_text(l)); }
  };
  return std::visit(Visitor{}, value);
}

std::string params_key(const std::vector<Param>& params) {
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& p : params)
    items.emplace_back(p.key, canonical_scalar(p.value));
  std::sort(items.begin(), items.end());
  std::string key;
  for (const auto& [k, v] : items)
    key += k + "\x1f" + v + "\x1e";
  return key;
}

bool is_size_param(const Param& p) {
  const bool number =
      std::holds_alternative<std::int64_t>(p.value) || std::holds_alternative<double>(p.value);
  const bool named = p.key == "bytes" || (p.key.size() > 6 && p.key.ends_with("_bytes"));
  return number && (p.unit == "B" || (p.unit.empty() && named));
}

std::string params_text(const std::vector<Param>& params) {
  std::vector<std::string> parts;
  for (const auto& p : params) {
    if (std::holds_alternative<std::monostate>(p.value)) continue;  // null: does not apply
    // Sizes in IEC units: "bytes=64 MiB".
    const auto* i = std::get_if<std::int64_t>(&p.value);
    const auto* d = std::get_if<double>(&p.value);
    const bool bytes = is_size_param(p);
    parts.push_back(
        fmt::format("{}={}", p.key,
                    bytes ? format_bytes(i ? static_cast<double>(*i) : *d) : scalar_text(p.value)));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::vector<DevicePair> device_pairs(const RunReport& a, const RunReport& b,
                                     const std::vector<DevicePair>& requested,
                                     const std::string& a_name, const std::string& b_name) {
  const std::set<int> in_a = result_devices(a);
  const std::set<int> in_b = result_devices(b);
  if (requested.empty()) {
    std::vector<DevicePair> pairs;
    for (int d : in_a)
      pairs.push_back({d, d});
    return pairs;
  }
  for (const auto& p : requested) {
    if (!in_a.count(p.a)) {
      throw UsageError(fmt::format("--devices {}:{}: {} has no results for GPU {} (it has GPU {})",
                                   p.a, p.b, a_name, p.a, device_list(in_a)));
    }
    if (!in_b.count(p.b)) {
      throw UsageError(fmt::format("--devices {}:{}: {} has no results for GPU {} (it has GPU {})",
                                   p.a, p.b, b_name, p.b, device_list(in_b)));
    }
  }
  return requested;
}

ResultMatch match_results(const RunReport& a, const RunReport& b,
                          const std::vector<DevicePair>& pairs) {
  ResultMatch out;
  std::vector<bool> b_used(b.results.size(), false);
  std::set<int> b_scope;
  for (const auto& p : pairs)
    b_scope.insert(p.b);
  for (const auto& ra : a.results) {
    if (!ra.device) {
      out.unmeasured.emplace_back(&ra, 'A');
      continue;
    }
    bool in_scope = false;
    for (const auto& p : pairs) {
      if (p.a != *ra.device) continue;
      // A host-scoped result (peer) is about all its GPUs, not GPU a: it pairs only under a
      // pair of one GPU with itself, never in "GPU 0 vs GPU 1".
      if (!ra.devices.empty() && p.a != p.b) continue;
      in_scope = true;
      const ProbeResult* partner = nullptr;
      for (std::size_t i = 0; i < b.results.size(); ++i) {
        const ProbeResult& rb = b.results[i];
        if (!b_used[i] && rb.probe == ra.probe && rb.device == p.b) {
          b_used[i] = true;
          partner = &rb;
          break;
        }
      }
      if (partner)
        out.pairs.push_back({&ra, partner, p});
      else
        out.lone.push_back({&ra, 'A', p});
    }
    if (!in_scope) ++out.outside_a;
  }
  for (std::size_t i = 0; i < b.results.size(); ++i) {
    const ProbeResult& rb = b.results[i];
    if (b_used[i]) continue;
    if (!rb.device) {
      out.unmeasured.emplace_back(&rb, 'B');
      continue;
    }
    if (!b_scope.count(*rb.device) ||
        (!rb.devices.empty() && std::none_of(pairs.begin(), pairs.end(), [&](const DevicePair& q) {
          return q.a == q.b && q.b == *rb.device;
        }))) {
      ++out.outside_b;
      continue;
    }
    DevicePair p{*rb.device, *rb.device};
    for (const auto& q : pairs) {
      if (q.b == *rb.device && (rb.devices.empty() || q.a == q.b)) p = q;
    }
    out.lone.push_back({&rb, 'B', p});
  }
  return out;
}

KeyMatch match_keys(const std::vector<std::string>& keys_a,
                    const std::vector<std::string>& keys_b) {
  // B's items by key, in file order; each is used at most once.
  std::map<std::string, std::vector<std::size_t>> b_items;
  for (std::size_t i = 0; i < keys_b.size(); ++i)
    b_items[keys_b[i]].push_back(i);
  std::map<std::string, std::size_t> next;
  std::vector<bool> b_used(keys_b.size(), false);
  KeyMatch out;
  for (std::size_t i = 0; i < keys_a.size(); ++i) {
    const auto it = b_items.find(keys_a[i]);
    std::size_t& n = next[keys_a[i]];
    if (it == b_items.end() || n >= it->second.size()) {
      out.only_a.push_back(i);
      continue;
    }
    const std::size_t j = it->second[n++];
    b_used[j] = true;
    out.matched.emplace_back(i, j);
  }
  for (std::size_t j = 0; j < keys_b.size(); ++j) {
    if (!b_used[j]) out.only_b.push_back(j);
  }
  return out;
}

std::string scale_free_key(const std::vector<Param>& params) {
  const bool has_share =
      std::any_of(params.begin(), params.end(), [](const Param& p) { return p.unit == "%"; });
  std::vector<Param> kept;
  for (const auto& p : params) {
    if (!(has_share && p.unit == "B")) kept.push_back(p);
  }
  return params_key(kept);
}

KeyMatch match_rows(const std::vector<Row>& a, const std::vector<Row>& b) {
  KeyMatch out = match_items(a, b, [](const Row& r) { return params_key(r.params); });
  if (out.only_a.empty() || out.only_b.empty()) return out;
  // Rows left over on both sides: matched again by their params without the sizes that scale
  // with the GPU (a row sized as a share of something, e.g. 100% of the L2 set-aside, is the same
  // row on a GPU whose set-aside is larger).
  std::vector<std::string> keys_a, keys_b;
  for (std::size_t i : out.only_a)
    keys_a.push_back(scale_free_key(a[i].params));
  for (std::size_t j : out.only_b)
    keys_b.push_back(scale_free_key(b[j].params));
  const KeyMatch again = match_keys(keys_a, keys_b);
  if (again.matched.empty()) return out;
  for (const auto& [i, j] : again.matched)
    out.matched.emplace_back(out.only_a[i], out.only_b[j]);
  std::sort(out.matched.begin(), out.matched.end());
  auto remaining = [](const std::vector<std::size_t>& left, const std::vector<std::size_t>& idx) {
    std::vector<std::size_t> kept;
    for (std::size_t k : left)
      kept.push_back(idx[k]);
    return kept;
  };
  out.only_a = remaining(again.only_a, out.only_a);
  out.only_b = remaining(again.only_b, out.only_b);
  return out;
}

KeyMatch match_summaries(const std::vector<SummaryRow>& a, const std::vector<SummaryRow>& b) {
  return match_items(a, b, [](const SummaryRow& s) { return params_key(s.params); });
}

std::string finding_key(const Finding& finding) {
  return finding.id + "\x1d" + params_key(finding.params);
}

KeyMatch match_findings(const std::vector<Finding>& a, const std::vector<Finding>& b) {
  return match_items(a, b, finding_key);
}

}  // namespace gpuprobe
