// The run's expectations from the command line: parsing, reference files, the plan check.
#include "expectations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "install_paths.hpp"

namespace gpuprobe::cli {

std::string expectations_dir() {
  if (const char* env = std::getenv("GPUPROBE_EXPECTATIONS_DIR"); env && *env) return env;
  if (const auto installed = installed_data("expectations")) return *installed;
  return GPUPROBE_EXPECTATIONS_DIR;
}

std::vector<Expectation> named_expectations(const GlobalOptions& options) {
  std::vector<Expectation> out;
  for (const auto& text : options.expect)
    out.push_back(parse_expectation(text, "--expect"));
  for (const auto& file : options.expect_files) {
    if (file == "auto") continue;
    auto more = read_expectation_file(file);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

bool wants_reference_expectations(const GlobalOptions& options) {
  return std::find(options.expect_files.begin(), options.expect_files.end(), "auto") !=
         options.expect_files.end();
}

std::vector<Expectation> reference_expectations_for(const std::vector<DeviceInfo>& devices,
                                                    bool quiet) {
  std::vector<Expectation> out;
  const std::string dir = expectations_dir();
  for (const auto& d : devices) {
    std::string file;
    auto more = reference_expectations(d, dir, file);
    if (!quiet)
      std::cerr << fmt::format("gpuprobe: GPU {} ({}): {} expectations from {}{}\n", d.index,
                               d.name, more.size(), file,
                               file.ends_with("/generic.txt")
                                   ? " (no reference file for this GPU: generic physical bounds)"
                                   : "");
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

RunReport plan_of(const std::vector<runner::ProbeRun>& probes, const Glossary& glossary) {
  RunReport plan;
  for (const auto& p : probes)
    plan.results.push_back(runner::plan_probe(*p.probe, p.values, glossary));
  return plan;
}

}  // namespace gpuprobe::cli
