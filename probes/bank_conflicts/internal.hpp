// bank-conflicts' analysis internals (host-only): what analysis.cpp and findings.cpp share:
// tolerances, the noise outcome, the ladder and the stride sweep as read from the rows.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::bank {

inline constexpr double kClaimBand = 0.10;       // "basically the same": within 10% of copy
inline constexpr double kModelTolerance = 0.10;  // a stride row "agrees" within 10% of the model
inline constexpr std::size_t kMissesShown = 3;

// The ladder's rows and their bandwidth by kernel.
struct Ladder {
  std::map<std::string, const Metric*> bandwidth;  // by kernel
  std::vector<Row*> rows;
  std::int64_t size = 0;
  const Metric* of(const char* kernel) const {
    const auto it = bandwidth.find(kernel);
    return it == bandwidth.end() ? nullptr : it->second;
  }
  // Bandwidth of kernel `b` over that of `a`; nullopt when either was not measured.
  std::optional<double> ratio(const char* b, const char* a) const {
    const Metric* mb = of(b);
    const Metric* ma = of(a);
    if (!ma || !mb) return std::nullopt;
    return mb->stats.median / ma->stats.median;
  }
};

// The bytes of the two matrices.
inline double working_set(const Ladder& l) {
  return 2.0 * static_cast<double>(l.size) * static_cast<double>(l.size) * 4;
}

// The counter agreements' findings.
extern const CounterAgreementMaker kCounterLadderLoads;
extern const CounterAgreementMaker kCounterLadderStores;
extern const CounterAgreementMaker kCounterStride;

// The ladder's verdicts: padded vs tiled, swizzled vs padded, the source's claim.
void ladder_verdicts(const Ladder& l, std::vector<Finding>& verdicts);
// The notes on copy, the baseline (its repeat, and transposes that beat it), and that the two
// matrices nearly fit in L2.
void ladder_notes(const Ladder& l, const Inputs& in, std::vector<Finding>& notes);

// A measured row of the stride sweep.
struct StridePoint {
  Row* row;
  std::string op;
  int width;
  std::uint64_t stride;
  double time;  // median seconds per warp-wide shared instruction per SM
  double bandwidth;
};

// One (op, width) of the sweep.
struct Group {
  std::string op;
  int width;
  bool operator==(const Group&) const = default;
};

// The stride sweep's points, its groups in the order of the rows, and the SM clock.
struct Sweep {
  std::vector<StridePoint> points;
  std::vector<Group> groups;
  bool sampled = false;  // the clock was sampled around the sweep
  double clock_mhz = 0;
  // Stride 1 of a group; nullptr when not measured.
  const StridePoint* base_of(const Group& g) const {
    for (const auto& p : points) {
      if (p.op == g.op && p.width == g.width && p.stride == 1) return &p;
    }
    return nullptr;
  }
  std::optional<double> cycles(double seconds) const {
    if (!(clock_mhz > 0)) return std::nullopt;
    return seconds * clock_mhz * 1e6;
  }
};

// One group's slowdowns against stride 1, measured and by the model.
struct GroupSlowdowns {
  double max_slow = 0, max_model = 0;
  std::optional<double> odd_lo, odd_hi;                       // odd strides above 1
  std::map<std::uint64_t, std::pair<double, double>> picked;  // stride 0, 2, 32: slow, model
};

// A stride row further from the model than the tolerance.
struct Miss {
  double off;
  const StridePoint* point;
  double slowdown;
  double model;
};

// How the stride rows compare with the model, over every group with a stride 1.
struct Agreement {
  std::vector<Miss> misses;
  std::size_t compared = 0, within = 0;
  bool any_base = false;
};

// The verdict on one group's slowdowns; nullopt when no stride of note was measured.
std::optional<Finding> stride_slowdowns(const Group& g, const GroupSlowdowns& s);
// The agreement verdict and the worst misses, or the note that no stride 1 was measured.
void agreement_findings(Agreement& a, std::vector<Finding>& verdicts, std::vector<Finding>& notes);
// The notes on how the stride kernel ran, how cycles are derived, and that no row has counters.
void sweep_notes(const Sweep& sweep, const Inputs& in, std::vector<Finding>& notes);

}  // namespace gpuprobe::bank
