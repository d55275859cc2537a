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

void trace(std::string_view what) {
  if (!trace_on()) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count();
  fmt::print(stderr, "gpuprobe-trace {} {:.3f}: {}\n", static_cast<long>(getpid()), s, what);
  std::fflush(stderr);
}

}  // namespace gpuprobe
