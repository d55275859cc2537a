// Derives source x destination matrices from rows with integer src/dst params
// (include/gpuprobe/core/pair_matrix.hpp): the path params, then one matrix per metric and path;
// and the ordered pairs of a device list.
#include "gpuprobe/core/pair_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpuprobe {
namespace {

// A row with its pair, and its size when it has one (the first param of unit B).
struct PairRow {
  const Row* row = nullptr;
  std::int64_t src = 0;
  std::int64_t dst = 0;
  std::optional<std::int64_t> size;
};

bool is_size(const Param& p) {
  return p.unit == "B";
}

std::vector<PairRow> pair_rows(const std::vector<Row>& rows) {
  std::vector<PairRow> out;
  for (const auto& row : rows) {
    const auto src = int_param_of(row, "src");
    const auto dst = int_param_of(row, "dst");
    if (!src || !dst) continue;
    PairRow r{&row, *src, *dst, std::nullopt};
    for (const auto& p : row.params) {
      if (!is_size(p)) continue;
      if (const auto* v = std::get_if<std::int64_t>(&p.value)) r.size = *v;
      break;
    }
    out.push_back(r);
  }
  return out;
}

// A param's value as text; "" when absent, which no present value equals ("=" in front).
std::string value_of(const Row& row, const std::string& key) {
  const Param* p = find_param(row.params, key);
  return p ? "=" + scalar_text(p->value) : "";
}

std::vector<std::string> values_of(const Row& row, const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys)
    out.push_back(value_of(row, k));
  return out;
}

// True when rows that agree on their pair and on `given` always agree on `key`.
bool determined(const std::vector<PairRow>& rows, const std::vector<std::string>& given,
                const std::string& key) {
  std::map<std::pair<std::pair<std::int64_t, std::int64_t>, std::vector<std::string>>, std::string>
      seen;
  for (const auto& r : rows) {
    const std::string v = value_of(*r.row, key);
    const auto [it, fresh] =
        seen.emplace(std::make_pair(std::make_pair(r.src, r.dst), values_of(*r.row, given)), v);
    if (!fresh && it->second != v) return false;
  }
  return true;
}

// The params that tell one pair's rows apart, sizes aside, less those that follow from the pair
// and the others (checked from the last param back, so `link` goes and `mode` stays).
std::vector<std::string> path_keys(const std::vector<PairRow>& rows) {
  std::vector<std::string> keys;
  for (const auto& r : rows) {
    for (const auto& p : r.row->params) {
      if (p.key == "src" || p.key == "dst" || is_size(p)) continue;
      if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) keys.push_back(p.key);
    }
  }
  std::erase_if(keys, [&](const std::string& k) { return determined(rows, {}, k); });
  for (std::size_t i = keys.size(); i-- > 0;) {
    std::vector<std::string> others = keys;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    if (determined(rows, others, keys[i]))
      keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return keys;
}

// A metric's finite median when the row has it in `unit`.
std::optional<double> value_in(const Row& row, const std::string& metric, const std::string& unit) {
  const Metric* m = find_metric(row, metric);
  if (!m || m->unit != unit || !std::isfinite(m->stats.median)) return std::nullopt;
  return m->stats.median;
}

bool is_rate(const std::string& unit) {
  return unit.size() > 2 && unit.ends_with("/s");
}

struct Path {
  std::vector<std::string> id;  // the path params' values (value_of)
  std::vector<Param> params;    // those present
};

std::vector<Path> paths_of(const std::vector<PairRow>& rows, const std::vector<std::string>& keys) {
  std::vector<Path> paths;
  for (const auto& r : rows) {
    auto id = values_of(*r.row, keys);
    auto same = [&](const Path& p) { return p.id == id; };
    if (std::any_of(paths.begin(), paths.end(), same)) continue;
    Path path{std::move(id), {}};
    for (const auto& k : keys)
      if (const Param* p = find_param(r.row->params, k)) path.params.push_back(*p);
    paths.push_back(std::move(path));
  }
  return paths;
}

