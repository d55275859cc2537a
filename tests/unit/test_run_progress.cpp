// The progress line of a whole run: probe k of n, the point, time spent and left, the width kept.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cli/run_progress.hpp"

namespace gpuprobe::cli {
namespace {

using std::chrono::seconds;

std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

TEST(RunProgress, ClockText) {
  EXPECT_EQ(clock_text(0), "0:00");
  EXPECT_EQ(clock_text(7.4), "0:07");
  EXPECT_EQ(clock_text(62), "1:02");
  EXPECT_EQ(clock_text(3723), "1:02:03");
  EXPECT_EQ(clock_text(-5), "0:00");
}

TEST(RunProgress, CountsProbesAndEstimatesWhatIsLeft) {
  const auto t0 = RunProgress::Clock::now();
  RunProgress run(4, t0);
  // First probe, half done after 10 s: 1/8 of the run, so 70 s left.
  EXPECT_EQ(run.line("transfer", 50, 100, "pinned d2h 4 KiB", t0 + seconds(10), 200),
            "[probe 1/4 transfer] 51/100 pinned d2h 4 KiB · 0:10 · ~1:10 left");
  run.run_done();
  run.run_done();
  // Third probe just started after 40 s: half the run, 40 s left.
  EXPECT_EQ(run.line("overlap", 0, 10, "x", t0 + seconds(40), 200),
            "[probe 3/4 overlap] 1/10 x · 0:40 · ~0:40 left");
}

TEST(RunProgress, OneProbeNamesNoCountAndNoEstimateAtFirst) {
  const auto t0 = RunProgress::Clock::now();
  const RunProgress run(1, t0);
  EXPECT_EQ(run.line("peer", 0, 50, "ce 0->1", t0, 200), "[peer] 1/50 ce 0->1 · 0:00");
}

TEST(RunProgress, TheLabelGivesWayToTheWidth) {
  const auto t0 = RunProgress::Clock::now();
  const RunProgress run(2, t0);
  const std::string label(300, 'x');
  const std::string line = run.line("coalescing", 4, 9, label, t0 + seconds(3), 80);
  EXPECT_EQ(columns(line), 80u) << line;
  EXPECT_NE(line.find("..."), std::string::npos);
  EXPECT_NE(line.find("· 0:03"), std::string::npos);
  // Too narrow for any label: the counts and times still show.
  const std::string narrow = run.line("coalescing", 4, 9, label, t0 + seconds(3), 10);
  EXPECT_EQ(narrow.find('x'), std::string::npos);
  EXPECT_NE(narrow.find("5/9"), std::string::npos);
}

TEST(RunProgress, NeverCountsPastTheLastProbe) {
  const auto t0 = RunProgress::Clock::now();
  RunProgress run(2, t0);
  for (int i = 0; i < 5; ++i)
    run.run_done();
  EXPECT_EQ(run.line("zerocopy", 0, 1, "", t0 + seconds(5), 200).rfind("[probe 2/2 zerocopy]", 0),
            0u);
}

}  // namespace
}  // namespace gpuprobe::cli
