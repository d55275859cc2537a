// CounterSession: CUPTI range profiler with user ranges + user replay on one device's context.
#include "gpuprobe/counters/session.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/capture.hpp"
#include "gpuprobe/counters/default_sets.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/evaluate.hpp"
#include "gpuprobe/counters/names.hpp"
#include "host_object.hpp"
#include "nvperf_loader.hpp"

namespace gpuprobe::counters {

namespace {

// ---- CUDA side -----------------------------------------------------------------------------

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw CountersUnavailable(cudaGetErrorName(status),
                            std::string(what) + " failed: " + cudaGetErrorString(status),
                            "check the GPU index and that the driver works (nvidia-smi)");
}

// A driver-API function through the runtime, so this library never links libcuda directly.
template <typename Fn>
Fn driver_function(const char* symbol) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check_cuda(cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found),
             symbol);
  if (fn == nullptr || found != cudaDriverEntryPointSuccess)
    throw CountersUnavailable("GPUPROBE_NO_DRIVER_SYMBOL",
                              std::string("the CUDA driver has no ") + symbol,
                              "update the NVIDIA driver");
  return reinterpret_cast<Fn>(fn);
}

// The primary context of `device`, made current on this thread.
CUcontext primary_context(int device) {
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  check_cuda(cudaFree(nullptr), "cudaFree(0) (creating the context)");
  using GetCurrent = CUresult (*)(CUcontext*);
  CUcontext ctx = nullptr;
  if (driver_function<GetCurrent>("cuCtxGetCurrent")(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw CountersUnavailable("GPUPROBE_NO_CONTEXT", "no current CUDA context after cudaSetDevice",
                              "check that the driver works (nvidia-smi)");
  return ctx;
}

// Throws CountersUnavailable naming every reason CUPTI gives for not supporting the device.
void validate_device_supported(int device) {
  detail::load_nvperf_host();
  using DeviceGet = CUresult (*)(CUdevice*, int);
  CUdevice handle = 0;
  if (driver_function<DeviceGet>("cuDeviceGet")(&handle, device) != CUDA_SUCCESS)
    throw CountersUnavailable("GPUPROBE_NO_DEVICE", "no CUDA device " + std::to_string(device),
                              "check the GPU index");
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = handle;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  GP_CUPTI(cuptiProfilerDeviceSupported, p);
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why;
  const auto add = [&why](CUpti_Profiler_Support_Level level, const char* text) {
    if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
    if (!why.empty()) why += "; ";
    why += text;
    if (level == CUPTI_PROFILER_CONFIGURATION_DISABLED) why += " (supported but disabled)";
  };
  add(p.architecture, "GPU architecture too old (needs compute capability 7.0+)");
  add(p.sli, "SLI is enabled");
  add(p.vGpu, "virtualised GPU (vGPU) does not allow profiling");
  add(p.confidentialCompute, "confidential computing is on");
  add(p.cmp, "crypto-mining (CMP) GPU");
  add(p.wsl, "WSL does not allow profiling here");
  if (why.empty()) why = "CUPTI reports the device as unsupported";
  throw CountersUnavailable("CUPTI_PROFILER_UNSUPPORTED",
                            "GPU " + std::to_string(device) + ": " + why,
                            "counters need a supported, non-virtualised GPU; timing is unaffected");
}

std::string chip_name(int device) {
  auto p = GP_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = static_cast<std::size_t>(device);
  GP_CUPTI(cuptiDeviceGetChipName, p);
  return p.pChipName ? p.pChipName : "";
}

std::vector<std::uint8_t> counter_availability_image(CUcontext ctx) {
  auto size = GP_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  size.ctx = ctx;
  GP_CUPTI(cuptiProfilerGetCounterAvailability, size);
  std::vector<std::uint8_t> image(size.counterAvailabilityImageSize);
  auto fill = GP_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  fill.ctx = ctx;
  fill.counterAvailabilityImageSize = image.size();
  fill.pCounterAvailabilityImage = image.data();
  GP_CUPTI(cuptiProfilerGetCounterAvailability, fill);
  return image;
}

// ---- process-wide state: plain counters, never torn down by static destructors ------------

std::mutex& state_mutex() {
  static auto* mutex = new std::mutex;  // intentionally leaked: no static destructor
  return *mutex;
}
std::size_t& library_users() {
  static std::size_t users = 0;
  return users;
}
std::set<CUcontext>& claimed_contexts() {
  static auto* contexts = new std::set<CUcontext>;  // intentionally leaked
  return *contexts;
}

// cuptiProfilerInitialize for the first user, cuptiProfilerDeInitialize after the last.
class LibraryRef {
 public:
  LibraryRef() {
    detail::load_nvperf_host();
    std::lock_guard lock(state_mutex());
    if (library_users() == 0) {
      auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
      GP_CUPTI(cuptiProfilerInitialize, p);
    }
    ++library_users();
    held_ = true;
  }
  ~LibraryRef() { release(); }
  LibraryRef(const LibraryRef&) = delete;
  LibraryRef& operator=(const LibraryRef&) = delete;
  void release() noexcept {
    if (!held_) return;
    held_ = false;
    std::lock_guard lock(state_mutex());
    if (--library_users() == 0) {
      auto p = GP_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
      cuptiProfilerDeInitialize(&p);
    }
  }

 private:
  bool held_ = false;
};

// One range profiler per context: CUPTI accepts a second Enable and then misbehaves.
class ContextClaim {
 public:
  ContextClaim(CUcontext ctx, int device) : ctx_(ctx) {
    std::lock_guard lock(state_mutex());
    if (!claimed_contexts().insert(ctx).second)
      throw CountersUnavailable(
          "GPUPROBE_SESSION_OPEN",
          "a counter session is already open on GPU " + std::to_string(device),
          "close it before opening another");
    held_ = true;
  }
  ~ContextClaim() { release(); }
  ContextClaim(const ContextClaim&) = delete;
  ContextClaim& operator=(const ContextClaim&) = delete;
  void release() noexcept {
    if (!held_) return;
    held_ = false;
    std::lock_guard lock(state_mutex());
    claimed_contexts().erase(ctx_);
  }

 private:
  CUcontext ctx_;
  bool held_ = false;
};

// cuptiRangeProfilerEnable ... Disable for one configuration's passes.
class RangeProfiler {
 public:
  explicit RangeProfiler(CUcontext ctx) {
    auto p = GP_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    GP_CUPTI(cuptiRangeProfilerEnable, p);
    object_ = p.pRangeProfilerObject;
  }
  ~RangeProfiler() {
    if (object_ == nullptr) return;
    auto p = GP_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = object_;
    cuptiRangeProfilerDisable(&p);
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  CUpti_RangeProfiler_Object* get() const { return object_; }

  void disable() {
    auto p = GP_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = object_;
    object_ = nullptr;
    GP_CUPTI(cuptiRangeProfilerDisable, p);
  }

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

// One replay pass: cuptiRangeProfilerStart now, Stop by stop() (checked) or, when the pass is
// left by an error, quietly here, so the profiler can still be disabled.
class ProfilerPass {
 public:
  explicit ProfilerPass(CUpti_RangeProfiler_Object* object) {
    auto start = GP_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = object;
    GP_CUPTI(cuptiRangeProfilerStart, start);
    stop_ = GP_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop_.pRangeProfilerObject = object;
  }
  ~ProfilerPass() {
    if (open_) cuptiRangeProfilerStop(&stop_);
  }
  ProfilerPass(const ProfilerPass&) = delete;
  ProfilerPass& operator=(const ProfilerPass&) = delete;

  // Ends the pass; whether CUPTI has every pass it needs.
  bool stop() {
    open_ = false;
    GP_CUPTI(cuptiRangeProfilerStop, stop_);
    return stop_.isAllPassSubmitted != 0;
  }

 private:
  CUpti_RangeProfiler_Stop_Params stop_{};
  bool open_ = true;
};

// One range of a pass: pushed now, popped by pop() (checked) or quietly when left by an error.
class ProfilerRange {
 public:
  ProfilerRange(CUpti_RangeProfiler_Object* object, const std::string& name) {
    auto push = GP_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    push.pRangeProfilerObject = object;
    push.pRangeName = name.c_str();
    GP_CUPTI(cuptiRangeProfilerPushRange, push);
    pop_ = GP_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    pop_.pRangeProfilerObject = object;
  }
  ~ProfilerRange() {
    if (open_) cuptiRangeProfilerPopRange(&pop_);
  }
  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;

  void pop() {
    open_ = false;
    GP_CUPTI(cuptiRangeProfilerPopRange, pop_);
  }

 private:
  CUpti_RangeProfiler_PopRange_Params pop_{};
  bool open_ = true;
};

std::atomic<unsigned> capture_counter{0};

}  // namespace

// ---- the session ---------------------------------------------------------------------------

struct CounterSession::Impl {
  int device;
  std::size_t max_ranges;
  std::vector<std::string> metrics;  // as asked, plus the SM clock
  CUcontext ctx;
  LibraryRef library;
  ContextClaim claim;
  std::string chip;
  std::optional<MetricCatalog> catalog;
  MetricGrouping grouping;
  std::string capture_dir = capture_dir_from_env();
  std::string capture_stem;
  bool open = true;

  Impl(int device_index, std::vector<std::string> names, std::size_t ranges)
      : device(device_index),
        max_ranges(ranges),
        metrics(with_clock(std::move(names))),
        ctx(checked_context(device_index)),
        library(),
        claim(ctx, device_index),
        chip(chip_name(device_index)),
        catalog(std::in_place, chip, counter_availability_image(ctx)),
        grouping(catalog->group(metrics)) {}

  static std::vector<std::string> with_clock(std::vector<std::string> names) {
    const std::string clock(defaults::kSmClock);
    if (std::find(names.begin(), names.end(), clock) == names.end()) names.push_back(clock);
    return names;
  }

  static CUcontext checked_context(int device_index) {
    CUcontext ctx = primary_context(device_index);
    validate_device_supported(device_index);
    return ctx;
  }

  std::vector<RangeCounters> run_config(std::size_t index, const std::vector<std::string>& names,
                                        const RangeWork& work);
  std::vector<std::uint8_t> set_config(const CounterConfig& config,
                                       CUpti_RangeProfiler_Object* profiler) const;
  void run_passes(const CounterConfig& config, CUpti_RangeProfiler_Object* profiler,
                  const std::vector<std::string>& names, const RangeWork& work) const;
  void capture(std::size_t index, const CounterConfig& config,
               const std::vector<std::string>& names, const std::vector<std::uint8_t>& data,
               const std::vector<RangeCounters>& values) const;
};

// The configuration's counter data image, made and set for user ranges and user replay.
std::vector<std::uint8_t> CounterSession::Impl::set_config(
    const CounterConfig& config, CUpti_RangeProfiler_Object* profiler) const {
  std::vector<const char*> c_names = detail::c_names(config.metrics);
  auto size = GP_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = profiler;
  size.pMetricNames = c_names.data();
  size.numMetrics = c_names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  GP_CUPTI(cuptiRangeProfilerGetCounterDataSize, size);
  std::vector<std::uint8_t> counter_data(size.counterDataSize);
  auto init = GP_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = profiler;
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  GP_CUPTI(cuptiRangeProfilerCounterDataImageInitialize, init);

  auto set = GP_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  set.pRangeProfilerObject = profiler;
  set.configSize = config.image.size();
  set.pConfig = config.image.data();
  set.counterDataImageSize = counter_data.size();
  set.pCounterDataImage = counter_data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  GP_CUPTI(cuptiRangeProfilerSetConfig, set);
  return counter_data;
}

// Every replay pass CUPTI asks for: each range's work in a range of its own (before and after it
// outside). An error closes the range and the pass (ProfilerRange, ProfilerPass) on its way out.
void CounterSession::Impl::run_passes(const CounterConfig& config,
                                      CUpti_RangeProfiler_Object* profiler,
                                      const std::vector<std::string>& names,
                                      const RangeWork& work) const {
  bool all_submitted = false;
  for (std::size_t pass = 0; !all_submitted; ++pass) {
    if (pass > config.passes)
      throw CountersUnavailable(
          "GPUPROBE_PASS_LOOP",
          "CUPTI asked for more than the " + std::to_string(config.passes) + " planned passes",
          "report this with the metric list");
    ProfilerPass replay(profiler);
    for (std::size_t r = 0; r < names.size(); ++r) {
      if (work.before) work.before(r);
      ProfilerRange range(profiler, names[r]);
      work.work(r);
      range.pop();
      if (work.after) work.after(r);
    }
    // A failure here is the measured work's own (an illegal address, a launch failure, an ECC
    // error, sticky on the GPU), not the counters': it must fail the probe with CUDA's words,
    // not pass for a refusal that every later probe on this GPU would repeat.
    if (const cudaError_t synced = cudaDeviceSynchronize(); synced != cudaSuccess) {
      throw RunError(std::string("CUDA error ") + cudaGetErrorName(synced) + " (" +
                     cudaGetErrorString(synced) +
                     ") after a counter pass: the measured work failed on the GPU");
    }
    all_submitted = replay.stop();
  }
}

// With GPUPROBE_COUNTER_CAPTURE set: the configuration's counter data and values, written there.
void CounterSession::Impl::capture(std::size_t index, const CounterConfig& config,
                                   const std::vector<std::string>& names,
                                   const std::vector<std::uint8_t>& data,
                                   const std::vector<RangeCounters>& values) const {
  CounterCapture out;
  const std::string stem = capture_stem.empty()
                               ? "counters-" + std::to_string(capture_counter.fetch_add(1))
                               : capture_stem;
  out.name = stem + "-config" + std::to_string(index);
  out.chip = chip;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    out.device = prop.name;
  else
    (void)cudaGetLastError();  // not left for a later launch check to blame on its kernel
  out.metrics = config.metrics;
  out.ranges = names;
  out.counter_data = data;
  out.counter_availability = catalog->counter_availability();
  out.values = values;
  write_capture(capture_dir, out);
}

std::vector<RangeCounters> CounterSession::Impl::run_config(std::size_t index,
                                                            const std::vector<std::string>& names,
                                                            const RangeWork& work) {
  const CounterConfig& config = grouping.configs[index];
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  RangeProfiler profiler(ctx);
  const std::vector<std::uint8_t> counter_data = set_config(config, profiler.get());
  run_passes(config, profiler.get(), names, work);
  auto decode = GP_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = profiler.get();
  GP_CUPTI(cuptiRangeProfilerDecodeData, decode);
  profiler.disable();

  std::vector<RangeCounters> values = evaluate_counter_data(*catalog, config.metrics, counter_data);
  if (!capture_dir.empty()) capture(index, config, names, counter_data, values);
  return values;
}

CounterSession::CounterSession(int device, std::vector<std::string> metrics,
                               std::size_t max_ranges) {
  if (max_ranges == 0) throw UsageError("a counter session needs max_ranges of at least 1");
  impl_ = std::make_unique<Impl>(device, std::move(metrics), max_ranges);
}

CounterSession::~CounterSession() {
  close();
}

std::size_t CounterSession::passes() const {
  return impl_->grouping.total_passes();
}
const MetricGrouping& CounterSession::grouping() const {
  return impl_->grouping;
}
const std::string& CounterSession::chip() const {
  return impl_->chip;
}
int CounterSession::device() const {
  return impl_->device;
}

void CounterSession::set_capture(std::string dir, std::string stem) {
  impl_->capture_dir = std::move(dir);
  impl_->capture_stem = std::move(stem);
}

std::vector<RangeCounters> CounterSession::collect(const std::vector<std::string>& range_names,
                                                   const std::function<void(std::size_t)>& work) {
  return collect(range_names, RangeWork{{}, work, {}});
}

std::vector<RangeCounters> CounterSession::collect(const std::vector<std::string>& range_names,
                                                   const RangeWork& work) {
  if (!work.work) throw UsageError("collect() needs work to run in its ranges");
  if (!impl_ || !impl_->open) throw UsageError("counter session used after close()");
  if (range_names.empty()) throw UsageError("collect() needs at least one range name");
  if (range_names.size() > impl_->max_ranges)
    throw UsageError(std::to_string(range_names.size()) +
                     " ranges asked for, but the session was opened for at most " +
                     std::to_string(impl_->max_ranges));
  std::unordered_set<std::string> seen;
  for (const auto& name : range_names) {
    if (name.empty() || name.find('/') != std::string::npos)
      throw UsageError("range name '" + name + "' must be non-empty and contain no '/'");
    if (name.size() > kMaxRangeNameLength)
      throw UsageError("range name '" + name + "' is longer than " +
                       std::to_string(kMaxRangeNameLength) +
                       " characters (CUPTI drops such ranges)");
    if (!seen.insert(name).second)
      throw UsageError("range name '" + name + "' is used twice; CUPTI would merge the two ranges");
  }

  std::vector<RangeCounters> out(range_names.size());
  for (std::size_t r = 0; r < range_names.size(); ++r)
    out[r].range = range_names[r];
  for (std::size_t c = 0; c < impl_->grouping.configs.size(); ++c) {
    const std::vector<RangeCounters> got = impl_->run_config(c, range_names, work);
    for (std::size_t r = 0; r < range_names.size(); ++r) {
      const auto found = std::find_if(got.begin(), got.end(), [&](const RangeCounters& g) {
        return g.range == range_names[r];
      });
      for (const auto& metric : impl_->grouping.configs[c].metrics) {
        const CounterValue* value = found == got.end() ? nullptr : found->find(metric);
        if (value != nullptr) {
          out[r].values.push_back(*value);
        } else {
          out[r].values.push_back({metric, impl_->catalog->properties(metric).unit, std::nullopt,
                                   "range missing from the counter data (dropped by CUPTI)"});
        }
      }
    }
  }
  // Values in the order the metrics were asked for, not config by config.
  for (auto& range : out) {
    std::vector<CounterValue> ordered;
    for (const auto& metric : impl_->metrics)
      if (const CounterValue* value = range.find(metric)) ordered.push_back(*value);
    range.values = std::move(ordered);
    if (const CounterValue* clock = range.find(std::string(defaults::kSmClock)))
      range.sm_clock_hz = clock->value;
  }
  return out;
}

void CounterSession::close() {
  if (!impl_ || !impl_->open) return;
  impl_->open = false;
  impl_->catalog.reset();  // host objects go before cuptiProfilerDeInitialize
  impl_->claim.release();
  impl_->library.release();
}

std::string counters_chip(int device) {
  primary_context(device);
  validate_device_supported(device);
  LibraryRef library;
  return chip_name(device);
}

// ---- availability --------------------------------------------------------------------------

CounterAvailability counters_availability(int device) noexcept {
  CounterAvailability out;
  try {
    void* scratch = nullptr;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaMalloc(&scratch, 256), "cudaMalloc");
    try {
      CounterSession session(device, {"gpu__time_duration.sum"}, 1);
      out.chip = session.chip();
      session.set_capture("", "");
      session.collect({"gpuprobe-canary"}, [scratch](std::size_t) {
        check_cuda(cudaMemsetAsync(scratch, 0, 256), "cudaMemsetAsync");
      });
      session.close();
    } catch (...) {
      (void)cudaFree(scratch);  // best effort on the way out: the error in flight is the one told
      throw;
    }
    (void)cudaFree(scratch);  // a probe of availability: a failed free changes nothing it reports
    out.available = true;
  } catch (const CountersUnavailable& e) {
    out.code = e.code();
    out.reason = e.reason();
    out.hint = e.hint();
  } catch (const std::exception& e) {
    out.code = "GPUPROBE_ERROR";
    out.reason = e.what();
  } catch (...) {
    out.code = "GPUPROBE_ERROR";
    out.reason = "unknown error while checking counters";
  }
  return out;
}

}  // namespace gpuprobe::counters