// Metrics the matrices show, (name, unit) in order of first appearance: rates and times.
std::vector<std::pair<std::string, std::string>> matrix_metrics(const std::vector<PairRow>& rows) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : rows) {
    for (const auto& m : r.row->metrics) {
      if (!is_rate(m.unit) && m.unit != "s") continue;
      auto named = [&](const auto& e) { return e.first == m.name; };
      if (std::none_of(out.begin(), out.end(), named)) out.emplace_back(m.name, m.unit);
    }
  }
  return out;
}

std::size_t index_of(const std::vector<std::int64_t>& devices, std::int64_t device) {
  return static_cast<std::size_t>(std::lower_bound(devices.begin(), devices.end(), device) -
                                  devices.begin());
}

// Fills one matrix's cells from the rows of its path; nothing when no row has a value.
std::optional<PairMatrix> fill(PairMatrix m, const std::vector<PairRow>& rows) {
  const std::size_t n = m.devices.size();
  m.cells.assign(n, std::vector<std::optional<double>>(n));
  // kAtSmallest: the size each cell's value was taken at (nullopt: a row without a size).
  std::map<std::pair<std::size_t, std::size_t>, std::optional<std::int64_t>> taken_at;
  for (const auto& r : rows) {
    const auto v = value_in(*r.row, m.metric, m.unit);
    if (!v) continue;
    const std::size_t i = index_of(m.devices, r.src), j = index_of(m.devices, r.dst);
    auto& cell = m.cells[i][j];
    if (m.cell == PairCell::kPeak) {
      cell = cell ? std::max(*cell, *v) : *v;
      continue;
    }
    const auto at = taken_at.find({i, j});
    const bool smaller = at == taken_at.end() || (r.size && (!at->second || *r.size < *at->second));
    if (!smaller) continue;
    cell = *v;
    taken_at[{i, j}] = r.size;
  }
  if (m.cell == PairCell::kAtSmallest && !taken_at.empty()) {
    m.bytes = taken_at.begin()->second;
    for (const auto& entry : taken_at)
      if (entry.second != m.bytes) m.bytes = std::nullopt;
  }
  const bool any = std::any_of(m.cells.begin(), m.cells.end(), [](const auto& line) {
    return std::any_of(line.begin(), line.end(), [](const auto& c) { return c.has_value(); });
  });
  if (!any) return std::nullopt;
  return m;
}

// A latency metric of the path's own (a time other than "time", as peer's sm-latency
// access_latency): where the rows carry one, it alone stands for the path.
std::optional<std::string> own_latency(const std::vector<PairRow>& rows) {
  for (const auto& r : rows)
    for (const auto& m : r.row->metrics)
      if (m.unit == "s" && m.name != "time") return m.name;
  return std::nullopt;
}

}  // namespace

std::vector<PairMatrix> pair_matrices(const std::vector<Row>& rows) {
  const std::vector<PairRow> all = pair_rows(rows);
  if (all.empty()) return {};
  std::vector<std::int64_t> devices;
  for (const auto& r : all) {
    devices.push_back(r.src);
    devices.push_back(r.dst);
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  const auto keys = path_keys(all);
  const auto paths = paths_of(all, keys);
  std::vector<PairMatrix> out;
  for (const auto& [metric, unit] : matrix_metrics(all)) {
    for (const auto& path : paths) {
      std::vector<PairRow> on_path;
      for (const auto& r : all)
        if (values_of(*r.row, keys) == path.id) on_path.push_back(r);
      const auto own = own_latency(on_path);
      if (own && *own != metric) continue;
      PairMatrix m;
      m.metric = metric;
      m.unit = unit;
      m.cell = unit == "s" ? PairCell::kAtSmallest : PairCell::kPeak;
      m.path = path.params;
      m.devices = devices;
      if (auto filled = fill(std::move(m), on_path)) out.push_back(std::move(*filled));
    }
  }
  return out;
}

std::vector<std::pair<int, int>> ordered_pairs(const std::vector<int>& devices) {
  std::vector<int> unique;
  for (const int d : devices)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  std::vector<std::pair<int, int>> pairs;
  for (const int src : unique)
    for (const int dst : unique)
      if (src != dst) pairs.emplace_back(src, dst);
  return pairs;
}

}  // namespace gpuprobe
