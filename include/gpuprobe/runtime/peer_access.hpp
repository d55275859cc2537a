// RAII peer access between GPUs: enabled for every ordered pair that supports it, switched per
// measurement where a pair must be off, and left on destruction as it was found.
#pragma once

#include <set>
#include <utility>
#include <vector>

namespace gpuprobe::runtime {

// An ordered pair of GPUs (from, to): `from` may access `to`'s memory.
using GpuPair = std::pair<int, int>;

// Peer access between every ordered pair of distinct `devices` that supports it
// (cudaDeviceCanAccessPeer), enabled on construction; on destruction each pair is put back as it
// was found (enabled by someone else before: on, else off).
class PeerAccess {
 public:
  explicit PeerAccess(const std::vector<int>& devices);
  ~PeerAccess();
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

  // Whether `from` can access `to`'s memory at all.
  bool can(int from, int to) const { return can_.count({from, to}) > 0; }
  // Every pair that can on, but those of `off` (e.g. both ways of one pair, so that the driver
  // stages a copy between them through the host).
  void require(const std::set<GpuPair>& off = {});

 private:
  void set(const GpuPair& pair, bool on);
  std::set<GpuPair> can_, on_, found_on_;
};

}  // namespace gpuprobe::runtime
