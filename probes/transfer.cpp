// The `transfer` probe: host<->device copy bandwidth by host memory kind, direction and size.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/fit.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/transfer_model.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using runtime::HostBuffer;
using runtime::HostMemory;

constexpr std::uint32_t kH2DSeed = 0x1234567u;
constexpr std::uint32_t kD2HSeed = 0x7654321u;
// Largest --sizes value accepted: 1 TiB, more than any GPU holds (and far from int64 overflow).
constexpr std::uint64_t kMaxTransferBytes = 1ull << 40;

enum class Direction { kH2D, kD2H, kBidir };

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::kH2D:
      return "h2d";
    case Direction::kD2H:
      return "d2h";
    case Direction::kBidir:
      return "bidir";
  }
  return "?";
}

// The fits run over the bytes one operation moves (both directions for bidir); sizes reported
// from them are per direction, like the rows' `bytes`.
double per_direction(Direction d) {
  return d == Direction::kBidir ? 0.5 : 1.0;
}

struct Settings {
  bool pageable = false, pinned = false, wc = false, registered = false;
  std::vector<std::string> directions{"h2d", "d2h", "bidir"};
  std::string sizes = "4KiB:256MiB:x4";
};

struct Sweep {
  std::vector<HostMemory> kinds;
  std::vector<Direction> directions;
  std::vector<std::uint64_t> sizes;
};

Sweep resolve(const Settings& s) {
  Sweep sw;
  const bool any = s.pageable || s.pinned || s.wc || s.registered;
  if (!any || s.pageable) sw.kinds.push_back(HostMemory::kPageable);
  if (!any || s.pinned) sw.kinds.push_back(HostMemory::kPinned);
  if (!any || s.wc) sw.kinds.push_back(HostMemory::kWriteCombined);
  if (!any || s.registered) sw.kinds.push_back(HostMemory::kRegistered);
  for (const auto& d : s.directions) {
    std::vector<Direction> add;
    if (d == "h2d")
      add = {Direction::kH2D};
    else if (d == "d2h")
      add = {Direction::kD2H};
    else if (d == "bidir")
      add = {Direction::kBidir};
    else if (d == "all")
      add = {Direction::kH2D, Direction::kD2H, Direction::kBidir};
    else
      throw UsageError(
          fmt::format("--direction: unknown direction '{}' (use h2d, d2h, bidir or all)", d));
    for (auto x : add) {
      if (std::find(sw.directions.begin(), sw.directions.end(), x) == sw.directions.end())
        sw.directions.push_back(x);
    }
  }
  try {
    sw.sizes = parse_list(s.sizes, {ListKind::kSize, false, 256});
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--sizes: {}", e.what()));
  }
  for (auto b : sw.sizes) {
    if (b > kMaxTransferBytes)
      throw UsageError(fmt::format("--sizes: {} is larger than {} (1 TiB, beyond any GPU's memory)",
                                   b, kMaxTransferBytes));
    if (b % 4 != 0) throw UsageError(fmt::format("--sizes: {} is not a multiple of 4 bytes", b));
  }
  return sw;
}

std::vector<Param> row_params(HostMemory kind, Direction dir, std::uint64_t bytes) {
  return {{"memory", std::string(runtime::host_memory_name(kind)), ""},
          {"direction", std::string(direction_name(dir)), ""},
          {"bytes", static_cast<std::int64_t>(bytes), "B"}};
}

// Host buffers of one kind, device buffers shared across kinds.
struct Buffers {
  HostBuffer host_src;  // pattern kH2DSeed, source of H2D
  HostBuffer host_dst;  // destination of D2H
};

class TransferProbe final : public Probe {
 public:
  std::string name() const override { return "transfer"; }
  std::string summary() const override {
    return "host<->device copy bandwidth: pageable/pinned/write-combined/registered, "
           "h2d/d2h/bidir, size sweep + latency/bandwidth fit";
  }

