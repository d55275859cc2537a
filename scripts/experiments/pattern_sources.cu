// Experiment: on four NVLink-joined H200s, gpuprobe's one-to-all ce (three peers each pulling
// 512 MiB from GPU j, released together) read 394 GB/s out of j, nvbandwidth's
// all_to_one_read_ce (the same three pulls) 338, steadily, in the same session. The differences
// between the two: gpuprobe's three copies read ONE source buffer on j, nvbandwidth's three
// distinct ones; nvbandwidth times 16 back-to-back copies per stream (loopCount), gpuprobe one.
// Prediction: the shared source is the cause (three pulls of the same lines, close in time, find
// some in j's L2 and go faster); distinct sources read about 338, whatever the loop count.
// Variants, each with the three copies gated by one host-mapped flag and timed per stream with
// events on the GPU that runs it (GB/s out of j = bytes of all copies / the longest stream):
//   pull|push   the peers' copy engines pull from j (ce) | j's pushes to the peers (ce-write)
//   shared|distinct   one source buffer on j for all copies | one per copy
//   loops 1|16  copies of `bytes` per stream in the timed interval
//   api peer|default   cudaMemcpyPeerAsync | cudaMemcpyAsync(cudaMemcpyDefault), as nvbandwidth's
//               cuMemcpyAsync (distinct sources, 16 loops)
//   timing ours|nvb-total|nvb-longest   ours: each stream from its own start (gate released) to its
//               end, the longest; nvb: nvbandwidth's sequence (memcpy.cpp doMemcpyCore: 4 warm-up
//               copies per stream behind the blocker, stream 0's start event, the others waiting on
//               it across GPUs, stream 0 waiting on their ends): total = stream 0's start to that
//               end (nvbandwidth's TOTAL_BW), longest = the longest stream's own start to end
// First result (4 x H200, 2026-11-27, j = 0): shared and distinct, 1 and 16 loops all read
// 394.0-395.1 GB/s pulled and 394.6-396.5 pushed, against nvbandwidth's 337.8 and 339.4 in the same
// call: the source and the loop count are not the cause. Hence the api and timing variants. Output
// (CSV): direction,source,loops,api,timing,sample,gbps Build: nvcc -O3 -arch=sm_90 -o
// pattern_sources scripts/experiments/pattern_sources.cu Run:   ./pattern_sources [j=0] [MiB=512]
// [samples=5]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.cuh"

namespace {

__global__ void wait_flag(const volatile int* flag) {
  while (*flag == 0) {
  }
}

struct Stream {
  int device = 0;
  cudaStream_t s{};
  cudaEvent_t start{}, end{};
};

Stream make_stream(int device) {
  Stream st;
  st.device = device;
  CHECK(cudaSetDevice(device));
  CHECK(cudaStreamCreateWithFlags(&st.s, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&st.start));
  CHECK(cudaEventCreate(&st.end));
  return st;
}

struct Copies {
  std::vector<char*> src, dst;
  std::vector<int> peers;
  int j = 0;
  size_t bytes = 0;
  bool default_api = false;
};

void copy(const Copies& c, size_t k, int loops, cudaStream_t s) {
  for (int l = 0; l < loops; ++l) {
    if (c.default_api)
      CHECK(cudaMemcpyAsync(c.dst[k], c.src[k], c.bytes, cudaMemcpyDefault, s));
    else
      CHECK(cudaMemcpyPeerAsync(c.dst[k], c.peers[k], c.src[k], c.j, c.bytes, s));
  }
}

struct Result {
  double longest_gbps = 0, total_gbps = 0;  // total: nvbandwidth's sequence only
};

// One sample: every copy k of `loops` x `bytes` from src[k] (on j) to dst[k] (on peer k), on
// streams[k]; GB/s out of j. `nvb`: nvbandwidth's sequence (warm-ups, stream 0's start, waits).
Result sample(std::vector<Stream>& streams, const Copies& c, int loops, bool nvb,
              volatile int* flag, int* flag_dev, cudaEvent_t total_end) {
  *flag = 0;
  for (size_t k = 0; k < streams.size(); ++k) {
    CHECK(cudaSetDevice(streams[k].device));
    wait_flag<<<1, 1, 0, streams[k].s>>>(flag_dev);
    CHECK(cudaGetLastError());
    if (nvb) copy(c, k, 4, streams[k].s);
  }
  CHECK(cudaSetDevice(streams[0].device));
  CHECK(cudaEventRecord(streams[0].start, streams[0].s));
  for (size_t k = 1; k < streams.size(); ++k) {
    CHECK(cudaSetDevice(streams[k].device));
    if (nvb) CHECK(cudaStreamWaitEvent(streams[k].s, streams[0].start, 0));
    CHECK(cudaEventRecord(streams[k].start, streams[k].s));
  }
  for (size_t k = 0; k < streams.size(); ++k) {
    CHECK(cudaSetDevice(streams[k].device));
    copy(c, k, loops, streams[k].s);
    CHECK(cudaEventRecord(streams[k].end, streams[k].s));
    if (nvb && k > 0) CHECK(cudaStreamWaitEvent(streams[0].s, streams[k].end, 0));
  }
  CHECK(cudaSetDevice(streams[0].device));
  CHECK(cudaEventRecord(total_end, streams[0].s));
  *flag = 1;
  double longest = 0;
  for (auto& st : streams) {
    CHECK(cudaSetDevice(st.device));
    CHECK(cudaEventSynchronize(st.end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, st.start, st.end));
    longest = std::max(longest, double(ms) * 1e-3);
  }
  CHECK(cudaSetDevice(streams[0].device));
  CHECK(cudaEventSynchronize(total_end));
  float total_ms = 0;
  CHECK(cudaEventElapsedTime(&total_ms, streams[0].start, total_end));
  const double bytes = double(c.bytes) * loops * streams.size();
  return {bytes / longest / 1e9, bytes / (double(total_ms) * 1e-3) / 1e9};
}

}  // namespace

