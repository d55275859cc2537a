// peer's sweep (host-only, tested in CI): the points of the pair sweep, which of them run their
// rounds in processes of their own, and the arithmetic of the latency mode's pointer chain.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuprobe/core/host_device.hpp"  // the chain's step: verification and kernels share it

namespace gpuprobe::peer {

// One measured point of the pair sweep: `mode` moves `bytes` from src to dst (and back for bidir).
struct Point {
  int src = 0, dst = 0;
  std::string mode, direction;
  std::uint64_t bytes = 0;
};

// Every (ordered pair, mode, direction, size) of the sweep, in that nesting order. sm-latency is
// one thread's chain of loads, one way only: it has no bidir point.
std::vector<Point> pair_sweep(const std::vector<int>& devices,
                              const std::vector<std::string>& modes,
                              const std::vector<std::string>& directions,
                              const std::vector<std::uint64_t>& sizes);

// Copies up to this size, and every pointer chase, hold one level per process: on two H200s six
// same-build runs put a 64 KiB sm-read at 3.1-4.1 us and a staged copy at 13.5-19.5 us, each run's
// rounds agreeing (docs/probes/peer.md, "Small copies between processes"), as transfer's small
// copies did (docs/method.md, "Rounds in processes"). They are measured with each round in a
// process of its own; larger copies move enough bytes that the level is lost in them.
inline constexpr std::uint64_t kProcessLevelMaxBytes = std::uint64_t{1} << 20;
inline bool process_level(const Point& p) {
  return p.mode == "sm-latency" || p.bytes <= kProcessLevelMaxBytes;
}
// How many processes such points take at least. Each process draws one of two levels for a small
// copy (4 KiB ce-write 0->1: 2.53 us in one process, 3.62-3.85 in four others), so the median of
// five processes still landed on either and 0->1 and 1->0 differed up to 1.46x; with nine, on two
// H200s (2026-11-27, examples/results/h200-x2/symmetry/), every 4 KiB one-way path agreed within
// 2.8% both ways in two runs (docs/probes/peer.md).
inline constexpr std::size_t kProcessLevelRounds = 9;

// A pattern point: every copy of `copies` at once, `bytes` each, by `mode` (ce or ce-write).
// all-to-one: every other GPU into `gpu`; one-to-all: `gpu` into every other; all-to-all: every
// ordered pair (gpu -1: the point has one row per GPU).
struct PatternPoint {
  std::string pattern;
  int gpu = -1;
  std::string mode;
  std::uint64_t bytes = 0;
  std::vector<std::pair<int, int>> copies;  // (from, to), in ordered_pairs order
};

// Every (pattern, GPU, mode, size) of the patterns asked for ("pairs" is the pair sweep, not a
// pattern), for the modes among ce and ce-write (the others have no pattern points).
std::vector<PatternPoint> pattern_sweep(const std::vector<int>& devices,
                                        const std::vector<std::string>& patterns,
                                        const std::vector<std::string>& modes,
                                        const std::vector<std::uint64_t>& sizes);

// The GPUs a pattern point reports on: the one GPU, or every GPU for all-to-all.
std::vector<int> reported_gpus(const PatternPoint& p, const std::vector<int>& devices);
// The copies that carry a GPU's traffic in a pattern point (indices into copies): what it sends
// for one-to-all, what it receives otherwise.
std::vector<std::size_t> copies_of(const PatternPoint& p, int gpu);
// Where copy (from, to) lands in `to`'s inbox: the index of `from` among `to`'s possible senders
// (devices in order, `to` left out), in units of the point's bytes.
std::size_t inbox_slot(const std::vector<int>& devices, int from, int to);

// The GPU whose stream runs a point's copy from `from` to `to`: the receiver for ce, ce-nop2p,
// sm-read, sm-latency and staged (whose first leg, on `from`, it waits for); the sender for
// sm-write and ce-write.
inline int executing_gpu(const std::string& mode, int from, int to) {
  return mode == "sm-write" || mode == "ce-write" ? from : to;
}

// The latency mode's chain: `bytes` of the peer's memory hold nodes of 8 bytes, one per
// kChaseSlot-byte slot, chase_nodes(bytes) of them (a power of two, at least 1). Node i holds the
// address of node chase_next(i): a full-period linear congruential step modulo the node count,
// so the chain visits every node once per lap, each step to a slot far from the last.
inline constexpr std::uint64_t kChaseSlot = 128;  // one L2 line: no two nodes share one
inline constexpr std::uint64_t kChaseHops = 512;  // dependent loads per repetition
constexpr std::uint64_t chase_nodes(std::uint64_t bytes) {
  return bytes / kChaseSlot == 0 ? 1 : std::bit_floor(bytes / kChaseSlot);
}
// Full period modulo a power of two (Hull-Dobell): the increment is odd, the multiplier is 1
// modulo 4 (PCG's 64-bit constants).
GP_HOST_DEVICE constexpr std::uint64_t chase_next(std::uint64_t node, std::uint64_t nodes) {
  return (node * 6364136223846793005ull + 1442695040888963407ull) & (nodes - 1);
}
// The node the chain reaches after `hops` steps from node 0.
constexpr std::uint64_t chase_end(std::uint64_t hops, std::uint64_t nodes) {
  std::uint64_t node = 0;
  for (std::uint64_t i = 0; i < hops; ++i)
    node = chase_next(node, nodes);
  return node;
}

}  // namespace gpuprobe::peer
