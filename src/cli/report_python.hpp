// Finding and running the report's drawing script (Python 3 with matplotlib, an optional
// dependency): which interpreter, where the script is, what to install when it is missing.
#pragma once

#include <string>
#include <vector>

namespace gpuprobe::cli {

// The folder of the gpuprobe_report package: $GPUPROBE_REPORT_DIR, else the installed copy
// (<prefix>/share/gpuprobe/python next to <prefix>/bin/gpuprobe), else the source tree's.
std::string report_script_dir();

// The first interpreter that imports matplotlib: $GPUPROBE_PYTHON alone when set, else
// python3 on the PATH, then /usr/bin/python3 (Debian's, where apt installs matplotlib).
// Throws Error (exit 3) naming what was tried and exactly what to install.
std::string find_report_python();

// Runs program with args (no shell), stdout and stderr inherited; returns its exit status,
// 127 when it could not be started. SIGINT/SIGTERM while it runs end it (SIGTERM) and throw
// InterruptedError once it has ended.
int run_program(const std::string& program, const std::vector<std::string>& args,
                bool silent = false);

// The script's exit status when matplotlib is missing (python/gpuprobe_report/__main__.py).
inline constexpr int kNoMatplotlibStatus = 20;
// The script's exit status for an error it wrote as one line into its --error-file: 2 a usage
// error (exit 2), 1 anything else (exit 1).
inline constexpr int kScriptUsageStatus = 2;

}  // namespace gpuprobe::cli
