// Unit tests for gzip streams: writing (gzip_text), bounded inflating (GzipInflater), and input
// files read gzipped as they are (read_input_file, read_report_file): the same as the plain file,
// a bomb refused after the limit and within a second, truncated and damaged streams refused.
#include "gpuprobe/core/gzip.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
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

// Everything `gz` inflates to, within `limit`; "" with `result` set otherwise.
std::string inflate_all(std::string_view gz, std::uint64_t limit,
                        GzipInflater::Result* result = nullptr, bool* complete = nullptr) {
  GzipInflater inflater(limit);
  std::string out;
  const auto r = inflater.feed(gz, out);
  if (result) *result = r;
  if (complete) *complete = inflater.complete();
  return out;
}

// A gzip stream, made with zlib alone, of `mibs` MiB of spaces in one member: 1 MiB of spaces
// deflated, then 1 MiB more, whose byte-aligned blocks are repeated (they refer only to spaces
// before them), then the last block and the trailer (CRC-32 by crc32_combine, length mod 2^32).
// About 1 KiB per MiB.
std::string space_bomb(std::size_t mibs) {
  const std::string mib(std::size_t{1} << 20, ' ');
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string buffer(std::size_t{1} << 16, '\0');
  auto deflate_mib = [&](int flush, std::string_view in) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    std::string out;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer.data());
      z.avail_out = static_cast<uInt>(buffer.size());
      deflate(&z, flush);
      out.append(buffer.data(), buffer.size() - z.avail_out);
    } while (z.avail_out == 0);
    return out;
  };
  const std::string first = deflate_mib(Z_SYNC_FLUSH, mib);
  const std::string next = deflate_mib(Z_SYNC_FLUSH, mib);  // after spaces: repeatable
  const std::string last = deflate_mib(Z_FINISH, {});
  deflateEnd(&z);
  const uLong crc_mib =
      crc32(0, reinterpret_cast<const Bytef*>(mib.data()), static_cast<uInt>(mib.size()));
  uLong crc = crc_mib;
  std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03", 10);
  gz += first;
  for (std::size_t i = 1; i < mibs; ++i) {
    gz += next;
    crc = crc32_combine(crc, crc_mib, static_cast<z_off_t>(mib.size()));
  }
  gz += last;
  const std::uint64_t length = static_cast<std::uint64_t>(mibs) << 20;
  for (const std::uint64_t word : {std::uint64_t{crc}, length & 0xffffffffu})
    for (int b = 0; b < 4; ++b)
      gz += static_cast<char>((word >> (8 * b)) & 0xff);
  return gz;
}

// CPU time of this process so far (user and system): what reading costs, whatever else the
// machine is doing (a loaded CI machine stretches the wall clock, not this).
double cpu_seconds() {
  rusage use{};
  ::getrusage(RUSAGE_SELF, &use);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return s(use.ru_utime) + s(use.ru_stime);
}

class GzipFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuprobe_gzip_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  fs::path dir_;
};

TEST(Gzip, TellsAStreamByItsFirstBytesAndAFileNameByItsSuffix) {
  EXPECT_TRUE(is_gzip(gzip_text("{}")));
  EXPECT_TRUE(is_gzip("\x1f\x8b"));
  EXPECT_FALSE(is_gzip("\x1f"));
  EXPECT_FALSE(is_gzip("{\"schema_version\": 3}"));
  EXPECT_FALSE(is_gzip(""));
  EXPECT_TRUE(has_gzip_suffix("run.json.gz"));
  EXPECT_FALSE(has_gzip_suffix("run.json"));
  EXPECT_FALSE(has_gzip_suffix("gz"));
}

