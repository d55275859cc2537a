// Unit tests for the pass loop with a fake operation: order of steps, reset before every pass,
// verify after every pass, wrappers seeing each pass once.
#include "gpuprobe/core/passes.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpuprobe {
namespace {

// A fake operation: "output" is poisoned by reset and written by run; verify checks it.
struct FakeOperation {
  std::vector<std::string> log;
  int output = 0;
  int writes = 42;  // what run writes
  PassSteps steps() {
    return {[this] {
              log.push_back("reset");
              output = -1;
            },
            [this] { log.push_back("cache"); },
            [this] {
              log.push_back("run");
              output = writes;
            },
            [this]() -> std::string {
              log.push_back("verify");
              return output == 42 ? "" : "output " + std::to_string(output);
            }};
  }
};

TEST(Passes, EachPassResetsRunsAndVerifiesInOrder) {
  FakeOperation op;
  const auto problems = run_passes(3, op.steps());
  EXPECT_EQ(problems, (std::vector<std::string>{"", "", ""}));
  const std::vector<std::string> one{"reset", "cache", "run", "verify"};
  std::vector<std::string> expected;
  for (int i = 0; i < 3; ++i)
    expected.insert(expected.end(), one.begin(), one.end());
  EXPECT_EQ(op.log, expected);
}

TEST(Passes, WrongResultsAreReportedPerPassNotHidden) {
  FakeOperation op;
  op.writes = 7;
  EXPECT_EQ(run_passes(2, op.steps()), (std::vector<std::string>{"output 7", "output 7"}));
}

TEST(Passes, ResetMakesEveryPassStandOnItsOwn) {
  // A run that writes only on the first pass: without the reset the stale output would pass.
  FakeOperation op;
  PassSteps steps = op.steps();
  int runs = 0;
  steps.run = [&] {
    if (runs++ == 0) op.output = 42;
  };
  EXPECT_EQ(run_passes(2, steps), (std::vector<std::string>{"", "output -1"}));
}

TEST(Passes, AWrapperSeesEveryPassOnceInOrder) {
  FakeOperation op;
  std::vector<std::string> events;
  const auto problems = run_passes(2, op.steps(), [&](std::size_t i, const auto& pass) {
    events.push_back("begin " + std::to_string(i));
    pass();
    events.push_back("end " + std::to_string(i));
  });
  EXPECT_EQ(problems.size(), 2u);
  EXPECT_EQ(events, (std::vector<std::string>{"begin 0", "end 0", "begin 1", "end 1"}));
  // verify runs after the wrapper has ended the pass (the collector's end of pass).
  EXPECT_EQ(op.log.back(), "verify");
}

TEST(Passes, AWrapperThatSkipsOrRepeatsThePassIsAnError) {
  FakeOperation op;
  EXPECT_THROW(run_passes(1, op.steps(), [](std::size_t, const auto&) {}), std::logic_error);
  EXPECT_THROW(run_passes(1, op.steps(),
                          [](std::size_t, const auto& pass) {
                            pass();
                            pass();
                          }),
               std::logic_error);
}

TEST(Passes, ZeroPassesRunNothing) {
  FakeOperation op;
  EXPECT_TRUE(run_passes(0, op.steps()).empty());
  EXPECT_TRUE(op.log.empty());
}

}  // namespace
}  // namespace gpuprobe
