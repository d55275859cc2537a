// The steps of one pass of an operation, as the counter pass drives them (src/runner/
// counter_pass.cpp): the runtime supplies them (Measurer::pass_steps), the driver puts its own
// calls between them.
#pragma once

#include <functional>
#include <string>

namespace gpuprobe {

// The steps of one pass, in the order they run: reset (untimed state: poison outputs, restore
// inputs), cache (put the caches in the operation's state), run (one repetition, waited for),
// verify ("" when the result is right, else what is wrong).
struct PassSteps {
  std::function<void()> reset;
  std::function<void()> cache;
  std::function<void()> run;
  std::function<std::string()> verify;
  // Optional: flushes the L2 (a read sweep), so that what `run` left dirty is written back; the
  // counter pass counts it in a range of its own (Operation::count_write_back).
  std::function<void()> write_back;
};

}  // namespace gpuprobe
