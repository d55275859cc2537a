// A sweep's rows held to its plan (host-only): one planned row per point, the measured row of a
// point made from it, and the keys that name a point to a round process (sweep_probe.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/samples.hpp"

namespace gpuprobe {

// The text that names a planned row's point: its params, "memory=pinned direction=d2h bytes=4096".
std::string point_key(const Row& planned);

// The rows of one run of a sweep. Every point ends measured (a row made from its planned row and
// its samples) or dropped (it could not run: no row); finish() gives the rows in point order.
class SweepRows {
 public:
  explicit SweepRows(std::vector<Row> planned);

  std::size_t size() const { return planned_.size(); }
  const Row& planned(std::size_t point) const { return planned_.at(point); }
  // The row of a measured point: its planned params, model, derived and flags, with
  // measured_row's metrics, sample flags and counters; the probe may add to it (metrics, derived,
  // model, flags, params after the planned ones, or values where the plan has none). Throws
  // std::logic_error for a point already measured or dropped.
  Row& add(std::size_t point, const SampleSet& samples);
  // The row add() made for a point; throws std::logic_error where there is none.
  Row& row(std::size_t point);
  // A point that could not run (not enough memory, no P2P access): it gets no row.
  void drop(std::size_t point);
  // The samples add() was given for a point; nullptr where it has none.
  const SampleSet* samples(std::size_t point) const;
  // The rows, in point order. Throws std::logic_error naming the point when one was neither
  // measured nor dropped, or when a row's params do not begin with its planned params' keys.
  std::vector<Row> finish() const;

  // The keys of `points` (point_key). Throws std::logic_error when two points share a key.
  std::vector<std::string> keys(const std::vector<std::size_t>& points) const;
  // The points `keys` name, in their order. Throws UsageError on a key of no point.
  std::vector<std::size_t> points_of(const std::vector<std::string>& keys) const;

 private:
  std::vector<Row> planned_;
  std::vector<std::optional<Row>> rows_;
  std::vector<std::optional<SampleSet>> samples_;
  std::vector<bool> dropped_;
};

}  // namespace gpuprobe