TEST(Gzip, WritesWhatInflatesBackTheSameEveryTime) {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i * 7919 % 1000) + (i % 13 == 0 ? "\n" : ", ");
  const std::string gz = gzip_text(text);
  EXPECT_LT(gz.size(), text.size() / 2);
  EXPECT_EQ(gz, gzip_text(text));  // no time stamp: the same bytes each time
  GzipInflater::Result result{};
  bool complete = false;
  EXPECT_EQ(inflate_all(gz, text.size(), &result, &complete), text);
  EXPECT_EQ(result, GzipInflater::Result::kOk);
  EXPECT_TRUE(complete);
  EXPECT_EQ(inflate_all(gzip_text(""), 0, &result, &complete), "");
  EXPECT_TRUE(complete);
}

TEST(Gzip, InflatesAStreamFedByteByByteAndSeveralMembers) {
  const std::string a = "{\"a\": 1,", b = " \"b\": 2}";
  const std::string gz = gzip_text(a) + gzip_text(b);  // cat a.gz b.gz
  GzipInflater inflater(100);
  std::string out;
  for (const char c : gz)
    ASSERT_EQ(inflater.feed(std::string_view(&c, 1), out), GzipInflater::Result::kOk);
  EXPECT_TRUE(inflater.complete());
  EXPECT_EQ(out, a + b);
}

TEST(Gzip, TheLimitHoldsForTheInflatedBytes) {
  const std::string text(1000, 'x');
  GzipInflater::Result result{};
  EXPECT_EQ(inflate_all(gzip_text(text), 1000, &result), text);
  EXPECT_EQ(result, GzipInflater::Result::kOk);
  EXPECT_EQ(inflate_all(gzip_text(text), 999, &result), "");
  EXPECT_EQ(result, GzipInflater::Result::kOverLimit);
}

TEST(Gzip, TruncatedDamagedAndTrailingGarbageAreTold) {
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += std::to_string(i) + " ";
  const std::string gz = gzip_text(text);
  GzipInflater::Result result{};
  bool complete = true;
  inflate_all(gz.substr(0, gz.size() / 2), 1 << 20, &result, &complete);
  EXPECT_EQ(result, GzipInflater::Result::kOk);
  EXPECT_FALSE(complete);  // ends inside the member
  inflate_all(gz.substr(0, gz.size() - 1), 1 << 20, &result, &complete);
  EXPECT_FALSE(complete);  // the length in the trailer is cut short
  std::string crc = gz;
  crc[crc.size() - 6] ^= 0x01;  // a bit of the CRC-32
  GzipInflater bad(1 << 20);
  std::string out;
  EXPECT_EQ(bad.feed(crc, out), GzipInflater::Result::kCorrupt);
  EXPECT_EQ(bad.error(), "incorrect data check");
  std::string method = gz;
  method[2] = 7;  // not deflate
  GzipInflater bad_method(1 << 20);
  EXPECT_EQ(bad_method.feed(method, out), GzipInflater::Result::kCorrupt);
  EXPECT_FALSE(bad_method.error().empty());
  GzipInflater garbage(1 << 20);
  out.clear();
  EXPECT_EQ(garbage.feed(gz + "garbage", out), GzipInflater::Result::kCorrupt);
  EXPECT_EQ(garbage.error(), "incorrect header check");
}

TEST(Gzip, TheSpaceBombIsAValidStreamOfWhatItSays) {
  // The bomb of the test below, small: every byte inflated, CRC-32 and length checked.
  GzipInflater::Result result{};
  bool complete = false;
  const std::string out = inflate_all(space_bomb(5), 5 << 20, &result, &complete);
  EXPECT_EQ(result, GzipInflater::Result::kOk);
  EXPECT_TRUE(complete);
  EXPECT_EQ(out.size(), std::size_t{5} << 20);
  EXPECT_EQ(out.find_first_not_of(' '), std::string::npos);
}

TEST_F(GzipFileTest, AGzippedFileReadsAsThePlainOneWhateverItsName) {
  const std::string text = "{\"schema_version\": 3}\n";
  const std::string plain = write("run.json", text);
  EXPECT_EQ(read_input_file(write("run.json.gz", gzip_text(text)), 100, "x"), text);
  EXPECT_EQ(read_input_file(write("renamed.json", gzip_text(text)), 100, "x"), text);
  EXPECT_EQ(read_input_file(plain, 100, "x"), text);
}

