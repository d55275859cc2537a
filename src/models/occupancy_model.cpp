// The `occupancy` probe's model: whole grid steps over a working set and Little's law both ways.
#include "gpuprobe/models/occupancy_model.hpp"

#include <algorithm>

namespace gpuprobe::models {

std::uint64_t stream_steps(std::uint64_t bytes, std::uint64_t threads, int ilp, int width) {
  const std::uint64_t step = threads * static_cast<std::uint64_t>(ilp) * width;
  return step == 0 ? 0 : bytes / step;
}

double little_bandwidth(double in_flight_per_sm, int sm_count, double latency_s, double plateau,
                        double counted) {
  if (latency_s <= 0) return plateau;
  return std::min(plateau, counted * in_flight_per_sm * sm_count / latency_s);
}

double knee_bytes(double fraction, double plateau, double latency_s, int sm_count, double counted) {
  if (sm_count <= 0 || counted <= 0) return 0;
  return fraction * plateau * latency_s / (counted * sm_count);
}

double implied_latency(double in_flight_per_sm, int sm_count, double bandwidth, double counted) {
  if (bandwidth <= 0) return 0;
  return counted * in_flight_per_sm * sm_count / bandwidth;
}

}  // namespace gpuprobe::models
