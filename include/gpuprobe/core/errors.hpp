// Errors and process exit codes: the one place that maps a failure to what the user sees.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpuprobe {

// Documented exit codes (README "Exit codes"); keep in step with DESIGN.md.
enum class ExitCode : int {
  kOk = 0,             // success
  kRunFailure = 1,     // a probe failed at run time (CUDA error, out of memory, wrong result)
  kUsage = 2,          // unknown option, bad value, unreadable or malformed input file
  kNoDevice = 3,       // no usable GPU, or the probe is unsupported on this GPU
  kCheckFailed = 4,    // compare --fail-on-regression: a regression beyond the threshold
  kInterrupted = 130,  // stopped by SIGINT (128 + 2, as a shell reports it)
  kTerminated = 143,   // stopped by SIGTERM (128 + 15)
};

// An error that carries the exit code it should end the process with.
// what() is one line, written for the user: what was wrong and what to do.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Thrown for bad user input (flags, values, files): exit code 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ExitCode::kUsage, message) {}
};

// Thrown when no GPU is usable or a feature is unsupported on it: exit code 3.
class NoDeviceError : public Error {
 public:
  explicit NoDeviceError(const std::string& message) : Error(ExitCode::kNoDevice, message) {}
};

// Thrown by a probe that cannot run on this GPU (missing feature): the runner records the
// probe as skipped with this reason; exit code 3 when the probe was asked for explicitly.
class UnsupportedError : public NoDeviceError {
 public:
  explicit UnsupportedError(const std::string& message) : NoDeviceError(message) {}
};

// Thrown for failures while running on the GPU: exit code 1.
class RunError : public Error {
 public:
  explicit RunError(const std::string& message) : Error(ExitCode::kRunFailure, message) {}
};

// A device or host allocation that could not be satisfied: exit code 1. The runner adds the probe's
// flags that shrink the sweep (Probe::memory_flags) to the message.
class OutOfMemoryError : public RunError {
 public:
  explicit OutOfMemoryError(const std::string& message) : RunError(message) {}
};

// Name of an exit code, as printed in docs and messages ("usage", "no-device", ...).
const char* exit_code_name(ExitCode code) noexcept;

// An error line of at most about `max_bytes`: a message that echoes a long input (a 5,000-character
// --expect, a size list) keeps its start, cut at a character boundary, and says how much more
// there was.
inline constexpr std::size_t kMessageMaxBytes = 600;
std::string bounded_message(const std::string& text, std::size_t max_bytes = kMessageMaxBytes);

}  // namespace gpuprobe
