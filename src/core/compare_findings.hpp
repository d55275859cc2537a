// Builders of compare's findings (private to core); each finding is declared once, with its
// sentence, in compare_findings.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/compare.hpp"

namespace gpuprobe::compare_findings {

// Verdicts.
Finding counts(const CompareOutcome& outcome);
Finding regression_threshold(double threshold_pct, std::size_t regressions);
Finding change(const NotableChange& change);  // compare_slowdown or compare_improvement
// compare_inconclusive: one comparison whose interval is not clear of the margin (relative).
Finding inconclusive(const NotableChange& change, double margin);

// Notes about the inputs.
Finding file(char side, const std::string& name, const RunReport& report);
Finding schema1_input(char side, const std::string& name);
// compare_band_fallback: `comparisons` row metrics of one side compared by the band because that
// side's metric had no samples. `name`: a file without samples (with its schema version), or the
// side (schema nullopt) when each of its files has samples somewhere.
Finding band_fallback(char side, const std::string& name, std::optional<int> schema_version,
                      std::size_t comparisons);
Finding different_products(const DevicePair& pair, const std::string& a_name,
                           const std::string& b_name);
Finding same_gpu(const DevicePair& pair, const std::string& name, const std::string& uuid);
Finding same_product(const DevicePair& pair, const std::string& name);
// Differences as (what, A's text, B's text); empty: compare_environment_same.
struct Difference {
  std::string what;
  Scalar a;  // null: absent on that side
  Scalar b;
};
Finding environment(const std::vector<Difference>& differences);

// Notes about results and items that are not compared.
Finding not_measured(const ProbeResult& result, char side);
Finding outside_devices(std::size_t a_results, std::size_t b_results);
// Regressions the family-wise hold cleared (compare_classify's hold_regressions_to_family).
Finding regressions_not_held(std::size_t not_held, std::size_t family, double threshold_pct);
Finding result_only_in(const ProbeResult& result, char side, const DevicePair& pair);
Finding not_ok(const ProbeResult& a, const ProbeResult& b, const DevicePair& pair);
// Findings matched in both files (same probe, id and params) whose outcome differs: the decision
// changed, e.g. "coalescing_counter_dram: agreement agree -> differ". `items` are those lines.
Finding outcome_changed(const std::string& probe, const DevicePair& pair,
                        const std::vector<std::string>& items);
Finding only_in(char side, const std::string& probe, const DevicePair& pair, ComparedPart part,
                const std::vector<std::string>& items);
Finding work_differs(const std::string& probe, const DevicePair& pair, std::size_t rows,
                     std::size_t matched_rows, double ratio_min, double ratio_max);
Finding run_params_differ(const std::string& probe, const std::vector<Difference>& differences);
Finding one_side(const std::string& probe, ComparedPart part, const std::string& quantity,
                 char side, std::size_t items);
Finding unit_differs(const std::string& probe, ComparedPart part, const std::string& quantity,
                     const std::string& a_unit, const std::string& b_unit, std::size_t items);

}  // namespace gpuprobe::compare_findings
