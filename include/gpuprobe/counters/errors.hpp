// Counter failures: the one exception type a caller catches to report "counters: null" + reason.
#pragma once

#include <string>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::counters {

// Hardware counters cannot be collected here (permissions, another profiler attached, a
// virtualised or unsupported GPU, nvperf missing, a CUPTI call that failed). Timing results
// stand; the caller records `counters: null` with reason() and may print hint().
// what() is one line: "counters unavailable: <reason> (<hint>)".
class CountersUnavailable : public Error {
 public:
  // code: the CUPTI result name ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") or a gpuprobe one.
  CountersUnavailable(std::string code, std::string reason, std::string hint);

  const std::string& code() const noexcept { return code_; }
  const std::string& reason() const noexcept { return reason_; }
  const std::string& hint() const noexcept { return hint_; }

 private:
  std::string code_;
  std::string reason_;
  std::string hint_;
};

}  // namespace gpuprobe::counters
