// Several runs of one side of a comparison pooled into one report: rounds of every file kept,
// statistics recomputed over the pooled samples (host-only).
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Pools the runs of one side, in order. The header (tool, command, host, devices, schema
// version) is the first run's. Results are matched by probe and device: each pooled result is the
// first one found (its status, params, summary rows, findings, conditions and counters); its rows
// take in the rows of the same result in later runs that are ok, matched by their params (in any
// order). A row found in some runs only is pooled from those that have it; a row, metric or
// result found in a later run only is added as it is. Each metric's samples are concatenated
// with every run's rounds kept as rounds of their own (run-major: run 1's rounds, then run 2's),
// and its statistics recomputed with statistics_of over every pooled value. A metric that has no
// samples in some run that has it (a schema 1 or 2 file) keeps the first run's statistics and
// no samples, so compare uses the band rule for it. One run comes back unchanged; none gives an
// empty report.
RunReport pool_runs(const std::vector<RunReport>& runs);

// How a side is named in compare's output: the file name when there is one, else
// "<label> (<n> runs)", e.g. "A (3 runs)".
std::string side_name(const std::string& label, const std::vector<std::string>& files);

}  // namespace gpuprobe
