// Names of the process exit codes, as printed in documentation and messages, and error lines
// bounded in length.
#include "gpuprobe/core/errors.hpp"

#include <fmt/format.h>

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

std::string bounded_message(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;  // not inside a UTF-8 sequence
  return fmt::format("{}… ({} more bytes)", text.substr(0, cut), text.size() - cut);
}

}  // namespace gpuprobe
