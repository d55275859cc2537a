// First-principles times of a copy/compute pipeline: H2D -> kernel -> D2H over n chunks.
#pragma once

#include <cstddef>

namespace gpuprobe::models {

// Seconds each stage takes over the whole buffer, run alone (or, for the copies, at the rate they
// reach while the other copy direction runs beside them).
struct StageTimes {
  double h2d = 0;
  double kernel = 0;
  double d2h = 0;
};

// Fixed seconds each stage costs per chunk beyond its share of the work (a copy's set-up, a
// launch gap): measured as (n chunks back to back - the whole buffer at once) / (n - 1).
struct ChunkCosts {
  double h2d = 0;
  double kernel = 0;
  double d2h = 0;
};

// The per-chunk cost of one stage from its whole-buffer time and its time as `chunks` chunks
// back to back on one stream; 0 for chunks <= 1.
double chunk_cost(double whole, double chunked, std::size_t chunks);

// One stream, one chunk: every stage after the other, h2d + kernel + d2h.
double sequential_time(const StageTimes& t);

// The ideal overlap: the longest stage, max(h2d, kernel, d2h).
double ideal_time(const StageTimes& t);

// The three-stage pipeline over n chunks with per-chunk stage times s = t/n + c: the first chunk
// passes every stage, then each later chunk adds the slowest stage, sum(s) + (n - 1) max(s).
// Without chunk costs this is max(t) + (sum(t) - max(t)) / n; n = 1 gives sequential_time.
double pipeline_time(const StageTimes& t, std::size_t n, const ChunkCosts& c = {});

// The same pipeline with the copies slowing each other: of the n + 2 slots of a pipeline of
// n >= 2 chunks, the fill (first two) and drain (last two) have at most one copy direction
// busy, and the n - 2 middle slots both. So sum(s) + max(s) at the solo stage times, plus
// (n - 2) max(s_c) with the copies at their concurrent times `both`. n = 2 gives pipeline_time,
// n = 1 sequential_time.
double concurrent_pipeline_time(const StageTimes& solo, const StageTimes& both, std::size_t n,
                                const ChunkCosts& c = {});

// The CUDA C++ Best Practices Guide's staged concurrent copy and execute: tE + tT / n when the
// kernel (tE) outlasts the transfers (tT = h2d + d2h), else tT + tE / n.
double guide_time(const StageTimes& t, std::size_t n);

// How much of the time overlap could save was saved: (t_seq - t) / (t_seq - t_ideal); 1 = ideal,
// 0 = no gain, < 0 slower than sequential. 0 when t_seq <= t_ideal (nothing to save).
double overlap_efficiency(double t_sequential, double t, double t_ideal);

}  // namespace gpuprobe::models