  void add_options(CLI::App& cmd) override {
    cmd.add_flag("--pageable", settings_.pageable,
                 "include pageable (malloc'ed, first-touched) host memory");
    cmd.add_flag("--pinned", settings_.pinned, "include pinned host memory (cudaHostAlloc)");
    cmd.add_flag("--wc", settings_.wc, "include write-combined pinned host memory");
    cmd.add_flag("--registered", settings_.registered,
                 "include malloc'ed memory pinned by cudaHostRegister");
    cmd.add_option("--direction", settings_.directions,
                   "directions: h2d, d2h, bidir, all (comma-separated)")
        ->delimiter(',')
        ->default_str("h2d,d2h,bidir");
    cmd.add_option("--sizes", settings_.sizes,
                   "transfer sizes: list or range, e.g. 64MiB or 4KiB:256MiB:x2")
        ->default_str(settings_.sizes);
    cmd.footer("With none of --pageable/--pinned/--wc/--registered, all four kinds are measured.");
  }

  void use_quick_defaults() override { settings_.sizes = "4KiB:64MiB:x4"; }
  void validate() const override { resolve(settings_); }

  ProbeResult plan() const override {
    const Sweep sw = resolve(settings_);
    ProbeResult r = skeleton(sw);
    r.status = Status::kPlanned;
    for (auto kind : sw.kinds)
      for (auto dir : sw.directions)
        for (auto bytes : sw.sizes)
          r.rows.push_back({row_params(kind, dir, bytes), {}, {}, {}, {}, {}});
    return r;
  }

  ProbeResult run(runtime::ProbeContext& ctx) override;

 private:
  ProbeResult skeleton(const Sweep& sw) const {
    ProbeResult r;
    r.probe = name();
    r.method =
        "cudaMemcpyAsync on non-blocking streams; pinned/wc/registered batches gated behind a spin "
        "kernel and timed with CUDA events, pageable batches timed with the host clock (the copy "
        "is "
        "staged synchronously); bytes counted once per direction, bidir = both directions summed; "
        "GB/s = 1e9 B/s; data verified after sampling";
    std::vector<std::string> kinds, dirs;
    for (auto k : sw.kinds)
      kinds.emplace_back(runtime::host_memory_name(k));
    for (auto d : sw.directions)
      dirs.emplace_back(direction_name(d));
    r.params = {{"memory", fmt::format("{}", fmt::join(kinds, ",")), ""},
                {"direction", fmt::format("{}", fmt::join(dirs, ",")), ""},
                {"sizes", settings_.sizes, ""}};
    return r;
  }

  Settings settings_;
};

// Builds the operation for one (kind, direction, size) point.
runtime::Operation make_operation(HostMemory kind, Direction dir, std::uint64_t bytes, Buffers& hb,
                                  runtime::DeviceBuffer& dev_src, runtime::DeviceBuffer& dev_dst) {
  runtime::Operation op;
  op.label = fmt::format("{} {} {}", runtime::host_memory_name(kind), direction_name(dir),
                         format_bytes(static_cast<double>(bytes)));
  op.timing =
      kind == HostMemory::kPageable ? runtime::Timing::kHostClock : runtime::Timing::kDeviceEvents;
  const bool h2d = dir != Direction::kD2H;
  const bool d2h = dir != Direction::kH2D;
  void* hsrc = hb.host_src.get();
  void* hdst = hb.host_dst.get();
  void* dsrc = dev_src.get();
  void* ddst = dev_dst.get();
  if (h2d) {
    op.lanes.push_back({"h2d", static_cast<double>(bytes), [=](cudaStream_t s) {
                          GP_CUDA(cudaMemcpyAsync(ddst, hsrc, bytes, cudaMemcpyHostToDevice, s));
                        }});
  }
  if (d2h) {
    op.lanes.push_back({"d2h", static_cast<double>(bytes), [=](cudaStream_t s) {
                          GP_CUDA(cudaMemcpyAsync(hdst, dsrc, bytes, cudaMemcpyDeviceToHost, s));
                        }});
  }
  // Poison the destinations, so a copy that did not happen cannot pass verification.
  op.prepare = [=](cudaStream_t s) {
    if (h2d) GP_CUDA(cudaMemsetAsync(ddst, 0, bytes, s));
    if (d2h) std::memset(hdst, 0, bytes);
  };
  op.verify = [=]() -> std::string {
    std::string problems;
    if (h2d) {
      const auto bad = runtime::count_mismatches_device(ddst, bytes, kH2DSeed, nullptr);
      if (bad) problems += fmt::format("h2d: {} of {} words wrong; ", bad, bytes / 4);
    }
    if (d2h) {
      std::uint64_t bad = 0;
      if (kind == HostMemory::kWriteCombined) {
        // CPU reads of write-combined memory are uncached and very slow: copy the received
        // bytes back to the (already verified or unused) device destination and check there.
        GP_CUDA(cudaMemcpy(ddst, hdst, bytes, cudaMemcpyHostToDevice));
        bad = runtime::count_mismatches_device(ddst, bytes, kD2HSeed, nullptr);
      } else {
        bad = runtime::count_mismatches_host(hdst, bytes, kD2HSeed);
      }
      if (bad) problems += fmt::format("d2h: {} of {} words wrong; ", bad, bytes / 4);
    }
    return problems;
  };
  return op;
}

