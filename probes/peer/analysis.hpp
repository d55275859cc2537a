// peer's analysis (host-only, tested in CI): measured rows -> each copy path's peak bandwidth,
// latency and fraction of the link's raw limit, as findings; and its words.
#pragma once

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/pair_matrix.hpp"  // ordered_pairs
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::peer {

// Reads the measured rows (params src, dst, mode, direction, bytes, link; metrics bandwidth and
// time; model raw_limit in GB/s, absent where the link is unknown), gives each `fraction_of_raw`
// (derived) and adds per (src, dst, mode, direction) `peer_path` (the peak bandwidth and where,
// the latency at the smallest size, the raw limit and the fraction of it) and `peer_above_model`
// where the peak exceeds the raw limit (the link is faster than the model assumed); sm-latency
// rows (access_latency: s per load) make `peer_chase` per (src, dst) instead, the time per load
// at the smallest and the largest chain; `peer_link_assumed` notes link facts not from NVML.
void analyse(ProbeResult& result);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::peer
