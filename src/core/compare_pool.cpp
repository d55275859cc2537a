// Pools several runs of one side of a comparison: results by probe and device, rows by params,
// each metric's rounds concatenated run by run and its statistics recomputed.
#include "gpuprobe/core/compare_pool.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "gpuprobe/core/compare_match.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

using ResultKey = std::pair<std::string, std::optional<int>>;  // probe, device

class Pool {
 public:
  explicit Pool(const RunReport& first) : out_(first) { out_.results.clear(); }
  void add(const RunReport& run);
  RunReport finish();

 private:
  void add_rows(std::size_t result, const ProbeResult& from);
  void add_metric(std::size_t result, std::size_t row, const Metric& from);

  RunReport out_;
  std::map<ResultKey, std::size_t> results_;              // key -> index in out_.results
  std::vector<std::map<std::string, std::size_t>> rows_;  // per result: params key -> row
  std::set<std::tuple<std::size_t, std::size_t, std::size_t>> pooled_;  // metrics to recompute
};

void Pool::add(const RunReport& run) {
  for (const auto& r : run.results) {
    const ResultKey key{r.probe, r.device};
    const auto it = results_.find(key);
    if (it == results_.end()) {
      results_[key] = out_.results.size();
      out_.results.push_back(r);
      auto& rows = rows_.emplace_back();
      for (std::size_t i = 0; i < r.rows.size(); ++i)
        rows.emplace(params_key(r.rows[i].params), i);  // the first of equal keys
      continue;
    }
    // A later run's result adds its rows only when both are ok: a failed or skipped result has
    // nothing measured to pool.
    if (out_.results[it->second].status == Status::kOk && r.status == Status::kOk)
      add_rows(it->second, r);
  }
}

void Pool::add_rows(std::size_t result, const ProbeResult& from) {
  auto& rows = out_.results[result].rows;
  std::set<std::size_t> used;  // each pooled row takes one row of this run
  for (const auto& row : from.rows) {
    const std::string key = params_key(row.params);
    const auto it = rows_[result].find(key);
    if (it == rows_[result].end() || used.count(it->second)) {
      if (it == rows_[result].end()) rows_[result].emplace(key, rows.size());
      rows.push_back(row);
      continue;
    }
    used.insert(it->second);
    for (const auto& m : row.metrics)
      add_metric(result, it->second, m);
  }
}

void Pool::add_metric(std::size_t result, std::size_t row, const Metric& from) {
  auto& metrics = out_.results[result].rows[row].metrics;
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    Metric& m = metrics[k];
    if (m.name != from.name) continue;
    if (m.unit != from.unit) return;  // not the same quantity: the first run's stands
    if (m.samples.empty() || from.samples.empty()) {
      // Without every run's samples nothing can be pooled honestly: the band rule, on the first
      // run's statistics.
      m.samples.clear();
      pooled_.erase({result, row, k});
      return;
    }
    m.samples.insert(m.samples.end(), from.samples.begin(), from.samples.end());
    pooled_.insert({result, row, k});
    return;
  }
  metrics.push_back(from);
}

RunReport Pool::finish() {
  for (const auto& [result, row, k] : pooled_) {
    Metric& m = out_.results[result].rows[row].metrics[k];
    std::vector<double> all;
    for (const auto& round : m.samples)
      all.insert(all.end(), round.begin(), round.end());
    if (!all.empty()) m.stats = statistics_of(all);
  }
  return std::move(out_);
}

}  // namespace

RunReport pool_runs(const std::vector<RunReport>& runs) {
  if (runs.empty()) return {};
  if (runs.size() == 1) return runs.front();
  Pool pool(runs.front());
  for (const auto& run : runs)
    pool.add(run);
  return pool.finish();
}

std::string side_name(const std::string& label, const std::vector<std::string>& files) {
  if (files.size() == 1) return files.front();
  return fmt::format("{} ({} runs)", label, files.size());
}

}  // namespace gpuprobe
