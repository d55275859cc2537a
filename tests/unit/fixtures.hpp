// The test kit's fixture loader: a probe's result from a committed run file under tests/fixtures,
// read once per test binary. A missing file or probe fails the test (it never skips).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe::testing {

// The result of `probe` in tests/fixtures/<file> (e.g. "schema1/h100-all.json.gz"), as that run
// wrote it. Throws std::runtime_error when the file has no such result (UsageError when the file
// cannot be read), so a test that depends on it fails.
inline const ProbeResult& fixture_result(const std::string& file, const std::string& probe) {
  static std::map<std::pair<std::string, std::string>, ProbeResult> cache;
  const auto key = std::make_pair(file, probe);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string path = std::string(GPUPROBE_FIXTURES_DIR) + "/" + file;
  const RunReport report = report_from_json(read_json_file(path), path);
  for (const auto& r : report.results) {
    if (r.probe == probe) return cache.emplace(key, r).first->second;
  }
  throw std::runtime_error("no " + probe + " result in " + path);
}

// A bandwidth metric of 5 rounds x 10 samples: `center` x (1 + spread x a fixed zig-zag in
// [-1, 1]), its statistics from those samples (for tests of decisions made with the noise).
inline Metric zigzag_bandwidth(double center, double spread) {
  Metric m{"bandwidth", "GB/s", {}, {}};
  std::vector<double> all;
  for (std::size_t r = 0; r < 5; ++r) {
    m.samples.emplace_back();
    for (std::size_t i = 0; i < 10; ++i) {
      const double z = static_cast<double>((r * 10 + i) * 7 % 11) / 5.0 - 1.0;
      m.samples.back().push_back(center * (1.0 + spread * z));
      all.push_back(m.samples.back().back());
    }
  }
  m.stats = statistics_of(all);
  return m;
}

}  // namespace gpuprobe::testing