struct FitKey {
  HostMemory kind;
  Direction dir;
  bool operator<(const FitKey& o) const { return std::tie(kind, dir) < std::tie(o.kind, o.dir); }
};

ProbeResult TransferProbe::run(runtime::ProbeContext& ctx) {
  const Sweep sw = resolve(settings_);
  ProbeResult result = skeleton(sw);
  const std::uint64_t max_bytes = *std::max_element(sw.sizes.begin(), sw.sizes.end());
  const DeviceInfo& dev = ctx.device();

  runtime::DeviceBuffer dev_src(max_bytes);
  runtime::DeviceBuffer dev_dst(max_bytes);
  runtime::fill_pattern_device(dev_src.get(), max_bytes, kD2HSeed, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));

  std::map<FitKey, std::vector<SizeTime>> by_curve;
  std::map<FitKey, std::pair<std::uint64_t, double>> at_largest;  // bytes, median GB/s
  const std::size_t total = sw.kinds.size() * sw.directions.size() * sw.sizes.size();
  std::size_t done = 0;
  for (auto kind : sw.kinds) {
    Buffers hb{HostBuffer(kind, max_bytes), HostBuffer(kind, max_bytes)};
    runtime::fill_pattern_host(hb.host_src.get(), max_bytes, kH2DSeed);
    for (auto dir : sw.directions) {
      for (auto bytes : sw.sizes) {
        runtime::Operation op = make_operation(kind, dir, bytes, hb, dev_src, dev_dst);
        ctx.progress(done++, total, op.label);
        const SampleSet samples = ctx.measure(op);
        Row row;
        row.params = row_params(kind, dir, bytes);
        row.metrics.push_back(bandwidth_metric(samples.seconds, samples.total_bytes()));
        row.metrics.push_back(time_metric(samples));
        if (dir == Direction::kBidir) {
          for (const auto& lane : samples.lanes)
            row.metrics.push_back(
                bandwidth_metric(lane.seconds, lane.bytes, "bandwidth_" + lane.name));
        }
        row.flags = samples.flags;
        const FitKey key{kind, dir};
        // Fit over the bytes one operation moves (both directions for bidir).
        by_curve[key].push_back({samples.total_bytes(), row.metrics[1].stats.median});
        auto& largest = at_largest[key];
        if (bytes >= largest.first) largest = {bytes, row.metrics[0].stats.median};
        result.rows.push_back(std::move(row));
      }
    }
  }

  // Per curve: the latency/bandwidth fit, and the fit's prediction beside every row.
  std::map<FitKey, LatencyBandwidthFit> fits;
  for (const auto& [key, points] : by_curve) {
    std::string why;
    SummaryRow s;
    s.params = {{"memory", std::string(runtime::host_memory_name(key.kind)), ""},
                {"direction", std::string(direction_name(key.dir)), ""}};
    const auto fit =
        fit_latency_bandwidth(std::span<const SizeTime>(points.data(), points.size()), &why);
    if (fit) {
      fits[key] = *fit;
      s.values = {{"latency", "s", fit->latency_s},
                  {"fit_bandwidth", "GB/s", fit->bandwidth_Bps / kBytesPerGB},
                  {"half_bandwidth_size", "B", fit->half_bandwidth_bytes * per_direction(key.dir)},
                  {"fit_rms_error", "%", fit->rms_rel_residual * 100}};
    } else {
      s.values = {{"latency", "s", std::nullopt},
                  {"fit_bandwidth", "GB/s", std::nullopt},
                  {"half_bandwidth_size", "B", std::nullopt},
                  {"fit_rms_error", "%", std::nullopt}};
      result.notes.push_back(fmt::format("no fit for {} {}: {}",
                                         runtime::host_memory_name(key.kind),
                                         direction_name(key.dir), why));
    }
    s.values.push_back({"largest_size_bandwidth", "GB/s", at_largest[key].second});
    result.summary.push_back(std::move(s));
  }
  for (auto& row : result.rows) {
    const auto& kind_name = std::get<std::string>(row.params[0].value);
    const auto& dir_name = std::get<std::string>(row.params[1].value);
    for (const auto& [key, fit] : fits) {
      if (kind_name != runtime::host_memory_name(key.kind) || dir_name != direction_name(key.dir))
        continue;
      const double bytes = static_cast<double>(std::get<std::int64_t>(row.params[2].value));
      // The fit is over the bytes one operation moves: both directions for bidir.
      const double moved = key.dir == Direction::kBidir ? 2 * bytes : bytes;
      row.model.push_back({"fit_bandwidth", "GB/s",
                           moved / (fit.latency_s + moved / fit.bandwidth_Bps) / kBytesPerGB});
    }
  }
  // Ratios between memory kinds at the largest size, measured.
  for (auto dir : sw.directions) {
    const FitKey pageable{HostMemory::kPageable, dir};
    if (!at_largest.count(pageable)) continue;
    for (auto kind : sw.kinds) {
      if (kind == HostMemory::kPageable) continue;
      const auto& other = at_largest[{kind, dir}];
      const auto& base = at_largest[pageable];
      SummaryRow s;
      s.params = {{"memory", fmt::format("{} ÷ pageable", runtime::host_memory_name(kind)), ""},
                  {"direction", std::string(direction_name(dir)), ""},
                  {"bytes", static_cast<std::int64_t>(other.first), "B"}};
      s.values = {{"ratio", "x", other.second / base.second}};
      result.summary.push_back(std::move(s));
      if (kind == HostMemory::kPinned) {
        result.verdict.push_back(fmt::format(
            "{}: pinned {:.1f} GB/s vs pageable {:.1f} GB/s at {} — pinned is {:.2f}x pageable "
            "(measured)",
            direction_name(dir), other.second, base.second,
            format_bytes(static_cast<double>(other.first)), other.second / base.second));
      }
    }
  }
  for (const auto& [key, fit] : fits) {
    if (key.kind != HostMemory::kPinned) continue;
    result.verdict.push_back(fmt::format(
        "pinned {}: {:.1f} GB/s asymptotic, {} per copy, half of it reached at {}",
        direction_name(key.dir), fit.bandwidth_Bps / kBytesPerGB, format_seconds(fit.latency_s),
        format_bytes(fit.half_bandwidth_bytes * per_direction(key.dir))));
  }
  const double link = models::pcie_raw_gbps(dev.pcie_link_gts, dev.pcie_link_width);
  if (link > 0) {
    result.conditions.push_back({"pcie_raw_limit", "GB/s", link});
    result.notes.push_back(fmt::format(
        "link: PCIe gen {} x{} = {:.1f} GB/s per direction after line encoding, before packet "
        "overhead (model ceiling for h2d/d2h; bidir up to twice that)",
        models::pcie_generation(dev.pcie_link_gts), dev.pcie_link_width, link));
  } else {
    result.notes.push_back(
        "PCIe link speed/width not readable from sysfs here (VM?): no link ceiling shown");
  }
  return result;
}

}  // namespace

std::unique_ptr<Probe> make_transfer_probe() {
  return std::make_unique<TransferProbe>();
}

}  // namespace gpuprobe
