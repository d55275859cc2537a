// The sample loop: calibration, warm-up, gated event timing or host timing, stopping, rounds.
#include "gpuprobe/runtime/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <span>
#include <thread>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/trace.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

LaunchScope::Pool::Pool() = default;
LaunchScope::Pool::~Pool() = default;
LaunchScope::Pool::Pool(Pool&&) noexcept = default;
LaunchScope::Pool& LaunchScope::Pool::operator=(Pool&&) noexcept = default;

cudaStream_t LaunchScope::fork(std::size_t index) {
  while (pool_.streams.size() <= index) {
    pool_.streams.push_back(std::make_unique<Stream>());
    pool_.joins.push_back(std::make_unique<Event>(false));
  }
  if (!pool_.fork_point) pool_.fork_point = std::make_unique<Event>(false);
  // The wait captures the event's state now: recording it again later does not affect it.
  pool_.fork_point->record(stream_);
  cudaStream_t forked = pool_.streams[index]->get();
  GP_CUDA(cudaStreamWaitEvent(forked, pool_.fork_point->get(), 0));
  // The lane's access-policy window (an operation's persisting-L2 setting, or none) goes along.
  GP_CUDA(cudaStreamCopyAttributes(forked, stream_));
  if (std::find(open_.begin(), open_.end(), index) == open_.end()) open_.push_back(index);
  return forked;
}

void LaunchScope::join() {
  for (const std::size_t i : open_) {
    pool_.joins[i]->record(pool_.streams[i]->get());
    GP_CUDA(cudaStreamWaitEvent(stream_, pool_.joins[i]->get(), 0));
  }
  open_.clear();
}

Measurer::Measurer(const MeasureOptions& options, std::size_t l2_bytes,
                   std::size_t persisting_l2_max_bytes)
    : options_(options), l2_bytes_(l2_bytes), persisting_l2_max_bytes_(persisting_l2_max_bytes) {
  GP_CUDA(cudaGetDevice(&home_));
  streams_.push_back(std::make_unique<Stream>());
}

Measurer::~Measurer() {
  // Streams and events of other GPUs go with their GPU current.
  int previous = 0;
  (void)cudaGetDevice(&previous);
  for (auto& [key, r] : remote_) {
    (void)cudaSetDevice(r.device);
    r = RemoteLane{};
  }
  (void)cudaSetDevice(previous);
}

cudaStream_t Measurer::stream(std::size_t lane) {
  while (streams_.size() <= lane)
    streams_.push_back(std::make_unique<Stream>());
  while (lane_end_.size() <= lane)
    lane_end_.push_back(std::make_unique<Event>());
  while (lane_start_.size() <= lane)
    lane_start_.push_back(std::make_unique<Event>());
  while (pools_.size() <= lane)
    pools_.emplace_back();
  return streams_[lane]->get();
}

Measurer::RemoteLane& Measurer::remote(std::size_t lane, int device) {
  const auto found = remote_.find({lane, device});
  if (found != remote_.end()) return found->second;
  const DeviceGuard guard(device);
  RemoteLane r;
  r.device = device;
  r.stream = std::make_unique<Stream>();
  r.start = std::make_unique<Event>();
  r.end = std::make_unique<Event>();
  return remote_.emplace(std::pair{lane, device}, std::move(r)).first->second;
}

cudaStream_t Measurer::lane_stream(const Operation& op, std::size_t i) {
  const Lane& lane = op.lanes[i];
  return is_remote(lane) ? remote(i, lane.device).stream->get() : stream(i);
}

std::vector<cudaStream_t> Measurer::lane_streams(const Operation& op) {
  std::vector<cudaStream_t> out;
  for (std::size_t i = 0; i < op.lanes.size(); ++i)
    if (!is_remote(op.lanes[i])) out.push_back(stream(i));
  return out;
}

void Measurer::launch_lane(const Operation& op, std::size_t i) {
  const Lane& lane = op.lanes[i];
  if (is_remote(lane)) {
    RemoteLane& r = remote(i, lane.device);
    const DeviceGuard guard(lane.device);
    LaunchScope scope(r.stream->get(), r.pool);
    lane.launch(scope);
    if (scope.has_open_forks()) scope.join();
    return;
  }
  LaunchScope scope(streams_[i]->get(), pools_[i]);
  lane.launch(scope);
  if (scope.has_open_forks()) scope.join();
}

void Measurer::start_remote_lanes(const Operation& op, LaunchGate* gate) {
  for (std::size_t i = 0; i < op.lanes.size(); ++i) {
    if (!is_remote(op.lanes[i])) continue;
    RemoteLane& r = remote(i, op.lanes[i].device);
    const DeviceGuard guard(r.device);
    if (gate) gate->hold_also(r.stream->get());
    r.start->record(r.stream->get());
  }
}

void Measurer::end_remote_lanes(const Operation& op) {
  for (std::size_t i = 0; i < op.lanes.size(); ++i) {
    if (!is_remote(op.lanes[i])) continue;
    RemoteLane& r = remote(i, op.lanes[i].device);
    const DeviceGuard guard(r.device);
    r.end->record(r.stream->get());
  }
}

void Measurer::remote_lane_times(const Operation& op, BatchTimes& t) {
  for (std::size_t i = 0; i < op.lanes.size(); ++i) {
    if (!is_remote(op.lanes[i])) continue;
    RemoteLane& r = remote(i, op.lanes[i].device);
    r.end->synchronize();
    t.lanes[i] = r.end->seconds_since(*r.start);
    t.total = std::max(t.total, t.lanes[i]);
  }
}

void Measurer::apply_cache(const Operation& op) {
  if (op.cache == Cache::kAsLeft) return;
  if (!flusher_) flusher_ = std::make_unique<L2Flusher>(l2_bytes_);
  cudaStream_t main = streams_[0]->get();
  flusher_->flush(main);
  if (op.cache == Cache::kFlushL2AndResetPersisting) {
    // A context-wide reset: wait for the flush, then turn persisting lines back to normal.
    GP_CUDA(cudaStreamSynchronize(main));
    reset_persisting_lines(persisting_l2_max_bytes_);
  }
}

void Measurer::prepare(const Operation& op) {
  for (std::size_t i = 0; i < op.lanes.size(); ++i)
    stream(i);
  if (op.prepare) {
    op.prepare(main_stream());
    GP_CUDA(cudaStreamSynchronize(main_stream()));
  }
}

PassSteps Measurer::pass_steps(const Operation& op) {
  if (op.lanes.empty()) throw RunError(fmt::format("operation '{}' has no work", op.label));
  for (std::size_t i = 0; i < op.lanes.size(); ++i)
    stream(i);
  cudaStream_t main = main_stream();
  PassSteps steps;
  steps.reset = [&op, main] {
    if (op.prepare) op.prepare(main);
    if (op.reset_pass) op.reset_pass(main);
    GP_CUDA(cudaStreamSynchronize(main));
  };
  steps.cache = [this, &op, main] {
    apply_cache(op);
    GP_CUDA(cudaStreamSynchronize(main));
  };
  steps.run = [this, &op] {
    const PersistingScope persisting(op.persisting, lane_streams(op), persisting_l2_max_bytes_);
    for (std::size_t i = 0; i < op.lanes.size(); ++i)
      launch_lane(op, i);
    GP_CHECK_LAUNCH(op.label.c_str());
    for (std::size_t i = 0; i < op.lanes.size(); ++i)
      GP_CUDA(cudaStreamSynchronize(lane_stream(op, i)));
    GP_CHECK_LAUNCH(op.label.c_str());
  };
  if (op.verify) steps.verify = op.verify;
  if (op.count_write_back) {
    steps.write_back = [this, main] {
      if (!flusher_) flusher_ = std::make_unique<L2Flusher>(l2_bytes_);
      flusher_->flush(main);
      GP_CUDA(cudaStreamSynchronize(main));
    };
  }
  return steps;
}

Measurer::BatchTimes Measurer::run_device_batch(const Operation& op, std::size_t reps, bool gated) {
  const std::size_t lanes = op.lanes.size();
  bool wide = false;  // some lane runs on another GPU
  for (std::size_t i = 0; i < lanes; ++i) {
    stream(i);  // make sure streams and events exist
    lane_stream(op, i);
    wide = wide || is_remote(op.lanes[i]);
  }
  if (wide && gated && !wide_gate_) wide_gate_ = std::make_unique<LaunchGate>();
  LaunchGate* gate = !gated ? nullptr : wide ? wide_gate_.get() : &gate_;
  cudaStream_t main = streams_[0]->get();
  apply_cache(op);
  // Lanes on other GPUs do not wait for the harness's stream: the cache step ends first.
  if (wide && op.cache != Cache::kAsLeft) GP_CUDA(cudaStreamSynchronize(main));
  // Released on every path: a throw between arm and release must not leave the stream held
  // until the gate's timeout.
  struct GateRelease {
    LaunchGate* gate;
    ~GateRelease() {
      if (gate) gate->release();
    }
  } release_on_exit{gate};  // set before arm: arm may throw after launching
  if (gate) gate->arm(main);
  start_.record(main);
  for (std::size_t i = 1; i < lanes; ++i) {
    if (is_remote(op.lanes[i])) continue;
    if (wide) {  // a gate and a start of its own, as a remote lane has: no wait for another
      if (gate) gate->hold_also(streams_[i]->get());  // stream inside its time
      lane_start_[i]->record(streams_[i]->get());
    } else {
      GP_CUDA(cudaStreamWaitEvent(streams_[i]->get(), start_.get(), 0));
    }
  }
  if (wide) start_remote_lanes(op, gate);
  for (std::size_t r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < lanes; ++i)
      launch_lane(op, i);
  }
  GP_CHECK_LAUNCH(op.label.c_str());
  for (std::size_t i = 0; i < lanes; ++i) {
    if (is_remote(op.lanes[i])) continue;
    lane_end_[i]->record(streams_[i]->get());
    if (i > 0) GP_CUDA(cudaStreamWaitEvent(main, lane_end_[i]->get(), 0));
  }
  if (wide) end_remote_lanes(op);
  stop_.record(main);
  if (gate) gate->release();  // before waiting; the guard's second release is harmless
  stop_.synchronize();
  GP_CHECK_LAUNCH(op.label.c_str());
  BatchTimes t{stop_.seconds_since(start_), {}, false};
  for (std::size_t i = 0; i < lanes; ++i)
    t.lanes.push_back(is_remote(op.lanes[i])
                          ? 0.0
                          : lane_end_[i]->seconds_since(wide && i > 0 ? *lane_start_[i] : start_));
  if (wide) {  // the longest lane, each timed from its own start (not the main stream's waits)
    t.total = *std::max_element(t.lanes.begin(), t.lanes.end());
    remote_lane_times(op, t);
  }
  t.gate_timed_out = gate && gate->timed_out();  // every gated stream has finished
  return t;
}

Measurer::BatchTimes Measurer::run_host_batch(const Operation& op, std::size_t reps) {
  const std::size_t lanes = op.lanes.size();
  for (std::size_t i = 0; i < lanes; ++i)
    stream(i);
  if (op.cache != Cache::kAsLeft) {
    apply_cache(op);
    streams_[0]->synchronize();
  }
  // One host thread per lane, released together; each times its own calls + stream sync.
  std::vector<cudaStream_t> lane_stream_of(lanes);  // made here: the threads only read them
  for (std::size_t i = 0; i < lanes; ++i)
    lane_stream_of[i] = lane_stream(op, i);
  std::vector<Clock::time_point> begin(lanes), end(lanes);
  std::vector<std::exception_ptr> errors(lanes);
  std::barrier sync_point(static_cast<std::ptrdiff_t>(lanes));
  int device = 0;
  GP_CUDA(cudaGetDevice(&device));
  std::atomic<bool> abandoned{false};  // a lane thread could not be started: nobody runs
  auto run_lane = [&](std::size_t i) {
    try {
      // The current device is per host thread: a new thread starts on device 0.
      const cudaError_t set = cudaSetDevice(is_remote(op.lanes[i]) ? op.lanes[i].device : device);
      sync_point.arrive_and_wait();
      if (abandoned) return;
      GP_CUDA(set);
      begin[i] = Clock::now();
      for (std::size_t r = 0; r < reps; ++r)
        launch_lane(op, i);
      GP_CUDA(cudaStreamSynchronize(lane_stream_of[i]));
      end[i] = Clock::now();
    } catch (...) {
      errors[i] = std::current_exception();
      end[i] = begin[i] = Clock::now();
    }
  };
  {
    std::vector<std::jthread> threads;  // joined at the end of this scope
    try {
      for (std::size_t i = 1; i < lanes; ++i)
        threads.emplace_back(run_lane, i);
    } catch (...) {
      // Release the lanes already waiting at the barrier: drop the ones that will never arrive
      // (this thread's and the unstarted ones), so the started threads return and join.
      abandoned = true;
      for (std::size_t missing = lanes - threads.size(); missing > 0; --missing)
        sync_point.arrive_and_drop();
      throw;
    }
    run_lane(0);
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  GP_CHECK_LAUNCH(op.label.c_str());
  const auto first = *std::min_element(begin.begin(), begin.end());
  const auto last = *std::max_element(end.begin(), end.end());
  BatchTimes t{seconds_between(first, last), {}, false};
  for (std::size_t i = 0; i < lanes; ++i)
    t.lanes.push_back(seconds_between(first, end[i]));
  return t;
}

Measurer::BatchTimes Measurer::run_batch(const Operation& op, std::size_t reps, bool gated) {
  return op.timing == Timing::kHostClock ? run_host_batch(op, reps)
                                         : run_device_batch(op, reps, gated);
}

void Measurer::calibrate(const Operation& op, RoundState& state) {
  // One ungated repetition (also the first warm-up), then size the batch.
  const double single = std::max(run_batch(op, 1, false).total, 1e-7);
  state.reps =
      static_cast<std::size_t>(std::clamp(std::ceil(options_.target_batch_seconds / single), 1.0,
                                          static_cast<double>(options_.max_batch)));
  // A round process carries the earlier rounds' samples on (ProbeContext::carry_on_from): their
  // lanes are already there.
  if (state.samples.lanes.empty()) {
    for (const auto& lane : op.lanes)
      state.samples.lanes.push_back({lane.name, lane.bytes, {}});
  }
}

void Measurer::measure_round(const Operation& op, RoundState& state, std::uint32_t round,
                             const StoppingRule& rule, bool last) {
  if (op.lanes.empty()) throw RunError(fmt::format("operation '{}' has no work", op.label));
  // Operations of one batch may share buffers: every round starts from this one's inputs.
  const bool first = state.reps == 0;
  if (op.prepare_every_round || first || last) prepare(op);
  trace("  prepared");
  const PersistingScope persisting(op.persisting, lane_streams(op), persisting_l2_max_bytes_);
  if (first) calibrate(op, state);
  // Calibration ran one repetition ungated: when a batch is one repetition (a long copy), that
  // was the first warm-up batch already.
  const std::size_t warmups =
      !first ? (op.rewarm_each_round ? 1 : 0)
             : options_.warmup_batches - (state.reps == 1 && options_.warmup_batches > 0 ? 1 : 0);
  for (std::size_t w = 0; w < warmups; ++w)
    run_batch(op, state.reps, false);
  trace("  warmed up");
  SampleSet& out = state.samples;
  const std::size_t before = out.seconds.size();
  // Precision within a run beyond what its rounds agree on buys nothing: the rounds decide.
  StoppingRule round_rule = rule;
  round_rule.max_noise = std::max(rule.max_noise, between_round_spread(out) / 2);
  const auto started = Clock::now();
  double measured = 0;
  const auto reps = static_cast<double>(state.reps);
  std::vector<double> lane_seconds;
  while (round_rule.should_continue(std::span(out.seconds).subspan(before), out.seconds, measured,
                                    seconds_between(started, Clock::now()))) {
    throw_if_interrupted();  // SIGINT/SIGTERM: stop within a sample (about a millisecond)
    if (op.reset_sample) {
      op.reset_sample(main_stream());
      GP_CUDA(cudaStreamSynchronize(main_stream()));
    }
    const BatchTimes t = run_batch(op, state.reps, true);
    lane_seconds.clear();
    for (const double lane : t.lanes)
      lane_seconds.push_back(lane / reps);
    out.add(round, t.total / reps, lane_seconds);
    measured += t.total;
    state.gate_timeouts = state.gate_timeouts || t.gate_timed_out;
  }
  trace("  sampled");
  // Now, before another operation of the batch reuses the buffers.
  if (last && op.verify) {
    const std::string problem = op.verify();
    trace("  verified");
    if (!problem.empty()) throw VerificationError(fmt::format("{}: {}", op.label, problem));
  }
}

SampleSet Measurer::finish(const Operation& op, RoundState&& state) {
  SampleSet out = std::move(state.samples);
  const StoppingRule& rule = options_.rule;
  if (out.seconds.empty()) throw RunError(fmt::format("operation '{}' took no samples", op.label));
  if (median_uncertainty(out.seconds) > rule.max_noise) out.flags.push_back("noisy");
  if (state.gate_timeouts) out.flags.push_back("gate-timeout");
  return out;
}

}  // namespace gpuprobe::runtime
