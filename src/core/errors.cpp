// Names of the process exit codes, as printed in documentation and messages.
#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {

const char* exit_code_name(ExitCode code) noexcept {
  switch (code) {
    case ExitCode::kOk:
      return "ok";
    case ExitCode::kRunFailure:
      return "run-failure";
    case ExitCode::kUsage:
      return "usage";
    case ExitCode::kNoDevice:
      return "no-device";
    case ExitCode::kCheckFailed:
      return "check-failed";
    case ExitCode::kInterrupted:
      return "interrupted";
    case ExitCode::kTerminated:
      return "terminated";
  }
  return "unknown";
}

}  // namespace gpuprobe
