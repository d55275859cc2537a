// GPU tests of the zerocopy probe: every mode verified, read-once zero-copy against the copy
// alone, the strided collapse, and the mapped registered buffer of the kit.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test_support.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

// Both modes, both memory kinds, both directions, two strides, two widths, two reuse counts, a
// small in-flight sweep: the probe fails (status failed) if any row's data is wrong.
TEST(ZeroCopyGpu, EveryModeVerified) {
  GP_REQUIRE_GPU();
  auto probe = make_zerocopy_probe();
  const ProbeResult r = testing::run_probe(*probe,
                                           {"--reuse", "1,3", "--strides", "1,32", "--widths",
                                            "4,16", "--bytes", "8MiB", "--blocks", "1,3"},
                                           3, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  // 2 directions x (2 memcpy + 2 memories x 2 widths x 2 strides x 2 reuse x 2 modes) + 2.
  EXPECT_EQ(r.rows.size(), 2u * (2u + 32u) + 2u);
  for (const auto& row : r.rows)
    EXPECT_GT(testing::median_of(row, "bandwidth"), 0.0);
}

// Coalesced read-once zero-copy of 16-byte elements moves the host data at a sane fraction of
// the explicit H2D copy's bandwidth (the acceptance asks 0.85x on the H100: half here, so a
// busy machine does not fail the test, while a kernel with too little in flight would).
TEST(ZeroCopyGpu, CoalescedReadOnceNearTheCopy) {
  GP_REQUIRE_GPU();
  auto probe = make_zerocopy_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--memory", "hostalloc", "--direction", "read", "--reuse", "1",
                                  "--strides", "1", "--widths", "16", "--blocks", "0"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* zc = testing::find_row(r, {{"mode", "zerocopy"}, {"element_bytes", "16"}});
  const Row* memcpy_row = testing::find_row(r, {{"mode", "memcpy"}});
  ASSERT_NE(zc, nullptr);
  ASSERT_NE(memcpy_row, nullptr);
  EXPECT_GT(testing::median_of(*zc, "bandwidth"),
            0.5 * testing::median_of(*memcpy_row, "bandwidth"));
}

// Stride 32 of 4-byte elements wastes most of every chunk the link moves: the payload bandwidth
// falls well below the coalesced one (the model says by 8x with 32-byte chunks, 16x with 64).
TEST(ZeroCopyGpu, StridedReadsCollapse) {
  GP_REQUIRE_GPU();
  auto probe = make_zerocopy_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--memory", "hostalloc", "--mode", "zerocopy", "--direction", "read", "--reuse", "1",
               "--strides", "1,32", "--widths", "4", "--blocks", "0"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* s1 = testing::find_row(r, {{"mode", "zerocopy"}, {"stride", "1"}});
  const Row* s32 = testing::find_row(r, {{"mode", "zerocopy"}, {"stride", "32"}});
  ASSERT_NE(s1, nullptr);
  ASSERT_NE(s32, nullptr);
  EXPECT_LT(testing::median_of(*s32, "bandwidth"), 0.25 * testing::median_of(*s1, "bandwidth"));
}

// The kit's registered-and-mapped host buffer has a device pointer, and the host sees what the
// GPU writes through it (cudaHostRegisterMapped over page-aligned malloc'ed memory).
TEST(ZeroCopyGpu, RegisteredMappedBufferHasDevicePointer) {
  GP_REQUIRE_GPU();
  runtime::HostBuffer buf(runtime::HostMemory::kRegisteredMapped, 12345);
  ASSERT_NE(buf.get(), nullptr);
  EXPECT_NE(buf.device_pointer(), nullptr);
  EXPECT_STREQ(runtime::host_memory_name(buf.kind()), "registered-mapped");
  std::memset(buf.get(), 7, buf.bytes());
  ASSERT_EQ(cudaMemset(buf.device_pointer(), 9, buf.bytes()), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(buf.as<unsigned char>()[0], 9);
  EXPECT_EQ(buf.as<unsigned char>()[12344], 9);
  runtime::HostBuffer plain(runtime::HostMemory::kRegistered, 4096);
  EXPECT_EQ(plain.device_pointer(), nullptr);
}

}  // namespace
}  // namespace gpuprobe
