// The SIGINT/SIGTERM handlers: a flag for the run to poll, and _exit on the second signal.
#include "gpuprobe/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

#include <fmt/format.h>

namespace gpuprobe {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free flag");

extern "C" void on_signal(int signal) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, signal)) {
    // The second signal: the user means it. Only async-signal-safe calls here.
    constexpr char kLine[] = "\ngpuprobe: interrupted again: exiting now\n";
    (void)!::write(STDERR_FILENO, kLine, sizeof kLine - 1);
    ::_exit(128 + signal);
  }
}

const char* signal_name(int signal) {
  return signal == SIGTERM ? "SIGTERM" : "SIGINT";
}

}  // namespace

InterruptedError::InterruptedError(int signal)
    : Error(signal == SIGTERM ? ExitCode::kTerminated : ExitCode::kInterrupted,
            fmt::format("stopped by {}: nothing written", signal_name(signal))),
      signal_(signal) {}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read returns EINTR and sees the flag
  for (const int signal : {SIGINT, SIGTERM}) {
    // A signal ignored when gpuprobe started (a background job of a shell without job
    // control, nohup-like wrappers) stays ignored.
    struct sigaction before {};
    if (::sigaction(signal, nullptr, &before) == 0 && before.sa_handler == SIG_IGN) continue;
    ::sigaction(signal, &action, nullptr);
  }
}

int interrupt_signal() noexcept {
  return g_signal.load();
}

void throw_if_interrupted() {
  if (const int signal = g_signal.load(); signal != 0) throw InterruptedError(signal);
}

}  // namespace gpuprobe
