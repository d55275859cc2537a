// GPUPROBE_TRACE: one stderr line per traced step, stamped with the seconds since the process
// started (docs/method.md, "Where the time goes").
#include "gpuprobe/core/trace.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpuprobe {
namespace {

const auto kStart = std::chrono::steady_clock::now();

}  // namespace

bool trace_on() {
  static const bool on = [] {
    const char* v = std::getenv("GPUPROBE_TRACE");
    return v != nullptr && *v != '\0' && std::string_view(v) != "0";
  }();
  return on;
}

void trace(std::string_view what) noexcept {
  if (!trace_on()) return;
  // "1" (or any value without a '/'): stderr. A path: appended to that file, so the round
  // processes, whose stderr the parent keeps for their error line, trace beside their parent.
  static std::FILE* const out = [] {
    const std::string_view v = std::getenv("GPUPROBE_TRACE");
    if (v.find('/') == std::string_view::npos) return stderr;
    std::FILE* f = std::fopen(std::string(v).c_str(), "a");
    return f != nullptr ? f : stderr;
  }();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count();
  try {
    // fmt::print to a FILE* throws when the write fails (stderr closed or full): a developer's
    // trace line is not worth a run, so it is written with fwrite and dropped on failure.
    const std::string line =
        fmt::format("gpuprobe-trace {} {:.3f}: {}\n", static_cast<long>(getpid()), s, what);
    (void)std::fwrite(line.data(), 1, line.size(), out);
    (void)std::fflush(out);
  } catch (...) {  // out of memory formatting one line: drop it
  }
}

}  // namespace gpuprobe
