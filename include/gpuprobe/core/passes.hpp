// The pass loop: re-runs one operation N times, each time reset, run and verified. Host-only, so
// its order of steps is tested in CI; the runtime supplies the CUDA steps, and a driver (the
// counter collector) may wrap each pass (begin/end of a replay pass).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpuprobe {

// The steps of one pass, in the order they run: reset (untimed state: poison outputs, restore
// inputs), cache (put the caches in the operation's state), run (one repetition, waited for),
// verify ("" when the result is right, else what is wrong).
struct PassSteps {
  std::function<void()> reset;
  std::function<void()> cache;
  std::function<void()> run;
  std::function<std::string()> verify;
};

// Wraps one pass: a driver calls `pass` exactly once between its own begin and end.
using PassWrapper = std::function<void(std::size_t index, const std::function<void()>& pass)>;

// Runs `passes` passes and returns what verify said after each (empty strings when all were
// right). Missing steps are skipped. Throws std::logic_error when a wrapper does not call its
// pass exactly once.
std::vector<std::string> run_passes(std::size_t passes, const PassSteps& steps,
                                    const PassWrapper& wrap = {});

}  // namespace gpuprobe
