// Unit tests for parsing sizes, counts and lists, and for formatting bytes, times and numbers.
#include "gpuprobe/core/units.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

using Values = std::vector<std::uint64_t>;

// Runs f, which must throw UsageError, and returns its message.
template <typename F>
std::string usage_message(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected UsageError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected UsageError, nothing was thrown";
  return {};
}

std::string size_error(const std::string& token) {
  return usage_message([&] { parse_size(token); });
}
std::string int_error(const std::string& token) {
  return usage_message([&] { parse_int(token); });
}
std::string list_error(const std::string& text, const ListOptions& options = {}) {
  return usage_message([&] { parse_list(text, options); });
}

ListOptions ints(bool allow_zero = false) {
  ListOptions o;
  o.kind = ListKind::kInt;
  o.allow_zero = allow_zero;
  return o;
}

// --- parse_size ---------------------------------------------------------------------------

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("512B"), 512u);
  EXPECT_EQ(parse_size("18446744073709551615"), UINT64_MAX);
}

TEST(ParseSize, BinaryUnits) {
  EXPECT_EQ(parse_size("64KiB"), 65536u);
  EXPECT_EQ(parse_size("64MiB"), 67108864u);
  EXPECT_EQ(parse_size("1GiB"), 1073741824u);
  EXPECT_EQ(parse_size("1TiB"), 1099511627776u);
  EXPECT_EQ(parse_size("15TiB"), 15u * 1099511627776u);
}

TEST(ParseSize, BinaryShorthands) {
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("2M"), 2097152u);
  EXPECT_EQ(parse_size("3G"), 3221225472u);
  EXPECT_EQ(parse_size("1T"), 1099511627776u);
}

TEST(ParseSize, DecimalUnits) {
  EXPECT_EQ(parse_size("1kB"), 1000u);
  EXPECT_EQ(parse_size("1KB"), 1000u);
  EXPECT_EQ(parse_size("3MB"), 3000000u);
  EXPECT_EQ(parse_size("1.5GB"), 1500000000u);
  EXPECT_EQ(parse_size("2TB"), 2000000000000u);
  EXPECT_EQ(parse_size("0.001KB"), 1u);
}

