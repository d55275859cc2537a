// The copy/compute pipeline model: sequential, ideal, pipelined, concurrent-rate and the Guide's.
#include "gpuprobe/models/overlap_model.hpp"

#include <algorithm>

namespace gpuprobe::models {
namespace {

// Per-chunk stage times: each stage's share of the buffer plus its fixed cost per chunk.
StageTimes per_chunk(const StageTimes& t, std::size_t n, const ChunkCosts& c) {
  const double chunks = static_cast<double>(n);
  return {t.h2d / chunks + c.h2d, t.kernel / chunks + c.kernel, t.d2h / chunks + c.d2h};
}

double largest(const StageTimes& s) {
  return std::max({s.h2d, s.kernel, s.d2h});
}

double total(const StageTimes& s) {
  return s.h2d + s.kernel + s.d2h;
}

}  // namespace

double chunk_cost(double whole, double chunked, std::size_t chunks) {
  if (chunks <= 1) return 0;
  return (chunked - whole) / static_cast<double>(chunks - 1);
}

double sequential_time(const StageTimes& t) {
  return total(t);
}

double ideal_time(const StageTimes& t) {
  return largest(t);
}

double pipeline_time(const StageTimes& t, std::size_t n, const ChunkCosts& c) {
  if (n <= 1) return total(t);
  const StageTimes s = per_chunk(t, n, c);
  return total(s) + static_cast<double>(n - 1) * largest(s);
}

double concurrent_pipeline_time(const StageTimes& solo, const StageTimes& both, std::size_t n,
                                const ChunkCosts& c) {
  if (n <= 1) return total(solo);
  const StageTimes s = per_chunk(solo, n, c);
  const StageTimes s_both = per_chunk(both, n, c);
  return total(s) + largest(s) + static_cast<double>(n - 2) * largest(s_both);
}

double guide_time(const StageTimes& t, std::size_t n) {
  const double transfer = t.h2d + t.d2h;
  const double chunks = static_cast<double>(std::max<std::size_t>(n, 1));
  return std::max(t.kernel, transfer) + std::min(t.kernel, transfer) / chunks;
}

double overlap_efficiency(double t_sequential, double t, double t_ideal) {
  if (t_sequential <= t_ideal) return 0;
  return (t_sequential - t) / (t_sequential - t_ideal);
}

}  // namespace gpuprobe::models
