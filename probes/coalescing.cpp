// The `coalescing` probe: offset and stride copy bandwidth by element width, beside a model of
// sectors and lines per request and DRAM fetch blocks per warp.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "coalescing_kernels.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/coalescing_model.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using models::CopyPattern;

constexpr std::uint32_t kSeed = 0xC0A1E5C3u;
constexpr double kMemoryCapFraction = 0.25;        // of free device memory, inputs + output
constexpr double kClampedMinWorkingSet = 4.0;      // x L2: floor for strides run with a smaller N
constexpr std::uint64_t kMaxOffset = 65536;        // elements
constexpr std::uint64_t kMaxStride = 65536;        // elements
constexpr std::uint64_t kElementQuantum = 1024;    // N is a multiple of this
constexpr std::uint64_t kFallbackL2 = 8ull << 20;  // when the driver reports no L2 size
// Measured / DRAM model below this: the verdict says the model no longer explains the loss.
constexpr double kModelShortfall = 0.9;

const char* pattern_name(CopyPattern p) {
  return p == CopyPattern::kOffset ? "offset" : "stride";
}

coalescing::CopyKind kernel_kind(CopyPattern p) {
  return p == CopyPattern::kOffset ? coalescing::CopyKind::kOffset : coalescing::CopyKind::kStride;
}

std::uint64_t baseline_param(CopyPattern p) {
  return p == CopyPattern::kOffset ? 0 : 1;
}

struct Settings {
  std::string offsets = "0:32";
  std::string strides = "1:32,64,128,256";
  std::string widths = "4,8,16";
  std::string pattern = "both";
  double l2_multiple = 8;  // N * element bytes >= this x L2 (quick: 4)
};

// One sweep point. `baseline` marks a point measured only because the relative bandwidth
// needs it (offset 0 / stride 1 not in the user's list).
struct Point {
  CopyPattern pattern;
  int width;
  std::uint64_t param;
  bool baseline = false;
};

struct Sweep {
  std::vector<Point> points;
  std::vector<int> widths;
};

