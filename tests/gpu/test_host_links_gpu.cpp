// GPU tests of the host-links probe: on the harness's GPU alone, solo rows only with the note and
// every copy verified; on every visible GPU at once (two or more; skipped, visibly, below two),
// solo and concurrent rows per GPU, the aggregate, and properties that concurrency must show.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <CLI/CLI.hpp>

#include <algorithm>

#include "cli/axis_options.hpp"
#include "gpu_test_support.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

bool has_finding(const ProbeResult& r, const std::string& id) {
  return find_finding(r, id) != nullptr;
}

TEST(HostLinksGpu, HarnessGpuAloneIsSoloOnlyAndVerified) {
  GP_REQUIRE_GPU();
  auto probe = make_host_links_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--sizes", "64MiB"}, 3, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 3u);  // h2d, d2h, bidir; solo each
  for (const Row& row : r.rows) {
    EXPECT_EQ(text_param_of(row, "mode"), "solo");
    EXPECT_EQ(int_param_of(row, "gpu"), 0);
    EXPECT_GT(testing::median_of(row, "bandwidth"), 1.0);  // GB/s: any real host link
  }
  const Row* bidir = testing::find_row(r, {{"direction", "bidir"}});
  ASSERT_NE(bidir, nullptr);
  // Both directions at once move more than either alone: the lanes really overlap.
  const double both = testing::median_of(*bidir, "bandwidth");
  EXPECT_GT(both, testing::median_of(*bidir, "bandwidth_h2d"));
  EXPECT_GT(both, testing::median_of(*bidir, "bandwidth_d2h"));
  EXPECT_TRUE(has_finding(r, "host_links_one_gpu"));
  EXPECT_FALSE(has_finding(r, "host_links_concurrent_loss"));
}

// Runs the probe with the context spanning every visible GPU, as the runner does for a
// host-scoped probe over `--device all` (built here directly, so this test does not wait on it).
ProbeResult run_on_every_gpu(Probe& probe, const std::vector<std::string>& args) {
  CLI::App app{"test", probe.name()};
  const cli::AxisOptions axes(app, probe.axes());
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  const AxisValues values = resolve_axes(axes.axes(), axes.input(), false);
  runtime::use_device(0);
  const DeviceInfo device = runtime::query_device(0);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 5;
  runtime::ProbeContext ctx(device, options, {}, probe.name(), 0);
  std::vector<int> all(static_cast<std::size_t>(visible_gpus()));
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<int>(i);
  ctx.set_devices(all);
  ProbeResult r = probe.run(ctx, values);
  Glossary glossary = core_glossary();
  probe.add_words(glossary);
  phrase_findings(r, glossary);
  return r;
}

TEST(HostLinksGpu, EveryGpuAtOnce) {
  GP_REQUIRE_GPU();
  const int n = visible_gpus();
  if (n < 2) GTEST_SKIP() << n << " GPU visible: the concurrent run needs two or more";
  auto probe = make_host_links_probe();
  const ProbeResult r = run_on_every_gpu(*probe, {"--direction", "h2d", "--sizes", "256MiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;  // every copy verified, or run() threw
  ASSERT_EQ(r.rows.size(), 2u * static_cast<std::size_t>(n) + 1u);
  double highest_solo = 0;
  for (int g = 0; g < n; ++g) {
    const Row* solo = testing::find_row(r, {{"gpu", std::to_string(g)}, {"mode", "solo"}});
    const Row* conc = testing::find_row(r, {{"gpu", std::to_string(g)}, {"mode", "concurrent"}});
    ASSERT_NE(solo, nullptr) << g;
    ASSERT_NE(conc, nullptr) << g;
    highest_solo = std::max(highest_solo, testing::median_of(*solo, "bandwidth"));
    // Sharing the host cannot make a GPU's copy faster than alone (10% for noise).
    EXPECT_GE(testing::median_of(*conc, "time"), 0.9 * testing::median_of(*solo, "time")) << g;
    EXPECT_GT(testing::derived_of(*conc, "slowdown"), 0.0);
  }
  const Row* total = testing::find_row(r, {{"gpu", "all"}});
  ASSERT_NE(total, nullptr);
  // The GPUs copied at the same time: together they move more than the fastest one alone
  // (serialised copies would give about one GPU's bandwidth).
  EXPECT_GT(testing::median_of(*total, "bandwidth"), 1.2 * highest_solo);
  EXPECT_TRUE(has_finding(r, "host_links_concurrent_loss"));
  EXPECT_FALSE(has_finding(r, "host_links_one_gpu"));
}

}  // namespace
}  // namespace gpuprobe
