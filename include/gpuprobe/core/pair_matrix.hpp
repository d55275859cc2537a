// Source x destination matrices of a result whose rows carry integer `src` and `dst` params (the
// peer probe's GPU pairs), derived from the rows at render time: per path, peak bandwidth and
// latency, in the shape of nvbandwidth's and p2pBandwidthLatencyTest's matrices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Every ordered pair (src, dst) of distinct devices of `devices`, in list order: for 0,1,2 that
// is (0,1) (0,2) (1,0) (1,2) (2,0) (2,1). A device listed twice counts once; one device gives none.
std::vector<std::pair<int, int>> ordered_pairs(const std::vector<int>& devices);

// What a cell holds: the most over a cell's rows (a rate: GB/s), or the value at the cell's
// smallest size (a time: the latency end of the sweep).
enum class PairCell { kPeak, kAtSmallest };

struct PairMatrix {
  std::string metric;  // "bandwidth", "time", "latency", ...
  std::string unit;    // the metric's: "GB/s", "s"
  PairCell cell = PairCell::kPeak;
  // The params that tell one pair's rows apart, sizes aside ("mode" = "ce", "direction" = "uni"):
  // one matrix per combination. Empty when the rows of a pair differ by size only.
  std::vector<Param> path;
  // kAtSmallest: the size (a param of unit B) every cell was taken at; nullopt when cells differ
  // or the rows have no size.
  std::optional<std::int64_t> bytes;
  std::vector<std::int64_t> devices;  // the GPUs of rows and columns, ascending
  // cells[i][j]: src devices[i] -> dst devices[j]; nullopt where no row has a value (the
  // diagonal, unless rows with src == dst exist).
  std::vector<std::vector<std::optional<double>>> cells;
};

// The matrices of `rows`: rows without integer `src` and `dst` params are left out, and so are
// metrics that are neither a rate (unit ending in "/s": peak over sizes) nor a time (unit "s": at
// the smallest size). The path is each param other than src, dst and sizes (unit B) that takes
// two values within one pair, unless it follows from the pair and the other path params (peer's
// `link`). A path whose rows carry a latency of their own (a metric in s other than `time`, as
// peer's sm-latency `access_latency`) gets that matrix only. Order: for each metric in order of
// first appearance (bandwidth before time), one matrix per path in order of first appearance.
// Matrices without any value (a plan's rows) are left out, so rows without src/dst, or without
// metrics, give none.
std::vector<PairMatrix> pair_matrices(const std::vector<Row>& rows);

}  // namespace gpuprobe