std::vector<std::uint64_t> parse_flag_list(const std::string& flag, const std::string& text,
                                           bool allow_zero) {
  try {
    return parse_list(text, {ListKind::kInt, allow_zero, 1024});
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

Sweep resolve(const Settings& s) {
  bool offsets = false, strides = false;
  if (s.pattern == "offset") {
    offsets = true;
  } else if (s.pattern == "stride") {
    strides = true;
  } else if (s.pattern == "both") {
    offsets = strides = true;
  } else {
    throw UsageError(
        fmt::format("--pattern: unknown pattern '{}' (use offset, stride or both)", s.pattern));
  }
  const auto offset_list = parse_flag_list("--offsets", s.offsets, true);
  const auto stride_list = parse_flag_list("--strides", s.strides, false);
  const auto width_list = parse_flag_list("--widths", s.widths, false);
  for (auto o : offset_list) {
    if (o > kMaxOffset)
      throw UsageError(
          fmt::format("--offsets: {} is too large (at most {} elements)", o, kMaxOffset));
  }
  for (auto st : stride_list) {
    if (st > kMaxStride)
      throw UsageError(
          fmt::format("--strides: {} is too large (at most {} elements)", st, kMaxStride));
  }
  Sweep sw;
  for (auto w : width_list) {
    if (w > 16 || !coalescing::copy_width_supported(static_cast<int>(w)))
      throw UsageError(
          fmt::format("--widths: {}-byte elements are not supported (use 4, 8 or 16)", w));
    sw.widths.push_back(static_cast<int>(w));
  }
  auto add = [&](CopyPattern pattern, const std::vector<std::uint64_t>& list) {
    for (int w : sw.widths) {
      const std::uint64_t base = baseline_param(pattern);
      if (std::find(list.begin(), list.end(), base) == list.end())
        sw.points.push_back({pattern, w, base, true});
      for (auto v : list)
        sw.points.push_back({pattern, w, v, false});
    }
  };
  if (offsets) add(CopyPattern::kOffset, offset_list);
  if (strides) add(CopyPattern::kStride, stride_list);
  return sw;
}

std::vector<Param> row_params(const Point& p) {
  return {{"pattern", std::string(pattern_name(p.pattern)), ""},
          {pattern_name(p.pattern), static_cast<std::int64_t>(p.param), ""},
          {"element_bytes", static_cast<std::int64_t>(p.width), "B"}};
}

std::vector<Quantity> model_quantities(const models::CopyPrediction& m) {
  return {{"sectors_per_request", "sectors", m.load_sectors_per_request},
          {"lines_per_request", "lines", m.load_lines_per_request},
          {"sector_efficiency", "%", m.sector_efficiency},
          {"predicted_relative_bandwidth", "x", m.predicted_relative_bandwidth},
          {"predicted_relative_bandwidth_dram", "x", m.predicted_relative_bandwidth_dram}};
}

// A point with its size, decided at run time.
struct Sized {
  Point point;
  models::CopyPrediction model;
  std::uint64_t elements = 0;  // N
  std::uint64_t in_bytes = 0;  // input elements the launch reads from, in bytes
  double working_set_over_l2 = 0;
  bool clamped = false;  // N reduced below the width's default to fit the memory cap
};

// What was measured for a point, for the derived values, summary and verdict.
struct Measured {
  Sized sized;
  double median_gbps = 0;
  double relative = 0;
};

std::string join_numbers(const std::vector<std::uint64_t>& values) {
  return fmt::format("{}", fmt::join(values, ", "));
}

// "1 line", "2 lines".
std::string count_of(double n, const char* what) {
  return fmt::format("{:g} {}{}", n, what, n == 1 ? "" : "s");
}

// Useful bytes one warp moves: 32 elements read and 32 written.
double useful_bytes_per_warp(int width) {
  return 2.0 * models::kWarpLanes * width;
}

// DRAM bytes per second the measurement implies if the DRAM model's traffic is right.
double implied_dram_gbps(const Measured& m) {
  return m.median_gbps * m.sized.model.dram_bytes_per_warp /
         useful_bytes_per_warp(m.sized.point.width);
}

template <typename F>
double mean_of(const std::vector<const Measured*>& v, F f) {
  double sum = 0;
  for (const auto* m : v)
    sum += f(*m);
  return sum / static_cast<double>(v.size());
}

std::string relative_range(const std::vector<const Measured*>& v) {
  double lo = v.front()->relative, hi = lo;
  for (const auto* m : v) {
    lo = std::min(lo, m->relative);
    hi = std::max(hi, m->relative);
  }
  const std::string a = fmt::format("{:.2f}", lo), b = fmt::format("{:.2f}", hi);
  if (a == b) return "";
  return fmt::format(" ({}-{}x)", a, b);
}

// Non-zero offsets of one width that touch the same sectors and lines per warp load.
struct OffsetClass {
  double sectors = 0;
  double lines = 0;
  std::vector<const Measured*> members;
  bool is_offset_zero = false;  // stands in for the baseline's class when no other offset has it
};

std::string describe_class(const OffsetClass& c, double base_sectors, double base_lines) {
  std::string who;
  if (c.is_offset_zero) {
    who = "offset 0";
  } else if (c.members.size() <= 6) {
    std::vector<std::uint64_t> offsets;
    for (const auto* m : c.members)
      offsets.push_back(m->sized.point.param);
    who = fmt::format("offset{} {}", offsets.size() == 1 ? "" : "s", join_numbers(offsets));
  } else {
    const char* how = c.sectors > base_sectors ? "not 32-B aligned"
                      : c.lines > base_lines   ? "32-B but not 128-B aligned"
                                               : "128-B aligned";
    who = fmt::format("{} offsets {}", c.members.size(), how);
  }
  return fmt::format(
      "{} ({}, {}) {:.2f}x{}", who, count_of(c.sectors, "sector"), count_of(c.lines, "line"),
      mean_of(c.members, [](const Measured& m) { return m.relative; }), relative_range(c.members));
}

// The offsets of one width grouped by the sectors and lines of their warp loads, each group's
// measured mean, and the measured cost of one more sector (same lines) or line (same sectors).
void add_offset_verdict(int w, const std::vector<const Measured*>& group, int fetch, SummaryRow& s,
                        std::vector<std::string>& verdict) {
  const models::CopyPrediction base = models::predict_copy(CopyPattern::kOffset, w, 0, fetch);
  const double bs = base.load_sectors_per_request;
  const double bl = base.load_lines_per_request;
  std::map<std::pair<double, double>, OffsetClass> classes;
  const Measured* zero = nullptr;
  for (const auto* m : group) {
    if (m->sized.point.param == 0) {
      zero = m;
      continue;
    }
    const auto& md = m->sized.model;
    OffsetClass& c = classes[{md.load_sectors_per_request, md.load_lines_per_request}];
    c.sectors = md.load_sectors_per_request;
    c.lines = md.load_lines_per_request;
    c.members.push_back(m);
  }
  if (classes.empty()) return;

  std::vector<const Measured*> mis, line_mis, line_aligned;
  for (const auto& [key, c] : classes) {
    auto& into = c.sectors > bs ? mis : (c.lines > bl ? line_mis : line_aligned);
    into.insert(into.end(), c.members.begin(), c.members.end());
  }
  auto rel = [](const Measured& m) { return m.relative; };
  if (!mis.empty()) {
    s.values.push_back({"misaligned_mean_relative", "x", mean_of(mis, rel)});
    s.values.push_back({"model_misaligned_relative", "x", mean_of(mis, [](const Measured& m) {
                          return m.sized.model.predicted_relative_bandwidth;
                        })});
    s.values.push_back({"model_dram_misaligned_relative", "x", mean_of(mis, [](const Measured& m) {
                          return m.sized.model.predicted_relative_bandwidth_dram;
                        })});
  }
  if (!line_mis.empty())
    s.values.push_back({"line_misaligned_mean_relative", "x", mean_of(line_mis, rel)});
  if (!line_aligned.empty())
    s.values.push_back({"line_aligned_mean_relative", "x", mean_of(line_aligned, rel)});

  // Offset 0 stands for its own class when no other offset measured has it.
  if (zero && !classes.count({bs, bl})) classes[{bs, bl}] = OffsetClass{bs, bl, {zero}, true};
  std::vector<const OffsetClass*> ordered;  // most sectors first, then most lines
  for (auto it = classes.rbegin(); it != classes.rend(); ++it)
    ordered.push_back(&it->second);

  std::vector<std::string> parts, costs, sector_model;
  double dram_lo = std::numeric_limits<double>::infinity(), dram_hi = 0;
  for (const auto* c : ordered) {
    parts.push_back(describe_class(*c, bs, bl));
    const auto& md = c->members.front()->sized.model;
    sector_model.push_back(fmt::format("{:.2f}x at {}", md.predicted_relative_bandwidth,
                                       count_of(c->sectors, "sector")));
    for (const auto* m : c->members) {
      dram_lo = std::min(dram_lo, m->sized.model.predicted_relative_bandwidth_dram);
      dram_hi = std::max(dram_hi, m->sized.model.predicted_relative_bandwidth_dram);
    }
  }
  sector_model.erase(std::unique(sector_model.begin(), sector_model.end()), sector_model.end());
  for (const auto* a : ordered) {
    for (const auto* b : ordered) {
      const double ratio = mean_of(a->members, rel) / mean_of(b->members, rel);
      if (a->lines == b->lines && a->sectors > b->sectors) {
        costs.push_back(fmt::format("{:g} vs {:g} sectors with {} each {:.2f}x", a->sectors,
                                    b->sectors, count_of(a->lines, "line"), ratio));
      } else if (a->sectors == b->sectors && a->lines > b->lines) {
        costs.push_back(fmt::format("{:g} vs {:g} lines with {} each {:.2f}x", a->lines, b->lines,
                                    count_of(a->sectors, "sector"), ratio));
      }
    }
  }
  const std::string dram = dram_hi - dram_lo < 0.005
                               ? fmt::format("{:.2f}x", dram_hi)
                               : fmt::format("{:.2f}-{:.2f}x", dram_lo, dram_hi);
  verdict.push_back(fmt::format(
      "{} B offsets, relative to offset 0 ({}, {} per warp load): {}{}; model: sectors {}, "
      "DRAM ({}-B fetches) {}",
      w, count_of(bs, "sector"), count_of(bl, "line"), fmt::join(parts, "; "),
      costs.empty() ? "" : fmt::format("; measured ratios: {}", fmt::join(costs, ", ")),
      fmt::join(sector_model, ", "), base.fetch_bytes, dram));
}

// Headline strides of one width beside both models, and where the measurement leaves the
// DRAM model.
void add_stride_verdict(int w, std::vector<const Measured*> group,
                        std::vector<std::string>& verdict) {
  std::sort(group.begin(), group.end(), [](const Measured* a, const Measured* b) {
    return a->sized.point.param < b->sized.point.param;
  });
  const int fetch = group.front()->sized.model.fetch_bytes;
  const std::uint64_t largest = group.back()->sized.point.param;
  // 2, the strides from which each lane has its own sector and its own fetch block, the largest.
  std::vector<std::uint64_t> wanted = {
      2, static_cast<std::uint64_t>(std::max(1, models::kSectorBytes / w)),
      static_cast<std::uint64_t>(std::max(1, fetch / w)), largest};
  std::vector<std::string> shown;
  for (const auto* m : group) {
    const std::uint64_t st = m->sized.point.param;
    if (st <= 1 || std::find(wanted.begin(), wanted.end(), st) == wanted.end()) continue;
    shown.push_back(fmt::format("{:.2f}x at {}{} ({:.2f}x, {:.2f}x)", m->relative,
                                shown.empty() ? "stride " : "", st,
                                m->sized.model.predicted_relative_bandwidth,
                                m->sized.model.predicted_relative_bandwidth_dram));
  }
  if (shown.empty()) return;

  // Measured / DRAM model, by stride: the first stride below kModelShortfall and what precedes it.
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  const Measured* last_ok = nullptr;
  const Measured* first_short = nullptr;
  const Measured* lowest = nullptr;
  auto ratio = [](const Measured& m) {
    return m.relative / m.sized.model.predicted_relative_bandwidth_dram;
  };
  for (const auto* m : group) {
    if (m->sized.point.param <= 1) continue;
    const double r = ratio(*m);
    if (!lowest || r < ratio(*lowest)) lowest = m;
    if (first_short) continue;
    if (r < kModelShortfall) {
      first_short = m;
      continue;
    }
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    last_ok = m;
  }
  std::string fit;
  if (!first_short) {
    fit = fmt::format("measured/DRAM model {:.2f}-{:.2f}x at every stride", lo, hi);
  } else {
    if (last_ok) {
      fit = fmt::format(
          "measured/DRAM model {:.2f}-{:.2f}x up to stride {} (elements {} B apart), ", lo, hi,
          last_ok->sized.point.param, last_ok->sized.point.param * static_cast<std::uint64_t>(w));
    }
    fit += fmt::format(
        "more than {:.0f}% below it from stride {} ({} B apart), down to {:.2f}x at stride {}: a "
        "loss the model does not explain",
        (1 - kModelShortfall) * 100, first_short->sized.point.param,
        first_short->sized.point.param * static_cast<std::uint64_t>(w), ratio(*lowest),
        lowest->sized.point.param);
  }
  verdict.push_back(
      fmt::format("{} B strides, measured (sector model, DRAM model with {}-B "
                  "fetches): {}; {}",
                  w, fetch, fmt::join(shown, ", "), fit));
}

class CoalescingProbe final : public Probe {
 public:
  std::string name() const override { return "coalescing"; }
  std::string summary() const override {
    return "global-memory coalescing: offset and stride copies of 4/8/16-byte elements, "
           "bandwidth beside a 32-byte sector model";
  }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("--offsets", settings_.offsets,
                   "offsets in elements for out[i] = in[i + offset]: list or range, e.g. 0:32")
        ->default_str(settings_.offsets);
    cmd.add_option("--strides", settings_.strides,
                   "strides in elements for out[i] = in[i * stride]; strides whose input does "
                   "not fit the memory cap are dropped")
        ->default_str(settings_.strides);
    cmd.add_option("--widths", settings_.widths, "element widths in bytes: 4, 8, 16")
        ->default_str(settings_.widths);
    cmd.add_option("--pattern", settings_.pattern, "which sweep: offset, stride or both")
        ->default_str(settings_.pattern);
    cmd.footer(
        "Relative bandwidth is to offset 0 / stride 1 of the same width, measured even when not "
        "listed.");
  }

  void use_quick_defaults() override {
    settings_.offsets = "0,1,2,4,8,16,32";
    settings_.strides = "1,2,4,8,16,32";
    settings_.widths = "4,8,16";
    settings_.pattern = "both";
    settings_.l2_multiple = 4;
  }

  void validate() const override { resolve(settings_); }

  ProbeResult plan() const override {
    const Sweep sw = resolve(settings_);
    ProbeResult r = skeleton();
    r.status = Status::kPlanned;
    for (const auto& p : sw.points) {
      Row row;
      row.params = row_params(p);
      row.model =
          model_quantities(models::predict_copy(p.pattern, p.width, p.param, models::kSectorBytes));
      if (p.baseline) row.flags.push_back("baseline");
      r.rows.push_back(std::move(row));
    }
    r.notes.push_back(fmt::format(
        "--plan has no device: predicted_relative_bandwidth_dram uses {}-B fetches (the sector); "
        "a run uses the device's L2 fetch granularity (cudaLimitMaxL2FetchGranularity; an H100 "
        "reports 64 B), which lowers it for strides that put elements 64 B or more apart",
        models::kSectorBytes));
    r.notes.push_back(fmt::format(
        "sizes are chosen on the device: N x element bytes >= {:g}x L2 per direction at offset "
        "0 / stride 1; large strides may run with a smaller N or be dropped to stay within {:.0f}% "
        "of free device memory",
        settings_.l2_multiple, kMemoryCapFraction * 100));
    add_model_notes(r, false);
    return r;
  }

  ProbeResult run(runtime::ProbeContext& ctx) override;

 private:
  ProbeResult skeleton() const {
    ProbeResult r;
    r.probe = name();
    r.method = fmt::format(
        "one grid-stride copy kernel per (pattern, element width): SMs x resident blocks of {} "
        "threads, lane l of a warp copies element 32k+l, {} independent elements in flight per "
        "thread, plain global loads/stores (not the read-only path); launches batched, gated "
        "behind a spin kernel and timed with CUDA events, no L2 flush (the working set is many "
        "times the L2); bandwidth counts useful bytes only, 2 x N x element bytes per launch "
        "(read + written); GB/s = 1e9 B/s; every output element checked on the device after "
        "sampling",
        coalescing::kCopyThreads, coalescing::kCopyUnroll);
    r.params = {{"offsets", settings_.offsets, ""},
                {"strides", settings_.strides, ""},
                {"widths", settings_.widths, ""},
                {"pattern", settings_.pattern, ""}};
    return r;
  }

  static void add_model_notes(ProbeResult& r, bool measured) {
    r.notes.push_back(
        "model: sectors_per_request / lines_per_request = distinct 32-B sectors / 128-B lines one "
        "warp's load touches (stores are aligned and unit-stride); predicted_relative_bandwidth "
        "counts load + store sectors per request, as L1 sends them to L2 (lines are shown, not "
        "used in a prediction); predicted_relative_bandwidth_dram counts distinct G-byte DRAM "
        "fetch blocks (G = the L2 fetch granularity) per run of warps, loads + stores: a block "
        "neighbouring warps share is fetched once, an element alone in its block costs G bytes");
    if (!measured) return;
    r.notes.push_back(
        "implied_dram_bandwidth = bandwidth x DRAM-model bytes per useful byte: the DRAM traffic "
        "rate the measurement implies if the model's byte count is right; the model assumes it "
        "is the same at every point, so where it moves, something the model does not count "
        "(DRAM row locality, bank/channel interleaving, read/write turnaround, TLB reach) is at "
        "work; which one, this probe cannot tell");
  }

  Settings settings_;
};

ProbeResult CoalescingProbe::run(runtime::ProbeContext& ctx) {
  const Sweep sw = resolve(settings_);
  ProbeResult result = skeleton();
  const DeviceInfo& dev = ctx.device();
  std::uint64_t l2 = dev.l2_bytes;
  if (l2 == 0) {
    l2 = kFallbackL2;
    result.notes.push_back(fmt::format("the driver reports no L2 size: sized as if it were {}",
                                       format_bytes(static_cast<double>(l2))));
  }
  const auto l2d = static_cast<double>(l2);

  // The DRAM model's fetch block. Optional query: a driver that does not report it gets the
  // sector (32 B) and a note.
  std::size_t reported_fetch = 0;
  const bool fetch_reported =
      cudaDeviceGetLimit(&reported_fetch, cudaLimitMaxL2FetchGranularity) == cudaSuccess;
  if (!fetch_reported) (void)cudaGetLastError();
  const int fetch = models::model_fetch_bytes(fetch_reported ? reported_fetch : 0);
  if (!fetch_reported) {
    result.notes.push_back(fmt::format(
        "the driver reports no L2 fetch granularity: the DRAM model uses {}-B fetches (the sector)",
        fetch));
  } else if (static_cast<std::uint64_t>(fetch) != reported_fetch) {
    result.notes.push_back(
        fmt::format("the driver reports an L2 fetch granularity of {} B: the DRAM model uses {} B "
                    "(a power of two from 32 to 128)",
                    reported_fetch, fetch));
  }

  // Default N per width: N x width >= l2_multiple x L2, a multiple of kElementQuantum.
  auto default_elements = [&](int w) {
    const auto n = static_cast<std::uint64_t>(std::ceil(settings_.l2_multiple * l2d / w));
    return (n + kElementQuantum - 1) / kElementQuantum * kElementQuantum;
  };
  std::size_t free_bytes = 0, total_bytes = 0;
  GP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto cap = static_cast<std::uint64_t>(kMemoryCapFraction * static_cast<double>(free_bytes));
  std::uint64_t out_max = 0;
  for (int w : sw.widths)
    out_max = std::max(out_max, default_elements(w) * static_cast<std::uint64_t>(w));
  const std::uint64_t in_cap = cap > out_max ? cap - out_max : 0;

  // Size every point; clamp N for strides whose input span does not fit, drop what still fails.
  std::vector<Sized> sized;
  std::map<int, std::vector<std::string>> clamped_notes;
  for (const auto& p : sw.points) {
    Sized s{p, models::predict_copy(p.pattern, p.width, p.param, fetch)};
    const auto w = static_cast<std::uint64_t>(p.width);
    s.elements = default_elements(p.width);
    s.in_bytes = models::copy_input_elements(p.pattern, p.param, s.elements) * w;
    if (s.in_bytes > in_cap) {
      const bool is_baseline = p.param == baseline_param(p.pattern);
      std::uint64_t n = 0;
      if (p.pattern == CopyPattern::kStride && !is_baseline && in_cap / w > 0)
        n = ((in_cap / w - 1) / p.param + 1) / kElementQuantum * kElementQuantum;
      const double ws =
          n ? static_cast<double>(models::copy_touched_bytes(p.pattern, p.width, p.param, n)) / l2d
            : 0;
      if (is_baseline) {
        throw RunError(fmt::format(
            "coalescing: {} {}-byte elements ({} in + out) do not fit in {:.0f}% of the free "
            "device memory ({} of {} free)",
            s.elements, p.width, format_bytes(static_cast<double>(s.in_bytes + out_max)),
            kMemoryCapFraction * 100, format_bytes(static_cast<double>(free_bytes)),
            format_bytes(static_cast<double>(total_bytes))));
      }
      if (n == 0 || ws < kClampedMinWorkingSet) {
        result.notes.push_back(fmt::format(
            "{} {} at {} B dropped: its input span does not fit the memory cap of {} ({:.0f}% of "
            "free memory) with a working set of at least {:g}x L2",
            pattern_name(p.pattern), p.param, p.width, format_bytes(static_cast<double>(cap)),
            kMemoryCapFraction * 100, kClampedMinWorkingSet));
        continue;
      }
      s.elements = n;
      s.in_bytes = models::copy_input_elements(p.pattern, p.param, n) * w;
      s.clamped = true;
      clamped_notes[p.width].push_back(fmt::format("{} (N = {})", p.param, n));
    }
    s.working_set_over_l2 =
        static_cast<double>(models::copy_touched_bytes(p.pattern, p.width, p.param, s.elements)) /
        l2d;
    sized.push_back(s);
  }
  for (const auto& [w, items] : clamped_notes) {
    result.notes.push_back(fmt::format(
        "{} B strides {} ran with fewer elements than the default {} so the input span fits the "
        "memory cap of {}; their working set stays >= {:g}x L2 (flag 'clamped')",
        w, fmt::join(items, ", "), default_elements(w), format_bytes(static_cast<double>(cap)),
        kClampedMinWorkingSet));
  }

  std::uint64_t in_bytes = 0, out_bytes = 0;
  for (const auto& s : sized) {
    in_bytes = std::max(in_bytes, s.in_bytes);
    out_bytes = std::max(out_bytes, s.elements * static_cast<std::uint64_t>(s.point.width));
  }
  runtime::DeviceBuffer in(in_bytes);
  runtime::DeviceBuffer out(out_bytes);
  runtime::fill_pattern_device(in.get(), in_bytes, kSeed, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));

  std::map<std::pair<CopyPattern, int>, int> blocks;
  for (const auto& s : sized) {
    const auto key = std::make_pair(s.point.pattern, s.point.width);
    if (!blocks.count(key))
      blocks[key] =
          coalescing::copy_grid_blocks(kernel_kind(s.point.pattern), s.point.width, dev.sm_count);
  }

  std::vector<Measured> measured;
  const cudaStream_t check_stream = ctx.stream();
  std::size_t done = 0;
  for (const auto& s : sized) {
    const Point p = s.point;
    const coalescing::CopyKind kind = kernel_kind(p.pattern);
    const int grid = blocks[{p.pattern, p.width}];
    const std::uint64_t n = s.elements;
    const std::uint64_t out_len = n * static_cast<std::uint64_t>(p.width);
    void* dst = out.get();
    const void* src = in.get();

    runtime::Operation op;
    op.label = fmt::format("{} {}, {} B", pattern_name(p.pattern), p.param, p.width);
    op.timing = runtime::Timing::kDeviceEvents;
    op.flush_l2 = false;
    op.lanes.push_back({"copy", 2.0 * static_cast<double>(out_len), [=](cudaStream_t st) {
                          coalescing::launch_copy(kind, p.width, dst, src, n, p.param, grid, st);
                        }});
    // Poison: pattern words are never 0, so an element the kernel skipped cannot pass.
    op.prepare = [=](cudaStream_t st) { GP_CUDA(cudaMemsetAsync(dst, 0, out_len, st)); };
    op.verify = [=]() -> std::string {
      const std::uint64_t bad =
          coalescing::count_copy_mismatches(kind, p.width, dst, n, p.param, kSeed, check_stream);
      if (bad == 0) return "";
      return fmt::format("{} of {} output words wrong", bad, out_len / 4);
    };
    ctx.progress(done++, sized.size(), op.label);
    const SampleSet samples = ctx.measure(op);

    Row row;
    row.params = row_params(p);
    row.metrics.push_back(bandwidth_metric(samples.seconds, samples.total_bytes()));
    row.metrics.push_back(time_metric(samples));
    row.model = model_quantities(s.model);
    row.flags = samples.flags;
    if (p.baseline) row.flags.push_back("baseline");
    if (s.clamped) row.flags.push_back("clamped");
    measured.push_back({s, row.metrics[0].stats.median, 0});
    result.rows.push_back(std::move(row));
  }

  // Relative bandwidth to the baseline of the same (pattern, width).
  std::map<std::pair<CopyPattern, int>, double> baseline_gbps;
  for (const auto& m : measured) {
    if (m.sized.point.param == baseline_param(m.sized.point.pattern))
      baseline_gbps[{m.sized.point.pattern, m.sized.point.width}] = m.median_gbps;
  }
  double min_ws = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < measured.size(); ++i) {
    auto& m = measured[i];
    const auto it = baseline_gbps.find({m.sized.point.pattern, m.sized.point.width});
    std::optional<double> rel;
    if (it != baseline_gbps.end() && it->second > 0) rel = m.median_gbps / it->second;
    m.relative = rel.value_or(0);
    result.rows[i].derived = {{"relative_bandwidth", "x", rel},
                              {"working_set_over_l2", "x", m.sized.working_set_over_l2},
                              {"implied_dram_bandwidth", "GB/s", implied_dram_gbps(m)}};
    min_ws = std::min(min_ws, m.sized.working_set_over_l2);
  }

  // Summary and verdict per (pattern, width).
  const Measured* best = nullptr;
  const Measured* worst = nullptr;
  for (const auto& m : measured) {
    if (!best || m.median_gbps > best->median_gbps) best = &m;
    if (!worst || m.median_gbps < worst->median_gbps) worst = &m;
  }
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    for (int w : sw.widths) {
      std::vector<const Measured*> group;
      for (const auto& m : measured) {
        if (m.sized.point.pattern == pattern && m.sized.point.width == w) group.push_back(&m);
      }
      if (group.empty()) continue;
      const Measured* low = group.front();
      for (const auto* m : group) {
        if (m->relative < low->relative) low = m;
      }
      SummaryRow s;
      s.params = {{"pattern", std::string(pattern_name(pattern)), ""},
                  {"element_bytes", static_cast<std::int64_t>(w), "B"}};
      s.values.push_back({"baseline_bandwidth", "GB/s", baseline_gbps[{pattern, w}]});

      if (pattern == CopyPattern::kOffset) {
        add_offset_verdict(w, group, fetch, s, result.verdict);
      } else {
        add_stride_verdict(w, group, result.verdict);
      }
      s.values.push_back({"worst_relative_bandwidth", "x", low->relative});
      s.values.push_back({"worst_at", "elements", static_cast<double>(low->sized.point.param)});
      s.values.push_back({"model_at_worst", "x", low->sized.model.predicted_relative_bandwidth});
      s.values.push_back(
          {"model_dram_at_worst", "x", low->sized.model.predicted_relative_bandwidth_dram});
      result.summary.push_back(std::move(s));
    }
  }
  if (best && worst && best != worst) {
    auto describe = [](const Measured& m) {
      return fmt::format("{} {}, {} B", pattern_name(m.sized.point.pattern), m.sized.point.param,
                         m.sized.point.width);
    };
    result.verdict.push_back(
        fmt::format("worst/best measured: {:.1f} GB/s ({}) vs {:.1f} GB/s ({}) = {:.3f}x",
                    worst->median_gbps, describe(*worst), best->median_gbps, describe(*best),
                    worst->median_gbps / best->median_gbps));
  }
  if (!measured.empty()) {
    // The DRAM traffic rate each point implies under the DRAM model: flat where the model holds.
    const Measured* hi = nullptr;
    const Measured* lo = nullptr;
    double base_lo = std::numeric_limits<double>::infinity(), base_hi = 0;
    for (const auto& m : measured) {
      const double g = implied_dram_gbps(m);
      if (!hi || g > implied_dram_gbps(*hi)) hi = &m;
      if (!lo || g < implied_dram_gbps(*lo)) lo = &m;
      if (m.sized.point.param == baseline_param(m.sized.point.pattern)) {
        base_lo = std::min(base_lo, g);
        base_hi = std::max(base_hi, g);
      }
    }
    auto describe = [](const Measured& m) {
      return fmt::format("{} {}, {} B", pattern_name(m.sized.point.pattern), m.sized.point.param,
                         m.sized.point.width);
    };
    const std::string peak =
        dev.peak_dram_estimate_gbps > 0
            ? fmt::format(" (est. peak {:.0f} GB/s)", dev.peak_dram_estimate_gbps)
            : std::string();
    result.verdict.push_back(fmt::format(
        "implied DRAM traffic (bandwidth x DRAM-model bytes per useful byte, {}-B fetches): "
        "{:.0f}-{:.0f} GB/s for the aligned unit-stride copies, highest {:.0f} GB/s ({}), lowest "
        "{:.0f} GB/s ({}){}; the model's predictions assume it is the same everywhere",
        fetch, base_lo, base_hi, implied_dram_gbps(*hi), describe(*hi), implied_dram_gbps(*lo),
        describe(*lo), peak));
  }

  // Conditions and notes.
  if (!measured.empty()) result.conditions.push_back({"working_set_over_l2", "x", min_ws});
  result.conditions.push_back({"memory_cap", "B", static_cast<double>(cap)});
  if (fetch_reported)
    result.conditions.push_back({"l2_fetch_granularity", "B", static_cast<double>(reported_fetch)});
  result.conditions.push_back({"model_fetch_bytes", "B", static_cast<double>(fetch)});
  std::vector<std::uint64_t> default_n;
  for (int w : sw.widths)
    default_n.push_back(default_elements(w));
  result.notes.push_back(fmt::format(
      "sizing: N = {} elements for widths {} B ({} per direction, {:g}x the {} L2); offsets read "
      "N + offset elements, strides (N - 1) x stride + 1; the smallest working set (distinct "
      "sectors in + out per launch) is {:.1f}x L2",
      join_numbers(default_n), fmt::join(sw.widths, ", "),
      format_bytes(static_cast<double>(out_max)), settings_.l2_multiple, format_bytes(l2d),
      min_ws));
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    std::vector<int> widths;
    for (const auto& p : sw.points) {
      if (p.baseline && p.pattern == pattern) widths.push_back(p.width);
    }
    if (widths.empty()) continue;
    result.notes.push_back(
        fmt::format("{} {} was not asked for and was measured as the baseline of widths {} B (flag "
                    "'baseline')",
                    pattern_name(pattern), baseline_param(pattern), fmt::join(widths, ", ")));
  }
  add_model_notes(result, true);
  return result;
}

}  // namespace

std::unique_ptr<Probe> make_coalescing_probe() {
  return std::make_unique<CoalescingProbe>();
}

}  // namespace gpuprobe
