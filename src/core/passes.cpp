// The pass loop: reset, cache state, run, verify, once per pass, optionally wrapped by a driver.
#include "gpuprobe/core/passes.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuprobe {

std::vector<std::string> run_passes(std::size_t passes, const PassSteps& steps,
                                    const PassWrapper& wrap) {
  std::vector<std::string> problems;
  problems.reserve(passes);
  for (std::size_t i = 0; i < passes; ++i) {
    std::size_t calls = 0;
    std::string problem;
    const std::function<void()> pass = [&] {
      ++calls;
      if (steps.reset) steps.reset();
      if (steps.cache) steps.cache();
      if (steps.run) steps.run();
    };
    if (wrap) {
      wrap(i, pass);
    } else {
      pass();
    }
    if (calls != 1)
      throw std::logic_error(fmt::format("pass {}: the wrapper ran the pass {} times", i, calls));
    if (steps.verify) problem = steps.verify();
    problems.push_back(std::move(problem));
  }
  return problems;
}

}  // namespace gpuprobe
