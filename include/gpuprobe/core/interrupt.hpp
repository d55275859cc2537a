// SIGINT and SIGTERM: the first asks the run to stop at the next sample (the GPU released, no
// output written, exit 130 or 143); a second one ends the process at once.
#pragma once

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {

// Thrown where a run notices the signal: exit 128 + the signal (130 for SIGINT, 143 for SIGTERM).
class InterruptedError : public Error {
 public:
  explicit InterruptedError(int signal);
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

// Installs the handlers for SIGINT and SIGTERM (without SA_RESTART, so that a blocking read
// returns EINTR), except for a signal already ignored at start. The first signal is recorded; a
// second one of either calls _exit(128 + it).
void install_interrupt_handlers();

// The signal received since the handlers were installed (0: none).
int interrupt_signal() noexcept;

// Throws InterruptedError when a signal was received: called between samples, before output.
void throw_if_interrupted();

}  // namespace gpuprobe
