// Unit tests for sweep axes: parsing, defaults and quick defaults, choices and per-choice
// switches, bounds and checks, errors naming the flag, the params echo and the help line.
#include "gpuprobe/core/axes.hpp"

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

std::vector<Axis> sample_axes() {
  Axis memory = choice_axis("memory", "host memory kinds", {"pageable", "pinned", "wc"}, "all");
  memory.switch_per_choice = true;
  Axis sizes = size_list_axis("sizes", "sizes", "4KiB:64KiB:x4", "4KiB");
  sizes.max = 1ull << 20;
  sizes.validate = multiple_of(4, "4 bytes");
  Axis size = number_axis("size", "matrix size", "8192");
  size.max = 65536;
  Axis offsets = list_axis("offsets", "offsets", "0:4", "0,1");
  return {memory,
          sizes,
          size,
          offsets,
          choice_axis("direction", "directions", {"h2d", "d2h", "bidir"}, "h2d,d2h"),
          switch_axis("ladder", "run the ladder")};
}

// The message of the UsageError resolve_axes throws for `input`.
std::string error_of(const AxisInput& input) {
  try {
    resolve_axes(sample_axes(), input, false);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Axes, DefaultsAndQuickDefaults) {
  const AxisValues d = resolve_axes(sample_axes(), {}, false);
  EXPECT_EQ(d.list("sizes"), (std::vector<std::uint64_t>{4096, 16384, 65536}));
  EXPECT_EQ(d.choices("memory"), (std::vector<std::string>{"pageable", "pinned", "wc"}));
  EXPECT_EQ(d.choices("direction"), (std::vector<std::string>{"h2d", "d2h"}));
  EXPECT_EQ(d.number("size"), 8192u);
  EXPECT_EQ(d.list("offsets"), (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(d.on("ladder"));
  EXPECT_FALSE(d.given("sizes"));
  const AxisValues q = resolve_axes(sample_axes(), {}, true);
  EXPECT_EQ(q.list("sizes"), (std::vector<std::uint64_t>{4096}));
  EXPECT_EQ(q.list("offsets"), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(q.number("size"), 8192u);  // no quick default: the default
  EXPECT_EQ(q.text("sizes"), "4KiB");
}

TEST(Axes, GivenTextOutsideTheBoundsIsRefusedEvenUnderQuickDefaults) {
  AxisInput in;
  in.text["sizes"] = "64MiB";
  EXPECT_THROW(resolve_axes(sample_axes(), in, true), UsageError);
}

TEST(Axes, GivenTextIsParsedInOrderOnceEach) {
  AxisInput in;
  in.text["sizes"] = "64KiB,4KiB";
  in.text["direction"] = "bidir,h2d,bidir";
  in.switches.insert("ladder");
  const AxisValues v = resolve_axes(sample_axes(), in, true);
  EXPECT_EQ(v.list("sizes"), (std::vector<std::uint64_t>{65536, 4096}));
  EXPECT_EQ(v.choices("direction"), (std::vector<std::string>{"bidir", "h2d"}));
  EXPECT_EQ(v.text("direction"), "bidir,h2d");
  EXPECT_TRUE(v.given("direction"));
  EXPECT_TRUE(v.on("ladder"));
}

TEST(Axes, PerChoiceSwitchesSelectTheUnionInCanonicalOrder) {
  AxisInput in;
  in.choice_switches["memory"] = {"wc", "pageable"};
  const AxisValues v = resolve_axes(sample_axes(), in, false);
  EXPECT_EQ(v.choices("memory"), (std::vector<std::string>{"pageable", "wc"}));
  EXPECT_TRUE(v.given("memory"));
  EXPECT_TRUE(v.has_choice("memory", "wc"));
  EXPECT_FALSE(v.has_choice("memory", "pinned"));
  in.text["memory"] = "pinned";
  const AxisValues both = resolve_axes(sample_axes(), in, false);
  EXPECT_EQ(both.choices("memory"), (std::vector<std::string>{"pinned", "pageable", "wc"}));
}

TEST(Axes, ErrorsNameTheFlagAndTheValue) {
  AxisInput in;
  in.text["direction"] = "sideways";
  EXPECT_EQ(error_of(in), "--direction: unknown value 'sideways' (use h2d, d2h, bidir or all)");
  in = {};
  in.text["direction"] = "h2d,,d2h";
  EXPECT_NE(error_of(in).find("--direction: empty item"), std::string::npos) << error_of(in);
  in = {};
  in.text["sizes"] = "12XB";
  EXPECT_NE(error_of(in).find("--sizes: "), std::string::npos) << error_of(in);
  EXPECT_NE(error_of(in).find("'12XB'"), std::string::npos) << error_of(in);
  in = {};
  in.text["sizes"] = "2MiB";
  EXPECT_EQ(error_of(in), "--sizes: 2097152 is larger than 1048576 (1 MiB)");
  in = {};
  in.text["sizes"] = "6";
  EXPECT_EQ(error_of(in), "--sizes: 6 is not a multiple of 4 bytes");
  in = {};
  in.text["size"] = "99999";
  EXPECT_EQ(error_of(in), "--size: 99999 is larger than 65536");
  in = {};
  in.text["size"] = "1,2";
  EXPECT_NE(error_of(in).find("--size: "), std::string::npos) << error_of(in);
  in = {};
  in.text["sizes"] = "0";
  EXPECT_NE(error_of(in).find("--sizes: "), std::string::npos) << error_of(in);
  EXPECT_NE(error_of(in).find("zero"), std::string::npos) << error_of(in);
}

TEST(Axes, MultipleOfAcceptsTheMultiplesAndNamesTheUnitOtherwise) {
  const auto check = multiple_of(4096, "4 KiB");
  EXPECT_EQ(check(0), "");
  EXPECT_EQ(check(8192), "");
  EXPECT_EQ(check(4100), "4100 is not a multiple of 4 KiB");
  EXPECT_EQ(multiple_of(16, "16 bytes")(8), "8 is not a multiple of 16 bytes");
}

TEST(Axes, SizeAxisIsOneByteSizeEchoedInBytes) {
  const Axis size = size_axis("size", "buffer size", "64MiB", "4KiB");
  AxisInput in;
  in.text["size"] = "2MiB";
  const AxisValues given = resolve_axes({size}, in, false);
  EXPECT_EQ(given.number("size"), 2u << 20);
  EXPECT_EQ(resolve_axes({size}, {}, false).number("size"), 64u << 20);
  EXPECT_EQ(resolve_axes({size}, {}, true).number("size"), 4096u);
  const std::vector<Param> echo = axis_params({size}, given);
  ASSERT_EQ(echo.size(), 1u);
  EXPECT_EQ(echo[0].unit, "B");
  in.text["size"] = "0";
  EXPECT_THROW(resolve_axes({size}, in, false), UsageError);
}

TEST(Axes, ParamsEchoOneParamPerAxisAsInForce) {
  AxisInput in;
  in.choice_switches["memory"] = {"pinned"};
  const auto axes = sample_axes();
  const auto params = axis_params(axes, resolve_axes(axes, in, true));
  ASSERT_EQ(params.size(), axes.size());
  EXPECT_EQ(params[0].key, "memory");
  EXPECT_EQ(scalar_text(params[0].value), "pinned");
  EXPECT_EQ(scalar_text(params[1].value), "4KiB");
  EXPECT_EQ(std::get<std::int64_t>(params[2].value), 8192);
  EXPECT_EQ(std::get<bool>(params[5].value), false);
}

TEST(Axes, HelpLineShowsChoicesDefaultAndQuickDefault) {
  const auto axes = sample_axes();
  EXPECT_EQ(axis_help(axes[1]), "sizes [default: 4KiB:64KiB:x4; all: 4KiB]");
  EXPECT_EQ(axis_help(axes[0]),
            "host memory kinds (pageable, pinned, wc, comma-separated, or all) [default: all]");
  EXPECT_EQ(axis_help(axes[5]), "run the ladder");
}

TEST(Axes, AskingForAnAxisOfAnotherKindIsAProgrammingError) {
  const AxisValues v = resolve_axes(sample_axes(), {}, false);
  EXPECT_THROW(v.list("memory"), std::logic_error);
  EXPECT_THROW(v.number("nope"), std::logic_error);
}

}  // namespace
}  // namespace gpuprobe
