// A sweep's rows held to its plan: measured or dropped per point, in point order; point keys.
#include "gpuprobe/core/sweep_rows.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {

std::string point_key(const Row& planned) {
  std::vector<std::string> words;
  for (const Param& p : planned.params)
    words.push_back(fmt::format("{}={}", p.key, scalar_text(p.value)));
  return fmt::format("{}", fmt::join(words, " "));
}

SweepRows::SweepRows(std::vector<Row> planned)
    : planned_(std::move(planned)),
      rows_(planned_.size()),
      samples_(planned_.size()),
      dropped_(planned_.size(), false) {}

Row& SweepRows::add(std::size_t point, const SampleSet& samples) {
  if (rows_.at(point) || dropped_.at(point))
    throw std::logic_error(fmt::format("sweep point '{}' given twice", point_key(planned_[point])));
  const Row& plan = planned_[point];
  Row row = measured_row(plan.params, samples);
  row.model = plan.model;
  row.derived = plan.derived;
  row.flags.insert(row.flags.end(), plan.flags.begin(), plan.flags.end());
  samples_[point] = samples;
  return rows_[point].emplace(std::move(row));
}

Row& SweepRows::row(std::size_t point) {
  if (!rows_.at(point))
    throw std::logic_error(fmt::format("sweep point '{}' has no row", point_key(planned_[point])));
  return *rows_[point];
}

void SweepRows::drop(std::size_t point) {
  if (rows_.at(point) || dropped_.at(point))
    throw std::logic_error(fmt::format("sweep point '{}' given twice", point_key(planned_[point])));
  dropped_[point] = true;
}

const SampleSet* SweepRows::samples(std::size_t point) const {
  return samples_.at(point) ? &*samples_[point] : nullptr;
}

std::vector<Row> SweepRows::finish() const {
  std::vector<Row> out;
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    if (dropped_[i]) continue;
    if (!rows_[i])
      throw std::logic_error(
          fmt::format("sweep point '{}' was neither measured nor dropped", point_key(planned_[i])));
    const std::vector<Param>& plan = planned_[i].params;
    const std::vector<Param>& got = rows_[i]->params;
    bool same = got.size() >= plan.size();
    for (std::size_t k = 0; same && k < plan.size(); ++k)
      same = got[k].key == plan[k].key;
    if (!same)
      throw std::logic_error(fmt::format("the row of sweep point '{}' lost its planned params",
                                         point_key(planned_[i])));
    out.push_back(*rows_[i]);
  }
  return out;
}

std::vector<std::string> SweepRows::keys(const std::vector<std::size_t>& points) const {
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    if (!seen.emplace(point_key(planned_[i]), i).second)
      throw std::logic_error(
          fmt::format("two sweep points share the key '{}'", point_key(planned_[i])));
  }
  std::vector<std::string> out;
  for (const std::size_t i : points)
    out.push_back(point_key(planned_.at(i)));
  return out;
}

std::vector<std::size_t> SweepRows::points_of(const std::vector<std::string>& keys) const {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < planned_.size(); ++i)
    index.emplace(point_key(planned_[i]), i);
  std::vector<std::size_t> out;
  for (const auto& key : keys) {
    const auto it = index.find(key);
    if (it == index.end()) throw UsageError(fmt::format("no sweep point '{}'", key));
    out.push_back(it->second);
  }
  return out;
}

}  // namespace gpuprobe