TEST(ParseSize, FractionsThatAreWholeBytes) {
  EXPECT_EQ(parse_size("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size("0.5KiB"), 512u);
  EXPECT_EQ(parse_size(".25MiB"), 262144u);
  EXPECT_EQ(parse_size("2.0"), 2u);
  EXPECT_EQ(parse_size("1.50000000000000000000000000KiB"), 1536u);
  EXPECT_EQ(parse_size("0.1MB"), 100000u);
  EXPECT_EQ(parse_size("1.1MB"), 1100000u);
}

TEST(ParseSize, ExponentNotation) {
  EXPECT_EQ(parse_size("1e9"), 1000000000u);
  EXPECT_EQ(parse_size("2.5e3"), 2500u);
  EXPECT_EQ(parse_size("25e-1KB"), 2500u);
}

TEST(ParseSize, Whitespace) {
  EXPECT_EQ(parse_size("64 MiB"), 67108864u);
  EXPECT_EQ(parse_size(" 64MiB "), 67108864u);
  EXPECT_EQ(parse_size("1\tGiB"), 1073741824u);
}

TEST(ParseSize, UnknownUnit) {
  const std::string m = size_error("12XB");
  EXPECT_EQ(m,
            "invalid size '12XB': unknown unit 'XB' (use B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)");
}

TEST(ParseSize, UnitsAreCaseSensitive) {
  EXPECT_NE(size_error("1kib").find("unknown unit 'kib'"), std::string::npos);
  EXPECT_NE(size_error("1mb").find("unknown unit 'mb'"), std::string::npos);
  EXPECT_NE(size_error("1b").find("unknown unit 'b'"), std::string::npos);
}

TEST(ParseSize, Empty) {
  EXPECT_NE(size_error("").find("invalid size ''"), std::string::npos);
  EXPECT_NE(size_error("   ").find("empty"), std::string::npos);
}

TEST(ParseSize, Negative) {
  const std::string m = size_error("-1");
  EXPECT_NE(m.find("'-1'"), std::string::npos);
  EXPECT_NE(m.find("negative"), std::string::npos);
  EXPECT_NE(size_error("-4KiB").find("'-4KiB'"), std::string::npos);
  EXPECT_NE(size_error("+4").find("'+4'"), std::string::npos);
}

TEST(ParseSize, FractionalBytes) {
  for (const char* token : {"1.5", "0.3B", "1.0001KiB", "0.0001KB", "1e-1"}) {
    const std::string m = size_error(token);
    EXPECT_NE(m.find(std::string("'") + token + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("whole number of bytes"), std::string::npos) << m;
  }
}

TEST(ParseSize, Overflow) {
  for (const char* token :
       {"18446744073709551616", "16777216TiB", "100000000000000000000", "18446744073709551616B",
        "20000000TB", "1e20", "99999999999999999999"}) {
    const std::string m = size_error(token);
    EXPECT_NE(m.find(std::string("'") + token + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("larger than the maximum"), std::string::npos) << m;
  }
}

TEST(ParseSize, NotFinite) {
  for (const char* token : {"nan", "NaN", "inf", "infinity", "-inf"}) {
    const std::string m = size_error(token);
    EXPECT_NE(m.find(std::string("'") + token + "'"), std::string::npos) << m;
  }
}

TEST(ParseSize, TrailingJunk) {
  EXPECT_NE(size_error("12MiBx").find("unknown unit 'MiBx'"), std::string::npos);
  EXPECT_NE(size_error("1.5.5").find("'1.5.5'"), std::string::npos);
  EXPECT_NE(size_error("0x10").find("'0x10'"), std::string::npos);
  EXPECT_NE(size_error("1 0").find("'1 0'"), std::string::npos);
  EXPECT_NE(size_error("1e").find("unknown unit 'e'"), std::string::npos);
  EXPECT_NE(size_error("MiB").find("'MiB'"), std::string::npos);
  EXPECT_NE(size_error("1,024").find("'1,024'"), std::string::npos);
}

// --- parse_int ----------------------------------------------------------------------------

TEST(ParseInt, Valid) {
  EXPECT_EQ(parse_int("0"), 0);
  EXPECT_EQ(parse_int("32"), 32);
  EXPECT_EQ(parse_int("007"), 7);
  EXPECT_EQ(parse_int("9223372036854775807"), INT64_MAX);
}

TEST(ParseInt, RejectsUnits) {
  const std::string m = int_error("1k");
  EXPECT_NE(m.find("'1k'"), std::string::npos);
  EXPECT_NE(m.find("no units"), std::string::npos);
  EXPECT_NE(int_error("4KiB").find("'4KiB'"), std::string::npos);
}

TEST(ParseInt, RejectsSignsFractionsAndJunk) {
  for (const char* token : {"-1", "+1", "", "1.5", "1e3", "abc", "1,2", "0x10", " "}) {
    const std::string m = int_error(token);
    EXPECT_NE(m.find(std::string("invalid count '")), std::string::npos) << m;
    if (std::string(token) != " ") {
      EXPECT_NE(m.find(std::string("'") + token + "'"), std::string::npos) << m;
    }
  }
}

TEST(ParseInt, RejectsOverflow) {
  const std::string m = int_error("9223372036854775808");
  EXPECT_NE(m.find("'9223372036854775808'"), std::string::npos);
  EXPECT_NE(m.find("larger than the maximum"), std::string::npos);
}

// --- parse_list ---------------------------------------------------------------------------

TEST(ParseList, ExplicitValues) {
  EXPECT_EQ(parse_list("1,2,4", ints()), (Values{1, 2, 4}));
  EXPECT_EQ(parse_list("64MiB"), (Values{67108864}));
  EXPECT_EQ(parse_list("4KiB,1MiB,512"), (Values{4096, 1048576, 512}));
  EXPECT_EQ(parse_list(" 1 , 2 ", ints()), (Values{1, 2}));
}

TEST(ParseList, KeepsOrderAndRemovesDuplicates) {
  EXPECT_EQ(parse_list("4,1,4,2,1", ints()), (Values{4, 1, 2}));
  EXPECT_EQ(parse_list("1KiB,1024,2KiB"), (Values{1024, 2048}));
  EXPECT_EQ(parse_list("8,1:4,2", ints()), (Values{8, 1, 2, 3, 4}));
}

TEST(ParseList, ArithmeticRanges) {
  EXPECT_EQ(parse_list("0:32:4", ints(true)), (Values{0, 4, 8, 12, 16, 20, 24, 28, 32}));
  EXPECT_EQ(parse_list("1:5", ints()), (Values{1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_list("1:10:4", ints()), (Values{1, 5, 9}));
  EXPECT_EQ(parse_list("5:5", ints()), (Values{5}));
  EXPECT_EQ(parse_list("1KiB:4KiB:1KiB"), (Values{1024, 2048, 3072, 4096}));
}

TEST(ParseList, GeometricRanges) {
  EXPECT_EQ(parse_list("4KiB:256MiB:x4"),
            (Values{4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456}));
  EXPECT_EQ(parse_list("3:100:x3", ints()), (Values{3, 9, 27, 81}));
  EXPECT_EQ(parse_list("1:1:x2", ints()), (Values{1}));
  // Must stop without overflowing near the top of the range.
  const Values top = parse_list("1:18446744073709551615:x2");
  ASSERT_EQ(top.size(), 64u);
  EXPECT_EQ(top.back(), std::uint64_t{1} << 63);
}

TEST(ParseList, ZeroNeedsPermission) {
  const std::string m = list_error("0:32:4", ints());
  EXPECT_NE(m.find("'0'"), std::string::npos) << m;
  EXPECT_NE(m.find("'0:32:4'"), std::string::npos) << m;
  EXPECT_NE(m.find("zero"), std::string::npos) << m;
  EXPECT_NE(list_error("4,0,8", ints()).find("'4,0,8'"), std::string::npos);
  EXPECT_NE(list_error("0B").find("'0B'"), std::string::npos);
  EXPECT_EQ(parse_list("0,4", ints(true)), (Values{0, 4}));
}

TEST(ParseList, EmptyItems) {
  std::string m = list_error("1,,2", ints());
  EXPECT_NE(m.find("'1,,2'"), std::string::npos) << m;
  EXPECT_NE(m.find("item 2 is empty"), std::string::npos) << m;
  m = list_error("1,2,", ints());
  EXPECT_NE(m.find("'1,2,'"), std::string::npos) << m;
  EXPECT_NE(m.find("item 3 is empty"), std::string::npos) << m;
  m = list_error(",1", ints());
  EXPECT_NE(m.find("item 1 is empty"), std::string::npos) << m;
  m = list_error("1, ,2", ints());
  EXPECT_NE(m.find("item 2 is empty"), std::string::npos) << m;
  EXPECT_NE(list_error("").find("empty list"), std::string::npos);
}

TEST(ParseList, ReversedRange) {
  const std::string m = list_error("8:4", ints());
  EXPECT_NE(m.find("'8:4'"), std::string::npos) << m;
  EXPECT_NE(m.find("greater than end"), std::string::npos) << m;
  EXPECT_NE(list_error("1MiB:4KiB:x2").find("'1MiB:4KiB:x2'"), std::string::npos);
}

TEST(ParseList, BadSteps) {
  std::string m = list_error("0:8:0", ints(true));
  EXPECT_NE(m.find("'0:8:0'"), std::string::npos) << m;
  EXPECT_NE(m.find("step is zero"), std::string::npos) << m;
  for (const char* text : {"1:8:x1", "1:8:x0", "1:8:x", "1:8:x1.5", "1:8:x-2"}) {
    m = list_error(text, ints());
    EXPECT_NE(m.find(std::string("'") + text + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("factor"), std::string::npos) << m;
  }
  m = list_error("0:8:x2", ints(true));
  EXPECT_NE(m.find("cannot start at 0"), std::string::npos) << m;
}

TEST(ParseList, MalformedRanges) {
  for (const char* text : {"1:2:3:4", "1:", ":4", "1::2"}) {
    const std::string m = list_error(text, ints());
    EXPECT_NE(m.find(std::string("'") + text + "'"), std::string::npos) << m;
  }
  EXPECT_NE(list_error("1:2:3:4", ints()).find("too many ':'"), std::string::npos);
  EXPECT_NE(list_error("1:", ints()).find("missing end"), std::string::npos);
}

TEST(ParseList, BadItemQuotesItemAndList) {
  const std::string m = list_error("4KiB:1MiB:x2,12XB");
  EXPECT_EQ(m,
            "invalid size '12XB' in list '4KiB:1MiB:x2,12XB': unknown unit 'XB' (use B, KiB, MiB, "
            "GiB, TiB, kB, MB, GB, TB)");
  const std::string c = list_error("1,2k", ints());
  EXPECT_NE(c.find("invalid count '2k' in list '1,2k'"), std::string::npos) << c;
  EXPECT_NE(list_error("1:1k", ints()).find("'1k'"), std::string::npos);
}

TEST(ParseList, TooManyItems) {
  std::string m = list_error("1:1000000", ints());
  EXPECT_NE(m.find("'1:1000000'"), std::string::npos) << m;
  EXPECT_NE(m.find("1000000 items"), std::string::npos) << m;
  EXPECT_NE(m.find("4096"), std::string::npos) << m;

  // A range over the whole 64-bit space must be refused, not expanded or overflowed.
  ListOptions all;
  all.allow_zero = true;
  m = list_error("0:18446744073709551615", all);
  EXPECT_NE(m.find("limit of 4096"), std::string::npos) << m;

  ListOptions three = ints();
  three.max_items = 3;
  m = list_error("1,2,3,4", three);
  EXPECT_NE(m.find("'1,2,3,4'"), std::string::npos) << m;
  EXPECT_NE(m.find("limit of 3"), std::string::npos) << m;
  EXPECT_EQ(parse_list("1,1,1,1,2,3", three), (Values{1, 2, 3}));
  EXPECT_EQ(parse_list("1:3", three), (Values{1, 2, 3}));
  EXPECT_NE(list_error("1:4", three).find("4 items"), std::string::npos);
  EXPECT_NE(list_error("1:8:x2", three).find("4 items"), std::string::npos);
}

// --- formatting ---------------------------------------------------------------------------

TEST(FormatBytes, Examples) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1), "1 B");
  EXPECT_EQ(format_bytes(100), "100 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(12345), "12.1 KiB");
  EXPECT_EQ(format_bytes(1.5 * 1048576), "1.5 MiB");
  EXPECT_EQ(format_bytes(256.0 * 1048576), "256 MiB");
  EXPECT_EQ(format_bytes(1073741824.0), "1 GiB");
  EXPECT_EQ(format_bytes(1099511627776.0 * 3), "3 TiB");
  EXPECT_EQ(format_bytes(0.5), "0.5 B");
}

TEST(FormatBytes, RoundingMovesToTheNextUnit) {
  EXPECT_EQ(format_bytes(1048575), "1 MiB");  // 1023.999 KiB
  EXPECT_EQ(format_bytes(1023.999), "1 KiB");
  EXPECT_EQ(format_bytes(1023.4 * 1024), "1023 KiB");
}

TEST(FormatSeconds, Examples) {
  EXPECT_EQ(format_seconds(812e-9), "812 ns");
  EXPECT_EQ(format_seconds(3.21e-6), "3.21 us");
  EXPECT_EQ(format_seconds(1.25e-3), "1.25 ms");
  EXPECT_EQ(format_seconds(2.5), "2.5 s");
  EXPECT_EQ(format_seconds(1.0), "1 s");
  EXPECT_EQ(format_seconds(1e-6), "1 us");
  EXPECT_EQ(format_seconds(12.345e-6), "12.3 us");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(0.5e-9), "0.5 ns");
  EXPECT_EQ(format_seconds(1500), "1500 s");
}

TEST(FormatSeconds, RoundingMovesToTheNextUnit) {
  EXPECT_EQ(format_seconds(999.7e-9), "1 us");
  EXPECT_EQ(format_seconds(0.9999), "1 s");
}

TEST(FormatNumber, Examples) {
  EXPECT_EQ(format_number(1234), "1234");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(-3.5), "-3.5");
  EXPECT_EQ(format_number(1234.5678), "1235");
  EXPECT_EQ(format_number(3.14159265), "3.142");
  EXPECT_EQ(format_number(123456789), "123500000");
  EXPECT_EQ(format_number(99999.5), "100000");
  EXPECT_EQ(format_number(0.00012345, 3), "0.000123");
  EXPECT_EQ(format_number(2.6131e-6), "2.613e-06");
  EXPECT_EQ(format_number(1e15), "1e+15");
  EXPECT_EQ(format_number(1.5e20, 3), "1.5e+20");
  EXPECT_EQ(format_number(812.25, 6), "812.25");
  EXPECT_EQ(format_number(2.0, 6), "2");
  EXPECT_EQ(format_number(1.0 / 3.0, 2), "0.33");
}

TEST(ParseShare, KeepsTheNumberAsWrittenAndThePercentSign) {
  const auto two = parse_share("2%");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->value, 2.0);
  EXPECT_TRUE(two->percent);
  const auto fraction = parse_share("0.02");
  ASSERT_TRUE(fraction.has_value());
  EXPECT_EQ(fraction->value, 0.02);
  EXPECT_FALSE(fraction->percent);
  // Exact: 29 stays 29 (a /100 then x100 round trip would give 28.999999999999996).
  EXPECT_EQ(parse_share("29")->value, 29.0);
  EXPECT_EQ(parse_share("7%")->value, 7.0);
  EXPECT_EQ(parse_share("0")->value, 0.0);
  EXPECT_EQ(parse_share("1e-3")->value, 0.001);
}

TEST(ParseShare, RejectsWhatIsNotAFiniteNonNegativeNumber) {
  for (const char* bad : {"", "%", "abc", "-5", "5%%", "2 %", "inf", "nan", "1e999", "5x", "%5"})
    EXPECT_FALSE(parse_share(bad).has_value()) << bad;
}

TEST(FormatCudaVersion, MajorAndMinor) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
  EXPECT_EQ(format_cuda_version(std::nullopt), "?");
}

}  // namespace
}  // namespace gpuprobe
