// What a probe hands the runtime for one sweep point: a re-runnable operation of lanes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::runtime {

class Stream;
class Event;

// How a batch is timed.
enum class Timing {
  kDeviceEvents,  // gated batch, CUDA events around it (asynchronous work)
  kHostClock,     // steady_clock around the calls + stream sync (implicitly synchronous work)
};

// The cache state an operation needs before every timed sample and every pass.
enum class Cache {
  kAsLeft,                     // whatever the previous work left (warm, or a working set >> L2)
  kFlushL2,                    // flush L2 (read a buffer of 2x its size: no dirty line left)
  kFlushL2AndResetPersisting,  // flush L2 and turn persisting lines back to normal ones
};

// What one lane's launch may do within one repetition: enqueue work on the lane's stream, fork
// work onto further streams and join them back (a chunked copy/compute pipeline). Forked streams
// that were not joined are joined when the launch returns, so timing always covers them.
class LaunchScope {
 public:
  cudaStream_t stream() const { return stream_; }
  // Further stream `index` (0, 1, ...) of this lane, ordered after all work enqueued on the
  // lane's stream so far.
  cudaStream_t fork(std::size_t index);
  // Orders the lane's stream after all work enqueued so far on every forked stream.
  void join();

  // Used by the Measurer: a scope over a lane's stream and its pool of further streams.
  struct Pool {
    std::vector<std::unique_ptr<Stream>> streams;
    std::vector<std::unique_ptr<Event>> joins;
    std::unique_ptr<Event> fork_point;
    Pool();
    ~Pool();
    Pool(Pool&&) noexcept;
    Pool& operator=(Pool&&) noexcept;
  };
  LaunchScope(cudaStream_t stream, Pool& pool) : stream_(stream), pool_(pool) {}
  bool has_open_forks() const { return !open_.empty(); }

 private:
  cudaStream_t stream_;
  Pool& pool_;
  std::vector<std::size_t> open_;  // forked since the last join
};

// A persisting-L2 setting for an operation: a set-aside of L2 for persisting accesses and an
// access-policy window on the lanes' streams. The harness applies it before each round of
// samples and each counter pass and restores the device after (set-aside 0, no window, persisting
// lines back to normal): the lane streams serve every operation, so a window a probe set itself
// would leak into the next point. Forked streams copy their lane's window when forked.
struct PersistingL2 {
  std::size_t set_aside_bytes = 0;  // cudaLimitPersistingL2CacheSize (the driver may round it)
  void* window_base = nullptr;      // the access-policy window: base and size in bytes
  std::size_t window_bytes = 0;
  float hit_ratio = 1.0f;  // share of the window's accesses that get `hit`, the rest `miss`
  cudaAccessProperty hit = cudaAccessPropertyPersisting;
  cudaAccessProperty miss = cudaAccessPropertyStreaming;
};

// One stream of work inside an operation. Lane 0 runs on the harness's main stream, lane i on
// its own stream; lanes run concurrently and each is timed from the common start.
struct Lane {
  std::string name;  // "h2d", "d2h", or the operation's name for single-lane operations
  double bytes = 0;  // bytes one repetition moves, as the probe counts them
  std::function<void(LaunchScope&)> launch;  // enqueue one repetition
  // The GPU the lane runs on: -1 (or the harness's device) for the harness's device. A lane on
  // another GPU runs on a stream of that GPU with that GPU current during launch; in a gated
  // batch a spin kernel of its own holds it, released by the same host flag as the harness's, and
  // it is timed by events on its own stream, from its gate's release to its end (events of two
  // GPUs cannot be subtracted, and a cross-GPU wait would land inside the timed interval). In
  // such a batch the harness GPU's lanes after the first are gated and timed the same way, each
  // from its own gate (a wait for the main stream's start event, inside its time, made a bidir
  // row 1.38x slower with its second lane on the harness GPU than the same copies the other way
  // round). The operation's time is then its longest lane's. Persisting-L2 windows apply to the harness's
  // device only.
  int device = -1;
};

// A re-runnable operation. The harness runs it many times (warm-up, timed samples, replay passes
// of the counter collector) and expects the same work each time.
struct Operation {
  std::string label;  // for progress and error messages: "pinned h2d 64 MiB"
  // Untimed: fill inputs, poison outputs. Runs before each round of samples (operations of a
  // batch may share buffers) and before every counter replay pass, so each pass
  // is verified on its own.
  std::function<void(cudaStream_t)> prepare;
  // Untimed, before every timed sample: restore what one sample changes (optional).
  std::function<void(cudaStream_t)> reset_sample;
  // Untimed, before every pass, after prepare: what a pass needs beyond prepare (optional;
  // most operations need nothing more).
  std::function<void(cudaStream_t)> reset_pass;
  std::vector<Lane> lanes;
  std::function<std::string()> verify;  // optional; "" = correct, else what is wrong
  // Once, when the harness is done with the operation (also after a failure); optional.
  std::function<void()> teardown;
  Timing timing = Timing::kDeviceEvents;
  Cache cache = Cache::kAsLeft;
  // A persisting-L2 set-aside and window while this operation runs (optional; GPUs without
  // persisting L2 refuse it with UnsupportedError).
  std::optional<PersistingL2> persisting;
  // Counter pass only: count the operation's own DRAM writes. A write-back L2 cache holds some
  // of an operation's writes as dirty lines when it ends and writes them back later, outside its
  // range, while writing back earlier work's dirty lines inside it. With this set, each pass
  // flushes the L2 (a read sweep: nothing dirty left) after reset and cache, so the range starts
  // clean, then flushes it again in a range of its own right after the operation's, and reports
  // that range's `dram__bytes_write.sum` as `write_back.dram__bytes_write.sum`: the range's
  // DRAM writes plus the write-back are the operation's writes.
  bool count_write_back = false;
  // A warm-up batch before every later round's samples (the first round always warms up with its
  // calibration). Off where nothing of a point's start state carries over from the points visited
  // in between, and a batch is a copy of milliseconds: there the warm-up is one more sample's time
  // spent on nothing (transfer's copies of more than 1 MiB; docs/method.md).
  bool rewarm_each_round = true;
  // `prepare` before every round. Off where prepare only poisons outputs (no input changes between
  // rounds): then it runs before the first round and the last, the one verified.
  bool prepare_every_round = true;
};

}  // namespace gpuprobe::runtime
