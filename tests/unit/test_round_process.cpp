// The round process launcher against stand-in children (shell scripts): the answer read back, a
// wrong result passed on, a failure named by the child's own line, the request handed over, the
// temporary folder removed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/round_process.hpp"

namespace gpuprobe {
namespace {

namespace fs = std::filesystem;

class RoundProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpuprobe-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A stand-in for `gpuprobe __round REQUEST ANSWER`: $2 is the request, $3 the answer.
  std::string child(const std::string& body) {
    const std::string path = (dir_ / "child.sh").string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0700);
    return path;
  }
  std::string answer_file(const std::string& json) {
    const std::string path = (dir_ / "answer.json").string();
    std::ofstream(path) << json;
    return path;
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The child's line that writes the prepared answer where the launcher reads it.
  static std::string fmt_copy(const std::string& answer) { return "cp " + answer + " \"$3\""; }
  static RoundRequest request() {
    RoundRequest q;
    q.probe = "transfer";
    q.keys = {"pinned d2h 4096"};
    q.round = 1;
    q.rounds = 5;
    return q;
  }

  fs::path dir_;
};

constexpr const char* kOneSet =
    R"({"sets":[{"seconds":[1e-6,2e-6],"rounds":[1,1],"lanes":[],"flags":[]}]})";

TEST_F(RoundProcessTest, ReadsTheAnswerAndHandsTheRequestOver) {
  const std::string answer = answer_file(kOneSet);
  const std::string exe = child(fmt_copy(answer) + "\ncp \"$2\" " + (dir_ / "seen.json").string() +
                                "\ndirname \"$2\" > " + (dir_ / "folder.txt").string());
  const RoundAnswer a = run_round_process(exe, request());
  ASSERT_EQ(a.sets.size(), 1u);
  EXPECT_EQ(a.sets[0].seconds, (std::vector<double>{1e-6, 2e-6}));
  EXPECT_TRUE(a.wrong_result.empty());
  EXPECT_NE(read(dir_ / "seen.json").find("\"pinned d2h 4096\""), std::string::npos);
  std::string folder = read(dir_ / "folder.txt");
  folder.erase(folder.find_last_not_of('\n') + 1);
  ASSERT_FALSE(folder.empty());
  EXPECT_FALSE(fs::exists(folder)) << folder;  // removed with the request and answer
}

TEST_F(RoundProcessTest, PassesAWrongResultOnWithItsMessage) {
  const std::string answer = answer_file(R"({"sets":[],"wrong_result":"pinned d2h 4 KiB: bad"})");
  const RoundAnswer a = run_round_process(child(fmt_copy(answer) + "\nexit 1"), request());
  EXPECT_EQ(a.wrong_result, "pinned d2h 4 KiB: bad");
}

TEST_F(RoundProcessTest, AFailureNamesTheRoundAndTheChildsOwnLine) {
  const std::string exe =
      child("echo 'gpuprobe: error: out of device memory: asked for 1 TiB' >&2\nexit 1");
  try {
    run_round_process(exe, request());
    FAIL() << "no error";
  } catch (const RunError& e) {
    EXPECT_STREQ(e.what(),
                 "the process measuring round 2 of 5 failed: out of device memory: asked for 1 "
                 "TiB (exit 1)");
  }
}

TEST_F(RoundProcessTest, AKilledChildOrAMissingAnswerOrBinaryIsARunError) {
  EXPECT_THROW(run_round_process(child("kill -9 $$"), request()), RunError);
  EXPECT_THROW(run_round_process(child("exit 0"), request()), RunError);  // no answer written
  EXPECT_THROW(run_round_process(child("echo '{' > \"$3\""), request()), RunError);
  EXPECT_THROW(run_round_process((dir_ / "absent").string(), request()), RunError);
  try {
    run_round_process(child("kill -9 $$"), request());
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("killed by signal 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuprobe
