// Unit tests for --help's wrapping to 120 columns (src/cli/help_wrap.cpp).
#include "cli/help_wrap.hpp"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace gpuprobe::cli {
namespace {

std::size_t widest(const std::string& text) {
  std::istringstream in(text);
  std::size_t most = 0;
  for (std::string line; std::getline(in, line);)
    most = std::max(most, line.size());
  return most;
}

TEST(HelpWrap, OptionLinesContinueUnderTheirDescription) {
  const std::string name = "  --samples N";
  const std::string line =
      name + std::string(30 - name.size(), ' ') +
      "fixed number of samples per point (deterministic, for CI) and more words "
      "than fit in one line of a hundred and twenty columns, so it wraps";
  const std::string out = wrap_help(line + "\n", 120, 30);
  EXPECT_LE(widest(out), 120u);
  EXPECT_EQ(out.substr(0, line.rfind(' ', 120)), line.substr(0, line.rfind(' ', 120)));
  const auto second = out.find('\n') + 1;
  EXPECT_EQ(out.substr(second, 31), std::string(30, ' ') + out[second + 30]);
  EXPECT_NE(out[second + 30], ' ');
  EXPECT_EQ(out.back(), '\n');
}

TEST(HelpWrap, ParagraphsWrapAtTheirIndentAndShortLinesStay) {
  std::string paragraph;
  for (int i = 0; i < 60; ++i)
    paragraph += "word" + std::to_string(i) + " ";
  const std::string text = "Usage: gpuprobe\n" + paragraph + "\n  gpuprobe check run.json  # " +
                           paragraph + "\n  " + paragraph + "\n";
  const std::string out = wrap_help(text, 120, 30);
  EXPECT_LE(widest(out), 120u);
  EXPECT_EQ(out.substr(0, 16), "Usage: gpuprobe\n");
  // A paragraph continues at 0: word0..word9 take 6 columns each, word10.. 7, so word17 ends at
  // column 115 and word18 would end at 122.
  EXPECT_NE(out.find("\nword0 word1 "), std::string::npos);
  EXPECT_NE(out.find(" word17\nword18 "), std::string::npos);
  // An example continues under its comment (the text after its first wide gap) ...
  EXPECT_NE(out.find("\n" + std::string(27, ' ') + "word"), std::string::npos);
  // ... an indented line without a gap 4 deeper than its indentation.
  EXPECT_NE(out.find("\n      word"), std::string::npos);
  const std::string one_word(150, 'x');
  EXPECT_LE(widest(wrap_help(one_word, 120, 30)), 120u);  // cut when nothing else helps
}

}  // namespace
}  // namespace gpuprobe::cli
