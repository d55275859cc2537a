// The `latency` probe's model: the working-set ladder and the L1 capacity at a carve-out.
#include "gpuprobe/models/latency_model.hpp"

#include <algorithm>
#include <cmath>

namespace gpuprobe::models {

std::vector<std::uint64_t> size_ladder(std::uint64_t min, std::uint64_t max,
                                       std::uint64_t per_octave, std::uint64_t stride) {
  std::vector<std::uint64_t> out;
  if (stride == 0 || per_octave == 0 || max < 2 * stride) return out;
  const std::uint64_t lo = std::max(min, 2 * stride);
  for (std::uint64_t k = 0;; ++k) {
    const double s = static_cast<double>(lo) *
                     std::exp2(static_cast<double>(k) / static_cast<double>(per_octave));
    if (s > static_cast<double>(max)) break;
    const std::uint64_t bytes = static_cast<std::uint64_t>(s) / stride * stride;
    if (out.empty() || bytes > out.back()) out.push_back(bytes);
  }
  const std::uint64_t top = max / stride * stride;
  if (out.empty() || top > out.back()) out.push_back(top);
  return out;
}

std::optional<L1Storage> l1_storage(int major, int minor) {
  constexpr std::uint64_t K = 1024;
  const std::vector<std::uint64_t> base = {0, 8 * K, 16 * K, 32 * K, 64 * K, 100 * K};
  auto with = [&](std::initializer_list<std::uint64_t> more) {
    std::vector<std::uint64_t> v = base;
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  if (major == 9 && minor == 0)
    return L1Storage{256 * K, with({132 * K, 164 * K, 196 * K, 228 * K})};
  if (major == 8 && (minor == 0 || minor == 7)) return L1Storage{192 * K, with({132 * K, 164 * K})};
  if (major == 8 && (minor == 6 || minor == 9)) return L1Storage{128 * K, base};
  if (major == 7 && minor == 0)
    return L1Storage{128 * K, {0, 8 * K, 16 * K, 32 * K, 64 * K, 96 * K}};
  return std::nullopt;
}

std::uint64_t shared_for_carveout(const L1Storage& s, std::uint64_t percent,
                                  std::uint64_t max_shared) {
  const double want = static_cast<double>(std::min<std::uint64_t>(percent, 100)) / 100.0 *
                      static_cast<double>(max_shared);
  for (std::uint64_t c : s.shared_configs)
    if (static_cast<double>(c) >= want) return c;
  return s.shared_configs.empty() ? 0 : s.shared_configs.back();
}

std::uint64_t l1_capacity(const L1Storage& s, std::uint64_t percent, std::uint64_t max_shared) {
  const std::uint64_t shared = shared_for_carveout(s, percent, max_shared);
  return shared >= s.unified_bytes ? 0 : s.unified_bytes - shared;
}

}  // namespace gpuprobe::models
