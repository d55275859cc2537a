// Unit tests for bounded input reading, the JSON text parser's limits and words, and printable().
#include "gpuprobe/core/input_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

namespace fs = std::filesystem;

// The message of the UsageError `f` throws ("" when it throws none).
template <typename F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuprobe_input_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileWhole) {
  const std::string path = write("a.txt", std::string("x\0y", 3));
  EXPECT_EQ(read_input_file(path, 100, "a test file"), std::string("x\0y", 3));
}

TEST_F(InputFileTest, RefusesAFileLongerThanTheLimitNamingIt) {
  const std::string path = write("big.txt", std::string(101, 'x'));
  EXPECT_EQ(read_input_file(write("ok.txt", std::string(100, 'x')), 100, "x").size(), 100u);
  const std::string m = usage_message([&] { (void)read_input_file(path, 100, "a test file"); });
  EXPECT_NE(m.find("big.txt' is larger than 100 bytes"), std::string::npos) << m;
}

TEST_F(InputFileTest, RefusesADeviceAtOnce) {
  // /dev/zero never ends: refused for what it is, before a byte is read.
  const std::string m = usage_message([] { (void)read_input_file("/dev/zero", 1 << 20, "x"); });
  EXPECT_NE(m.find("cannot read '/dev/zero': it is a character device"), std::string::npos) << m;
}

TEST_F(InputFileTest, RefusesAFolderAndAMissingFile) {
  EXPECT_NE(
      usage_message([&] { (void)read_input_file(dir_.string(), 100, "x"); }).find("it is a folder"),
      std::string::npos);
  EXPECT_NE(usage_message([&] {
              (void)read_input_file((dir_ / "no").string(), 100, "x", "--f");
            }).find("--f: cannot read '"),
            std::string::npos);
}

TEST_F(InputFileTest, ReadsANamedPipeUpToTheLimit) {
  // The writer outlives the reader: its writes then fail with EPIPE, not a SIGPIPE to the test.
  const auto old_sigpipe = std::signal(SIGPIPE, SIG_IGN);
  const std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // An endless writer: the reader stops at the limit with the size message.
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    const std::string chunk(4096, '[');
    for (int i = 0; i < 64 && out; ++i)
      out << chunk << std::flush;
  });
  const std::string m = usage_message([&] { (void)read_input_file(fifo, 10000, "x"); });
  writer.join();
  std::signal(SIGPIPE, old_sigpipe);
  EXPECT_NE(m.find("is larger than 10000 bytes"), std::string::npos) << m;
}

TEST(Printable, KeepsTextAndUtf8AndEscapesWhatATerminalActsOn) {
  EXPECT_EQ(printable("H100 80GB · µs"), "H100 80GB · µs");
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("t\x1b]0;title\x07"), "t\\x1b]0;title\\x07");
  EXPECT_EQ(printable("x\ny\tz\x7f"), "x\\ny\\tz\\x7f");
  EXPECT_EQ(printable("c1 \xc2\x9b"
                      "2J"),
            "c1 \\u009b2J");                                // U+009B: the one-byte CSI
  EXPECT_EQ(printable("bad \xff\xc3"), "bad \\xff\\xc3");   // not UTF-8, truncated sequence
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-8-encoded surrogate
}

TEST(ParseJsonText, NamesLineColumnAndReasonInItsOwnWords) {
  const auto m = usage_message([] { (void)parse_json_text("{\n  \"a\": 1e999\n}", "f.json"); });
  EXPECT_EQ(m, "'f.json' is not valid JSON: line 2, column 8: the number '1e999' is out of range");
  const auto t = usage_message([] { (void)parse_json_text("{\"a\": [1, 2", "t.json"); });
  EXPECT_EQ(t,
            "'t.json' is not valid JSON: line 1, column 12: the text ends early (a truncated "
            "file?)");
  const auto n = usage_message([] { (void)parse_json_text("[1, NaN]", "n.json"); });
  EXPECT_NE(n.find("line 1, column 5: unexpected 'NaN]'"), std::string::npos) << n;
  EXPECT_EQ(n.find("json.exception"), std::string::npos) << n;
}

TEST(ParseJsonText, RefusesDeepNestingWithoutRecursingIntoIt) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto m = usage_message([&] { (void)parse_json_text(deep, "deep.json"); });
  EXPECT_NE(m.find("nested deeper than 64 levels"), std::string::npos) << m;
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(parse_json_text(ok, "ok.json").is_array());
}

// The value limit counted against a small one (parse_json_text's JsonLimits): the same code as
// at kMaxJsonValues, whose 4 million values the CLI's bad-file test (many_values) meets.
constexpr JsonLimits kFewValues{kMaxJsonDepth, 1000};

TEST(ParseJsonText, RefusesMoreValuesThanTheLimit) {
  std::string many = "[0";
  for (std::size_t i = 0; i < kFewValues.values; ++i)
    many += ",0";
  many += "]";
  const auto m = usage_message([&] { (void)parse_json_text(many, "many.json", kFewValues); });
  EXPECT_NE(m.find("holds more than"), std::string::npos) << m;
}

