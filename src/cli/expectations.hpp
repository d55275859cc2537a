// The run's expectations from the command line: --expect, --expect-file FILE, and
// --expect-file auto (each GPU's reference file, shipped in expectations/).
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "options.hpp"

namespace gpuprobe::cli {

// Where the reference expectation files are: $GPUPROBE_EXPECTATIONS_DIR, else the installed copy
// (<prefix>/share/gpuprobe/expectations next to <prefix>/bin/gpuprobe), else the source tree's
// expectations/ (baked in at build time).
std::string expectations_dir();

// --expect and --expect-file FILE, parsed (UsageError on a bad one); "auto" is left out.
std::vector<Expectation> named_expectations(const GlobalOptions& options);
// Whether --expect-file auto was given.
bool wants_reference_expectations(const GlobalOptions& options);
// Each device's reference expectations; says on stderr (unless quiet) which file each GPU uses.
std::vector<Expectation> reference_expectations_for(const std::vector<DeviceInfo>& devices,
                                                    bool quiet);

// The probes' plan (no GPU): the rows an expectation may select.
RunReport plan_of(const std::vector<runner::ProbeRun>& probes, const Glossary& glossary);

}  // namespace gpuprobe::cli
