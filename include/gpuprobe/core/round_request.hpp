// Rounds in child processes: what a round process is asked (RoundRequest) and what it answers
// (the sample sets of one round), and their JSON form, both ways (docs/method.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {

// One round of a batch of points, measured by a child process (`gpuprobe __round`): which probe,
// which device, the points (the keys of sweep_rows.hpp, found again in the sweep of `values`) and
// how to sample them.
struct RoundRequest {
  std::string probe;
  int device = 0;
  std::vector<std::string> keys;
  std::uint32_t round = 0;  // 0-based, of `rounds`
  std::size_t rounds = 1;
  std::uint64_t seed = 0;   // with batch and round: the order of the points (round_order)
  std::uint64_t batch = 0;  // the parent's batch index
  StoppingRule rule;        // the whole rule: the child takes its round's share
  std::size_t warmup_batches = 1;
  double target_batch_seconds = 1e-3;
  std::size_t max_batch = 256;
  // Per key, the samples of the rounds before this one (empty in the first): the round's stopping
  // rule judges them with its own, as it would in one process (Measurer::measure_round).
  std::vector<SampleSet> earlier;
  // A host-scoped probe's GPUs (ProbeContext::devices()), `device` first; empty: just `device`.
  std::vector<int> devices;
  // The run's axis values, as resolved in the parent: the child makes the same sweep from them.
  AxisValues values;
};

nlohmann::json to_json(const RoundRequest& request);
// Throws UsageError naming `origin` on a missing or mistyped field, or earlier samples that are
// not of earlier rounds.
RoundRequest round_request_from_json(const nlohmann::ordered_json& json, const std::string& origin);

// A round process's answer: per key, the samples it took (all in the request's round) with their
// lanes and flags; or, when a point's data was wrong, that message (`wrong_result`).
struct RoundAnswer {
  std::vector<SampleSet> sets;
  std::string wrong_result;
};

nlohmann::json to_json(const RoundAnswer& answer);
// Throws UsageError naming `origin` on a missing or mistyped field, a set whose rounds or lanes
// do not match its samples, or a sample in another round than `round`.
RoundAnswer round_answer_from_json(const nlohmann::ordered_json& json, const std::string& origin,
                                   std::uint32_t round);

// The samples of `set` taken in `round`, with their lanes; its flags kept. Throws
// std::invalid_argument when a lane's samples do not match the set's.
SampleSet samples_of_round(const SampleSet& set, std::uint32_t round);

// Appends the samples of `part` (one round, from a round process) to `into`: seconds, rounds and
// each lane's seconds (lanes matched by name, in order); flags other than "noisy" carried over
// once (noisy is judged again over all samples). Throws std::invalid_argument when the lanes
// differ.
void append_round(SampleSet& into, const SampleSet& part);

}  // namespace gpuprobe
