// Unit tests for the error types and the names of the process exit codes.
#include "gpuprobe/core/errors.hpp"

#include <string>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

TEST(ExitCodeName, NamesEveryCode) {
  EXPECT_STREQ(exit_code_name(ExitCode::kOk), "ok");
  EXPECT_STREQ(exit_code_name(ExitCode::kRunFailure), "run-failure");
  EXPECT_STREQ(exit_code_name(ExitCode::kUsage), "usage");
  EXPECT_STREQ(exit_code_name(ExitCode::kNoDevice), "no-device");
  EXPECT_STREQ(exit_code_name(ExitCode::kCheckFailed), "check-failed");
}

TEST(ExitCodeName, UnknownValue) {
  EXPECT_STREQ(exit_code_name(static_cast<ExitCode>(42)), "unknown");
}

TEST(ExitCode, DocumentedValues) {
  EXPECT_EQ(static_cast<int>(ExitCode::kOk), 0);
  EXPECT_EQ(static_cast<int>(ExitCode::kRunFailure), 1);
  EXPECT_EQ(static_cast<int>(ExitCode::kUsage), 2);
  EXPECT_EQ(static_cast<int>(ExitCode::kNoDevice), 3);
  EXPECT_EQ(static_cast<int>(ExitCode::kCheckFailed), 4);
}

TEST(Errors, CarryTheirExitCodeAndMessage) {
  const UsageError usage("bad flag");
  EXPECT_EQ(usage.code(), ExitCode::kUsage);
  EXPECT_STREQ(usage.what(), "bad flag");
  EXPECT_EQ(NoDeviceError("no gpu").code(), ExitCode::kNoDevice);
  EXPECT_EQ(RunError("oom").code(), ExitCode::kRunFailure);
  EXPECT_EQ(UnsupportedError("no TMA").code(), ExitCode::kNoDevice);
  EXPECT_EQ(Error(ExitCode::kCheckFailed, "regressed").code(), ExitCode::kCheckFailed);
}

TEST(Errors, CatchableAsError) {
  try {
    throw UsageError("invalid size 'x'");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()), "invalid size 'x'");
    return;
  }
  FAIL() << "UsageError was not caught as Error";
}

TEST(Errors, UnsupportedIsANoDeviceError) {
  try {
    throw UnsupportedError("needs compute capability 9.0");
  } catch (const NoDeviceError& e) {
    EXPECT_EQ(e.code(), ExitCode::kNoDevice);
    EXPECT_STREQ(e.what(), "needs compute capability 9.0");
    return;
  }
  FAIL() << "UnsupportedError was not caught as NoDeviceError";
}

}  // namespace
}  // namespace gpuprobe

namespace gpuprobe {
namespace {

TEST(BoundedMessage, ShortLinesStayLongOnesAreCutAtACharacter) {
  EXPECT_EQ(bounded_message("a short line"), "a short line");
  const std::string long_line(5000, 'x');
  const std::string cut = bounded_message("bad size '" + long_line + "'");
  EXPECT_LE(cut.size(), kMessageMaxBytes + 40);
  EXPECT_EQ(cut.rfind("bad size 'xxx", 0), 0u);
  EXPECT_NE(cut.find("… (4411 more bytes)"), std::string::npos) << cut;
  // A cut that would fall inside "÷" (two bytes) moves before it.
  const std::string text = std::string(9, 'a') + "÷" + std::string(10, 'b');
  EXPECT_EQ(bounded_message(text, 10), std::string(9, 'a') + "… (12 more bytes)");
}

}  // namespace
}  // namespace gpuprobe
