// The test kit's fixture loader: a probe's result from a committed run file under tests/fixtures,
// read once per test binary. A missing file or probe fails the test (it never skips).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::testing {

// The result of `probe` in tests/fixtures/<file> (e.g. "schema1/h100-all.json"), as that run
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

}  // namespace gpuprobe::testing
