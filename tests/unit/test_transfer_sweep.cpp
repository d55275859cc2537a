// transfer's sweep split: which copies take their rounds in processes of their own, in sweep
// order, with each part's largest size.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "transfer/sweep.hpp"

namespace gpuprobe::transfer {
namespace {

using Indices = std::vector<std::size_t>;

TEST(TransferSweep, CopiesUpToOneMiBTakeRoundProcessesInSweepOrder) {
  const std::vector<std::uint64_t> bytes = {4096, 1 << 20, 64 << 20, 16384, (1 << 20) + 4, 4096};
  const SweepParts parts = split_by_process_level(bytes);
  EXPECT_EQ(parts.round_processes, (Indices{0, 1, 3, 5}));  // 1 MiB itself included
  EXPECT_EQ(parts.round_processes_max, std::uint64_t{1} << 20);
  EXPECT_EQ(parts.one_process, (Indices{2, 4}));
  EXPECT_EQ(parts.one_process_max, std::uint64_t{64} << 20);
}

TEST(TransferSweep, APartWithNoPointsIsEmptyWithSizeZero) {
  const std::vector<std::uint64_t> small = {4096, 65536};
  const SweepParts only_small = split_by_process_level(small);
  EXPECT_EQ(only_small.round_processes, (Indices{0, 1}));
  EXPECT_TRUE(only_small.one_process.empty());
  EXPECT_EQ(only_small.one_process_max, 0u);
  const std::vector<std::uint64_t> large = {256u << 20};
  const SweepParts only_large = split_by_process_level(large);
  EXPECT_TRUE(only_large.round_processes.empty());
  EXPECT_EQ(only_large.round_processes_max, 0u);
  EXPECT_EQ(only_large.one_process, (Indices{0}));
}

}  // namespace
}  // namespace gpuprobe::transfer