TEST(ParseJsonText, BuildsTheDocumentTheLibraryWould) {
  for (const std::string text :
       {R"({"b": null, "a": [true, false, -3, 18446744073709551615, 1.5e-3, "s\u00e9"], "c": {}})",
        R"([[], {}, [[1], {"x": {"y": [2.0]}}], "", -0])", "42", "\"text\"", "null", " [1] "}) {
    EXPECT_EQ(parse_json_text(text, "t.json").dump(), nlohmann::ordered_json::parse(text).dump())
        << text;
  }
}

TEST(ParseJsonText, ARepeatedKeyKeepsItsFirstPlaceAndTakesTheLastValue) {
  const auto j = parse_json_text(R"({"b": 1, "a": {"x": 1, "x": [2]}, "b": {"c": 3}})", "d.json");
  EXPECT_EQ(j.dump(), R"({"b":{"c":3},"a":{"x":[2]}})");
  EXPECT_EQ(j.dump(), nlohmann::ordered_json::parse(j.dump()).dump());
}

TEST(ParseJsonText, CountsDepthOfArraysAndObjectsAlikeAndPerBranch) {
  auto nested = [](std::size_t levels) {
    std::string s;
    for (std::size_t i = 0; i < levels; ++i)
      s += i % 2 ? "[" : "{\"k\":";
    for (std::size_t i = levels; i-- > 0;)
      s += i % 2 ? "]" : "}";
    return s;
  };
  EXPECT_TRUE(parse_json_text(nested(kMaxJsonDepth), "ok.json").is_object());
  EXPECT_EQ(usage_message([&] { (void)parse_json_text(nested(kMaxJsonDepth + 1), "d.json"); }),
            "'d.json' is not a gpuprobe result file: it is nested deeper than 64 levels");
  // Levels closed are given back: many branches, each as deep as allowed.
  std::string siblings = "[";
  for (int i = 0; i < 100; ++i)
    siblings +=
        (i ? "," : "") + std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  siblings += "]";
  EXPECT_EQ(parse_json_text(siblings, "s.json").size(), 100U);
}

TEST(ParseJsonText, CountsEveryValueButNotKeysUpToTheLimit) {
  // Seven values of every kind inside the array, then zeros up to `values` in all.
  auto document = [](std::size_t values) {
    std::string s = R"([null, true, "s", 1.5, -1, {"k": 0, "k": 0}, [])";
    for (std::size_t n = 1 + 7 + 2; n < values; ++n)
      s += ",0";
    return s + "]";
  };
  const std::size_t limit = kFewValues.values;
  EXPECT_EQ(parse_json_text(document(limit), "ok.json", kFewValues).size(), limit - 3);
  EXPECT_EQ(
      usage_message([&] { (void)parse_json_text(document(limit + 1), "m.json", kFewValues); }),
      "'m.json' is not a gpuprobe result file: it holds more than 1000 values");
  // Without limits given, the file limit holds: the CLI's bad-file test many_values meets it.
}

TEST(ParseJsonText, NamesEachKindOfBadText) {
  const std::pair<std::string, std::string> cases[] = {
      {"{\"a\": 1} x", "line 1, column 10: more text after the end of the JSON document"},
      {"[\"a\xff\"]", "line 1, column 4: bytes that are not UTF-8 text"},
      {"[\n\"a\tb\"]",
       "line 2, column 3: a control character that is not escaped, inside a string"},
      {R"(["\ud800"])", "line 1, column 9: a bad \\u escape inside a string"},
      {R"(["\uZZ"])", "line 1, column 5: a bad \\u escape inside a string"},
      {std::string("[1,\0]", 5), "line 1, column 4: a NUL byte (a binary file?)"},
      {"{\"a\":\n  -Infinity}",
       "line 2, column 4: unexpected 'Infinity}' (NaN and Infinity are not JSON numbers)"},
      {"[1, 2]]\n", "line 1, column 7: more text after the end of the JSON document"},
      {"{\"a\" 1}", "line 1, column 6: unexpected '1}'"},
      {"", "line 1, column 1: the text ends early (a truncated file?)"},
      {"[-12345678901234567890123e99999]",
       "line 1, column 2: the number '-12345678901234567890123' is out of range"},
  };
  for (const auto& c : cases) {
    const std::string& text = c.first;  // not a structured binding: the lambda captures it
    const std::string& words = c.second;
    EXPECT_EQ(usage_message([&] { (void)parse_json_text(text, "b.json"); }),
              "'b.json' is not valid JSON: " + words)
        << printable(text);
  }
}

TEST(ParseJsonText, EscapesControlCharactersInStringsAndKeys) {
  const auto j = parse_json_text(R"({"k\u001b[2J": "v\u0007\u009b"})", "e.json");
  ASSERT_TRUE(j.contains("k\\x1b[2J"));
  EXPECT_EQ(j["k\\x1b[2J"].get<std::string>(), "v\\x07\\u009b");
}

}  // namespace
}  // namespace gpuprobe
