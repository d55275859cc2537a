// The unit tests' golden files: compares rendered text with tests/golden/<name>, or rewrites that
// file when GPUPROBE_UPDATE_GOLDEN=1 (and then fails, so an update can never pass silently).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace gpuprobe::testing {

inline std::string read_golden_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline bool updating_golden() {
  const char* env = std::getenv("GPUPROBE_UPDATE_GOLDEN");
  return env != nullptr && std::string(env) == "1";
}

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GPUPROBE_GOLDEN_DIR) + "/" + name;
  if (updating_golden()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    ASSERT_TRUE(out.good()) << "could not write " << path;
    ADD_FAILURE() << "updated golden file " << path
                  << " (GPUPROBE_UPDATE_GOLDEN=1); review it, then run without the variable";
    return;
  }
  const std::string expected = read_golden_file(path);
  ASSERT_FALSE(expected.empty())
      << "golden file " << path << " is missing or empty; regenerate with GPUPROBE_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, expected) << "output differs from " << path
                              << "; if the change is intended, rerun with GPUPROBE_UPDATE_GOLDEN=1";
}

}  // namespace gpuprobe::testing