int main(int argc, char** argv) {
  const int j = argc > 1 ? std::atoi(argv[1]) : 0;
  const size_t bytes = size_t(argc > 2 ? std::atoi(argv[2]) : 512) << 20;
  const int samples = argc > 3 ? std::atoi(argv[3]) : 5;
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  if (n < 3) {
    std::fprintf(stderr, "needs three GPUs or more; %d visible\n", n);
    return 1;
  }
  std::vector<int> peers;
  for (int d = 0; d < n; ++d)
    if (d != j) peers.push_back(d);
  for (int a = 0; a < n; ++a) {
    CHECK(cudaSetDevice(a));
    for (int b = 0; b < n; ++b)
      if (a != b) CHECK(cudaDeviceEnablePeerAccess(b, 0));
  }
  int* flag = nullptr;
  CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  int* flag_dev = nullptr;
  CHECK(cudaHostGetDevicePointer(&flag_dev, flag, 0));
  // Sources on j (one per peer), destinations on the peers; memset so that nothing is unbacked.
  std::vector<char*> src_own(peers.size()), dst(peers.size());
  CHECK(cudaSetDevice(j));
  for (auto& p : src_own) {
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(p, 0x5a, bytes));
  }
  for (size_t k = 0; k < peers.size(); ++k) {
    CHECK(cudaSetDevice(peers[k]));
    CHECK(cudaMalloc(&dst[k], bytes));
    CHECK(cudaMemset(dst[k], 0, bytes));
  }
  std::vector<Stream> pull, push;
  for (int p : peers)
    pull.push_back(make_stream(p));
  for (size_t k = 0; k < peers.size(); ++k)
    push.push_back(make_stream(j));
  for (int a = 0; a < n; ++a) {
    CHECK(cudaSetDevice(a));
    CHECK(cudaDeviceSynchronize());
  }
  cudaEvent_t pull_end{}, push_end{};  // on stream 0's GPU: a peer (pull), j (push)
  CHECK(cudaSetDevice(peers[0]));
  CHECK(cudaEventCreate(&pull_end));
  CHECK(cudaSetDevice(j));
  CHECK(cudaEventCreate(&push_end));
  std::printf("direction,source,loops,api,timing,sample,gbps\n");
  auto run = [&](const char* dir, const char* source, int loops, bool default_api, bool nvb) {
    const bool is_pull = dir[1] == 'u' && dir[2] == 'l';
    auto& streams = is_pull ? pull : push;
    Copies c{source[0] == 's' ? std::vector<char*>(peers.size(), src_own[0]) : src_own,
             dst,
             peers,
             j,
             bytes,
             default_api};
    sample(streams, c, 1, nvb, flag, flag_dev, is_pull ? pull_end : push_end);  // warm-up
    for (int i = 0; i < samples; ++i) {
      const Result r =
          sample(streams, c, loops, nvb, flag, flag_dev, is_pull ? pull_end : push_end);
      const char* api = default_api ? "default" : "peer";
      std::printf("%s,%s,%d,%s,%s,%d,%.1f\n", dir, source, loops, api, nvb ? "nvb-longest" : "ours",
                  i, r.longest_gbps);
      if (nvb)
        std::printf("%s,%s,%d,%s,nvb-total,%d,%.1f\n", dir, source, loops, api, i, r.total_gbps);
    }
    std::fflush(stdout);
  };
  for (const char* dir : {"pull", "push"}) {
    for (const char* source : {"shared", "distinct"})
      for (int loops : {1, 16})
        run(dir, source, loops, false, false);
    run(dir, "distinct", 16, true, false);
    run(dir, "distinct", 16, false, true);
    run(dir, "distinct", 16, true, true);
  }
  return 0;
}
