// GPU tests of the local probe: every thread's output checked (the run is ok), the register
// caps compile to what the rows say (a cap spills, the compiler's choice does not, a cap never
// loses resident blocks), the counters see local traffic only where the compiled function has a
// stack frame, and the findings are there for both kernels.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

const Row* at(const ProbeResult& r, const std::string& kernel, const std::string& cap) {
  return testing::find_row(r, {{"kernel", kernel}, {"carveout", "0"}, {"max_registers", cap}});
}

TEST(LocalGpu, CapsSpillWhatTheCompiledFunctionsSay) {
  GP_REQUIRE_GPU();
  auto probe = make_local_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--max-registers", "0,32", "--carveout", "0", "--steps", "64", "--chase", "256"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  for (const char* kernel : {"compute", "memory"}) {
    SCOPED_TRACE(kernel);
    const Row* free = at(r, kernel, "0");
    const Row* capped = at(r, kernel, "32");
    ASSERT_NE(free, nullptr);
    ASSERT_NE(capped, nullptr);
    EXPECT_LE(testing::derived_of(*capped, "registers"), 32.0);
    EXPECT_GT(testing::derived_of(*free, "registers"), 32.0);
    EXPECT_EQ(testing::derived_of(*free, "local_bytes"), 0.0);
    EXPECT_GT(testing::derived_of(*capped, "local_bytes"), 0.0);
    EXPECT_GE(testing::derived_of(*capped, "blocks_per_sm"),
              testing::derived_of(*free, "blocks_per_sm"));
    EXPECT_GT(testing::median_of(*capped, "step_time"), 0.0);
    if (testing::counters_collected(r)) {
      ASSERT_TRUE(free->counters);
      ASSERT_TRUE(capped->counters);
      const auto free_ld = counter_value(*free, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
      const auto capped_ld =
          counter_value(*capped, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
      ASSERT_TRUE(free_ld.has_value());
      ASSERT_TRUE(capped_ld.has_value());
      EXPECT_EQ(*free_ld, 0.0);
      EXPECT_GT(*capped_ld, 0.0);
    }
  }
  int tradeoffs = 0;
  for (const auto& f : r.findings)
    tradeoffs += f.id == "local_occupancy_tradeoff";
  EXPECT_EQ(tradeoffs, 2);
}

}  // namespace
}  // namespace gpuprobe
