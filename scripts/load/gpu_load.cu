// Background GPU load: keeps PCIe or HBM busy so that a gpuprobe run beside it is really slower.
// pcie-h2d / pcie-d2h copy a 256 MiB pinned host buffer to / from a device buffer with
// cudaMemcpyAsync; hbm runs a grid-stride float4 copy kernel over two 2 GiB device buffers. At most
// 4 operations are in flight, so it stops within milliseconds of SECONDS or SIGTERM / SIGINT.
// Prints "ready" on stdout once the first operation completed, then the rate each second on stderr.
// Build: nvcc -O3 -arch=sm_90 -o gpu_load scripts/load/gpu_load.cu
// Run:   ./gpu_load pcie-h2d|pcie-d2h|hbm SECONDS [DEVICE]   (DEVICE default 0)
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../experiments/check.cuh"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kInFlight = 4;
constexpr size_t kPcieBytes = size_t(256) << 20;
constexpr size_t kHbmBytes = size_t(2) << 30;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

enum class Mode { kH2D, kD2H, kHbm };  // in the order of kModeNames
const char* const kModeNames[] = {"pcie-h2d", "pcie-d2h", "hbm"};

struct Load {
  Mode mode = Mode::kH2D;
  double seconds = 0;
  int device = 0;
  size_t bytes = 0;  // counted per operation: once per PCIe copy, read + write for hbm
  void* host = nullptr;
  float4* dev_a = nullptr;  // PCIe: the device end of the copy; hbm: the kernel's input
  float4* dev_b = nullptr;  // hbm: the kernel's output
  cudaStream_t stream = nullptr;
  int blocks = 0;
};

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t step = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += step)
    out[i] = in[i];
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: gpu_load pcie-h2d|pcie-d2h|hbm SECONDS [DEVICE]\n");
  std::exit(2);
}

Load parse(int argc, char** argv) {
  if (argc < 3 || argc > 4) usage();
  int m = 0;
  while (m < 3 && std::strcmp(argv[1], kModeNames[m]))
    ++m;
  if (m == 3) usage();
  Load a;
  a.mode = Mode(m);
  char* end = nullptr;
  a.seconds = std::strtod(argv[2], &end);
  if (end == argv[2] || *end || !std::isfinite(a.seconds) || a.seconds <= 0) usage();
  if (argc == 4) {
    const long d = std::strtol(argv[3], &end, 10);
    if (end == argv[3] || *end || d < 0 || d > 4096) usage();
    a.device = int(d);
  }
  return a;
}

void setup(Load& l) {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (l.device >= count) usage();
  CHECK(cudaSetDevice(l.device));
  CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
  const bool hbm = l.mode == Mode::kHbm;
  const size_t size = hbm ? kHbmBytes : kPcieBytes;
  l.bytes = hbm ? 2 * size : size;
  CHECK(cudaMalloc(&l.dev_a, size));
  CHECK(cudaMemset(l.dev_a, 1, size));
  if (hbm) {
    CHECK(cudaMalloc(&l.dev_b, size));
    CHECK(cudaMemset(l.dev_b, 0, size));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, l.device));
    l.blocks = sms * 8;
  } else {
    CHECK(cudaHostAlloc(&l.host, size, cudaHostAllocDefault));
    std::memset(l.host, 1, size);
  }
  CHECK(cudaDeviceSynchronize());
}

void issue(const Load& l) {
  if (l.mode == Mode::kHbm) {
    copy_kernel<<<l.blocks, 256, 0, l.stream>>>(l.dev_a, l.dev_b, kHbmBytes / sizeof(float4));
    CHECK(cudaGetLastError());
  } else if (l.mode == Mode::kH2D) {
    CHECK(cudaMemcpyAsync(l.dev_a, l.host, kPcieBytes, cudaMemcpyHostToDevice, l.stream));
  } else {
    CHECK(cudaMemcpyAsync(l.host, l.dev_a, kPcieBytes, cudaMemcpyDeviceToHost, l.stream));
  }
}

struct Meter {  // bytes done: in all, and since the last line printed
  const char* name;
  Clock::time_point start = Clock::now(), last = start;
  double total = 0, recent = 0;

  void add(double bytes) {
    total += bytes;
    recent += bytes;
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last).count();
    if (dt < 1.0) return;
    std::fprintf(stderr, "gpu_load %s: %.1f GB/s over %.2f s\n", name, recent / dt / 1e9, dt);
    recent = 0;
    last = now;
  }
};

// Issues operations until SECONDS pass or a signal comes, waiting on the oldest of kInFlight.
void run(const Load& l, Meter& m) {
  cudaEvent_t ev[kInFlight];
  for (auto& e : ev)
    CHECK(cudaEventCreateWithFlags(&e, cudaEventBlockingSync | cudaEventDisableTiming));
  const auto deadline = m.start + std::chrono::duration<double>(l.seconds);
  int pending = 0;
  for (long next = 0;; ++next) {
    const int slot = int(next % kInFlight);  // with kInFlight pending, this slot is the oldest
    if (pending == kInFlight) {
      CHECK(cudaEventSynchronize(ev[slot]));
      m.add(double(l.bytes));
      --pending;
    }
    if (g_stop || Clock::now() >= deadline) break;
    issue(l);
    CHECK(cudaEventRecord(ev[slot], l.stream));
    ++pending;
  }
  CHECK(cudaStreamSynchronize(l.stream));
  m.add(double(l.bytes) * pending);
  for (auto& e : ev)
    CHECK(cudaEventDestroy(e));
}

}  // namespace

int main(int argc, char** argv) {
  Load l = parse(argc, argv);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  setup(l);
  issue(l);  // the first operation, not counted: "ready" means the load is really running
  CHECK(cudaStreamSynchronize(l.stream));
  std::printf("ready\n");
  std::fflush(stdout);
  Meter m{kModeNames[int(l.mode)]};
  run(l, m);
  const double dt = std::chrono::duration<double>(Clock::now() - m.start).count();
  std::fprintf(stderr, "gpu_load %s: total %.1f GB in %.2f s, %.1f GB/s\n", m.name, m.total / 1e9,
               dt, m.total / dt / 1e9);
  CHECK(cudaStreamDestroy(l.stream));
  if (l.host) CHECK(cudaFreeHost(l.host));
  CHECK(cudaFree(l.dev_a));
  CHECK(cudaFree(l.dev_b));  // nullptr for the PCIe modes: a no-op
  return 0;
}