TEST_F(GzipFileTest, AGzippedResultFileGivesTheSameReport) {
  const std::string fixture = std::string(GPUPROBE_FIXTURES_DIR) + "/compare_rounds_a.json";
  const std::string gz = write("a.json.gz", gzip_text(read_input_file(fixture, 1 << 20, "x")));
  EXPECT_EQ(to_json(read_report_file(gz)), to_json(read_report_file(fixture)));
  // The committed gzipped fixture (made by gzip(1), not by gpuprobe) too.
  EXPECT_EQ(to_json(read_report_file(fixture + ".gz")), to_json(read_report_file(fixture)));
}

TEST_F(GzipFileTest, AGzippedPipeIsInflatedToo) {
  const auto old_sigpipe = std::signal(SIGPIPE, SIG_IGN);
  const std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text;
  for (int i = 0; i < 30000; ++i)
    text += std::to_string(i) + "\n";
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    const std::string gz = gzip_text(text);
    out << gz.substr(0, 1) << std::flush;  // one byte first: the magic split over two reads
    out << gz.substr(1) << std::flush;
  });
  const std::string got = read_input_file(fifo, 1 << 20, "x");
  writer.join();
  std::signal(SIGPIPE, old_sigpipe);
  EXPECT_EQ(got, text);
}

TEST_F(GzipFileTest, ABombIsRefusedAtTheLimitWithinASecondOfCpu) {
  const std::string bomb = write("bomb.json.gz", space_bomb(4096));  // 4 GiB of spaces in ~4 MiB
  EXPECT_LT(fs::file_size(bomb), std::uintmax_t{5} << 20);
  const double start = cpu_seconds();
  const std::string m = usage_message([&] { (void)read_report_file(bomb); });
  const double seconds = cpu_seconds() - start;
  EXPECT_NE(m.find("bomb.json.gz' inflates to more than 64 MiB, the most gpuprobe reads as a "
                   "result file"),
            std::string::npos)
      << m;
  EXPECT_LT(seconds, 1.0);
  std::cout << "the 4 GiB bomb was refused after " << seconds << " s of CPU time\n";
  // The limit is the caller's: an expectation file stops at 1 MiB, naming its flag (a bomb of
  // 64 MiB in 64 KiB: the 4 MiB one is refused for its own size).
  const std::string small = write("small-bomb.txt", space_bomb(64));
  const std::string e = usage_message([&] {
    (void)read_input_file(small, kMaxExpectationFileBytes, "an expectation file", "--expect-file");
  });
  EXPECT_NE(e.find("--expect-file: '"), std::string::npos) << e;
  EXPECT_NE(e.find("inflates to more than 1 MiB"), std::string::npos) << e;
}

TEST_F(GzipFileTest, TruncatedAndDamagedFilesAreRefusedNamingThem) {
  const std::string fixture = std::string(GPUPROBE_FIXTURES_DIR) + "/compare_rounds_a.json";
  const std::string gz = gzip_text(read_input_file(fixture, 1 << 20, "x"));
  const std::string cut = write("cut.json.gz", gz.substr(0, gz.size() / 2));
  EXPECT_EQ(usage_message([&] { (void)read_report_file(cut); }),
            "'" + cut +
                "' is not a valid gzip file: it ends before its compressed data does (a "
                "truncated file?)");
  std::string flipped = gz;
  flipped[flipped.size() - 8] ^= 0x10;  // the CRC-32 in the trailer
  const std::string bad = write("bad.json.gz", flipped);
  EXPECT_EQ(usage_message([&] { (void)read_report_file(bad); }),
            "'" + bad + "' is not a valid gzip file: incorrect data check");
  const std::string magic_only = write("magic.json", "\x1f\x8b");
  EXPECT_NE(usage_message([&] { (void)read_report_file(magic_only); }).find("ends before"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuprobe
