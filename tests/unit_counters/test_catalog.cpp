// GH100 metric catalogue through the CUPTI host API (no GPU): lists, validation, groupings, passes.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/default_sets.hpp"
#include "gpuprobe/probe.hpp"

namespace gpuprobe::counters {
namespace {

const MetricCatalog& gh100() {
  static const auto* catalog = new MetricCatalog("GH100");  // leaked: no CUPTI in static dtors
  return *catalog;
}

std::string usage_message(const std::vector<std::string>& names) {
  try {
    gh100().validate(names);
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "(no error)";
}

TEST(CounterCatalog, KnowsGH100) {
  const auto chips = MetricCatalog::supported_chips();
  EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
}

TEST(CounterCatalog, ListsBaseAndFullNamesWithFilter) {
  const auto bases = gh100().base_metrics("dram__bytes_read");
  EXPECT_NE(std::find(bases.begin(), bases.end(), "dram__bytes_read"), bases.end());
  EXPECT_GT(gh100().base_metrics().size(), 3000u);
  const auto full = gh100().metrics("dram__bytes_read.sum");
  EXPECT_NE(std::find(full.begin(), full.end(), "dram__bytes_read.sum"), full.end());
  EXPECT_NE(std::find(full.begin(), full.end(), "dram__bytes_read.sum.per_second"), full.end());
  for (const auto& name : full)
    EXPECT_NE(name.find("dram__bytes_read.sum"), std::string::npos);
  const auto ratios = gh100().submetrics("lts__t_sector_hit_rate");
  EXPECT_NE(std::find(ratios.begin(), ratios.end(), ".pct"), ratios.end());
}

TEST(CounterCatalog, PropertiesGiveUnits) {
  EXPECT_EQ(gh100().properties("dram__bytes_read.sum").unit, "byte");
  EXPECT_EQ(gh100().properties("dram__bytes_read.sum").hw_unit, "dram");
  EXPECT_EQ(gh100().properties("lts__t_sector_hit_rate.pct").kind, MetricKind::kRatio);
  EXPECT_EQ(gh100().properties("sm__cycles_elapsed.avg.per_second").unit, "gpc_cycle/second");
}

TEST(CounterCatalog, UnknownNameIsUsageErrorWithSuggestions) {
  const std::string message = usage_message({"dram__bytes_read.sum", "dram__bytes_raed.sum"});
  EXPECT_NE(message.find("unknown metric 'dram__bytes_raed.sum' for GH100"), std::string::npos)
      << message;
  EXPECT_NE(message.find("did you mean dram__bytes_read.sum"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(CounterCatalog, WrongRollupSuggestsValidOnes) {
  const std::string message = usage_message({"dram__bytes_read.summ"});
  EXPECT_NE(message.find("dram__bytes_read.sum"), std::string::npos) << message;
}

TEST(CounterCatalog, BareBaseNameNeedsRollup) {
  const std::string message = usage_message({"dram__bytes_read"});
  EXPECT_NE(message.find("needs a rollup"), std::string::npos) << message;
  EXPECT_NE(message.find("dram__bytes_read.sum"), std::string::npos) << message;
}

TEST(CounterCatalog, NamesThatPublicCodeGetsWrongAreRejected) {
  for (const char* name : {"lts__t_sectors_op_read_hit.sum", "dram__throughput.avg.pct_of_peak",
                           "sass__inst_executed_shared_loads"}) {
    EXPECT_FALSE(gh100().is_valid(name)) << name;
    EXPECT_NE(usage_message({name}).find(name), std::string::npos);
  }
  EXPECT_NE(usage_message({"lts__t_sectors_op_read_hit.sum"})
                .find("lts__t_sectors_op_read_lookup_hit.sum"),
            std::string::npos)
      << usage_message({"lts__t_sectors_op_read_hit.sum"});
}

TEST(CounterCatalog, DuplicateIsUsageError) {
  EXPECT_NE(usage_message({"dram__bytes_read.sum", "dram__bytes_read.sum"}).find("listed twice"),
            std::string::npos);
}

TEST(CounterCatalog, DeviceScope) {
  EXPECT_TRUE(gh100().is_device_scope("pcie__read_bytes.sum"));
  EXPECT_TRUE(gh100().is_device_scope("nvlrx__bytes.sum"));
  EXPECT_FALSE(gh100().is_device_scope("dram__bytes_read.sum"));
  EXPECT_FALSE(gh100().is_device_scope("gpu__time_duration.sum"));
}

TEST(CounterCatalog, PcieGoesToItsOwnConfig) {
  const MetricGrouping grouping =
      gh100().group({"dram__bytes_read.sum", "pcie__read_bytes.sum",
                     "sm__cycles_elapsed.avg.per_second", "pcie__write_bytes.sum"});
  ASSERT_EQ(grouping.configs.size(), 2u);
  EXPECT_FALSE(grouping.configs[0].device_scope);
  EXPECT_EQ(
      grouping.configs[0].metrics,
      (std::vector<std::string>{"dram__bytes_read.sum", "sm__cycles_elapsed.avg.per_second"}));
  EXPECT_TRUE(grouping.configs[1].device_scope);
  EXPECT_EQ(grouping.configs[1].metrics,
            (std::vector<std::string>{"pcie__read_bytes.sum", "pcie__write_bytes.sum"}));
  for (const auto& config : grouping.configs) {
    EXPECT_FALSE(config.image.empty());
    EXPECT_EQ(config.passes, 1u);
  }
  EXPECT_EQ(grouping.total_passes(), 2u);
  EXPECT_EQ(grouping.metrics().size(), 4u);
}

// Pass counts the notes measured offline for GH100 (§2.2).
TEST(CounterCatalog, PassCountsForGH100) {
  const auto passes = [](const std::vector<std::string>& names) {
    const MetricGrouping grouping = gh100().group(names);
    EXPECT_EQ(grouping.configs.size(), 1u);
    return grouping.total_passes();
  };
  EXPECT_EQ(passes({"dram__bytes_read.sum", "dram__bytes_write.sum",
                    "lts__t_sectors_srcunit_tex_op_read.sum",
                    "lts__t_sectors_srcunit_tex_op_write.sum", "gpu__time_duration.sum"}),
            1u);
  EXPECT_EQ(passes({"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}),
            2u);
  EXPECT_EQ(passes({"lts__t_sector_hit_rate.pct"}), 2u);
  EXPECT_EQ(passes({"gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second",
                    "dram__cycles_elapsed.avg.per_second"}),
            1u);
}

TEST(CounterCatalog, EveryProbesSetIsValidOnGH100) {
  std::size_t with_sets = 0;
  for (const auto& probe : make_probes()) {
    const auto own = probe->counter_metrics();
    if (own.empty()) continue;
    ++with_sets;
    const auto names = defaults::with_companions(own);
    EXPECT_NO_THROW(gh100().validate(names)) << probe->name();
    const MetricGrouping grouping = gh100().group(names);
    EXPECT_EQ(grouping.metrics().size(), names.size()) << probe->name();
    std::cout << "[ info ] " << probe->name() << ": " << names.size() << " metrics, "
              << grouping.configs.size() << " config(s), " << grouping.total_passes()
              << " pass(es)\n";
    // What the notes measured: the shared-memory set is 1 pass; the PCIe set needs a
    // device-scope config of its own next to the companions'; the coalescing set at most 4.
    if (probe->name() == "bank-conflicts") {
      EXPECT_EQ(grouping.total_passes(), 1u);
    }
    if (probe->name() == "coalescing") {
      EXPECT_LE(grouping.total_passes(), 4u);
    }
    if (probe->name() == "transfer") {
      ASSERT_EQ(grouping.configs.size(), 2u);
      EXPECT_TRUE(grouping.configs[0].device_scope);
      EXPECT_FALSE(grouping.configs[1].device_scope);
    }
  }
  EXPECT_GE(with_sets, 3u);
}

TEST(CounterCatalog, CompanionsAreAppendedOnce) {
  const auto names = defaults::with_companions({"dram__bytes_read.sum", "gpu__time_duration.sum"});
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], "dram__bytes_read.sum");
  EXPECT_EQ(names[1], "gpu__time_duration.sum");
  EXPECT_EQ(names[2], "sm__cycles_elapsed.avg.per_second");
  EXPECT_EQ(names[3], "dram__cycles_elapsed.avg.per_second");
}

}  // namespace
}  // namespace gpuprobe::counters
