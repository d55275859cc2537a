// Unit tests for the no-GPU message: gpuprobe's words, what was looked for, what to check.
#include "gpuprobe/core/no_device.hpp"

#include <string>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(NoDevice, NoDriverSaysWhatWasLookedForAndNamesNvidiaSmi) {
  const std::string m = no_device_message(NoDeviceCause::kNoDriver, 0, 13000, std::nullopt);
  EXPECT_TRUE(has(m, "no usable NVIDIA GPU")) << m;
  EXPECT_TRUE(has(m, "libcuda.so.1")) << m;
  EXPECT_TRUE(has(m, "`nvidia-smi`")) << m;
  EXPECT_FALSE(has(m, "insufficient")) << m;  // not CUDA's "driver version is insufficient"
  EXPECT_FALSE(has(m, "\n"));
}

TEST(NoDevice, OldDriverNoDeviceAndOthersSayWhatToCheck) {
  const std::string old = no_device_message(NoDeviceCause::kOldDriver, 12020, 13000, std::nullopt);
  EXPECT_TRUE(has(old, "supports CUDA 12.2 and this gpuprobe was built with CUDA 13.0")) << old;
  const std::string none = no_device_message(NoDeviceCause::kNoDevice, 13000, 13000, "7");
  EXPECT_TRUE(has(none, "reports no GPU (CUDA_VISIBLE_DEVICES='7'")) << none;
  const std::string other =
      no_device_message(NoDeviceCause::kOther, 13000, 13000, std::nullopt, "cudaErrorUnknown");
  EXPECT_TRUE(has(other, "cudaErrorUnknown") && has(other, "nvidia-smi")) << other;
}

}  // namespace
}  // namespace gpuprobe
