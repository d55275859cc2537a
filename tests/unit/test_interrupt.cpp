// Unit tests for the SIGINT/SIGTERM handling: the first signal is recorded and turned into an
// InterruptedError (exit 130 or 143); a second one ends the process at once. Each runs in a
// child process (death tests), since the handlers and their flag are the process's.
#include "gpuprobe/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

// In the child: the exit code main() would return for the error thrown after `signal`.
[[noreturn]] void exit_after(int signal) {
  install_interrupt_handlers();
  if (interrupt_signal() != 0) std::_Exit(90);  // nothing recorded before a signal
  ::raise(signal);
  if (interrupt_signal() != signal) std::_Exit(91);
  try {
    throw_if_interrupted();
  } catch (const InterruptedError& e) {
    std::_Exit(static_cast<int>(e.code()));
  }
  std::_Exit(92);
}

TEST(InterruptDeathTest, FirstSigintIsRecordedAndStopsTheRunWithExit130) {
  EXPECT_EXIT(exit_after(SIGINT), ::testing::ExitedWithCode(130), "");
}

TEST(InterruptDeathTest, FirstSigtermStopsTheRunWithExit143) {
  EXPECT_EXIT(exit_after(SIGTERM), ::testing::ExitedWithCode(143), "");
}

TEST(InterruptDeathTest, SecondSigintExitsAtOnce) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        ::raise(SIGINT);  // recorded: the run would stop at its next sample
        ::raise(SIGINT);  // the user means it: _exit(130) inside the handler
        std::_Exit(93);   // not reached
      },
      ::testing::ExitedWithCode(130), "interrupted again");
}

TEST(Interrupt, NoSignalNoError) {
  EXPECT_EQ(interrupt_signal(), 0);
  EXPECT_NO_THROW(throw_if_interrupted());
  EXPECT_EQ(InterruptedError(SIGTERM).code(), ExitCode::kTerminated);
  EXPECT_STREQ(InterruptedError(SIGINT).what(), "stopped by SIGINT: nothing written");
}

}  // namespace
}  // namespace gpuprobe
