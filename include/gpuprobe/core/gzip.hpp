// gzip streams through zlib: telling one by its first bytes, inflating one piece by piece within
// a limit on the inflated bytes (so that a small file that inflates to gigabytes is refused after
// at most the limit), and writing one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpuprobe {

// True when `bytes` begins as a gzip stream does (0x1f 0x8b), whatever the file is called.
bool is_gzip(std::string_view bytes);

// True when `path` ends in ".gz": the name asks for a gzipped file (--json out.json.gz).
bool has_gzip_suffix(std::string_view path);

// `text` as one gzip member (zlib's default level; no name, no time stamp, so the same text
// always gives the same bytes).
std::string gzip_text(std::string_view text);

// Inflates a gzip stream fed in pieces, in the order they were read: one member or several
// (`cat a.gz b.gz`), each checked against its CRC-32 and length. At most `limit` inflated bytes
// are ever kept; the rest of the stream is not inflated.
class GzipInflater {
 public:
  enum class Result {
    kOk,         // `in` inflated onto `out`
    kOverLimit,  // `out` would pass the limit: stop reading
    kCorrupt,    // not a gzip stream, or damaged: error() says how (zlib's words)
  };

  explicit GzipInflater(std::uint64_t limit);
  ~GzipInflater();
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  // Inflates the next piece of the stream onto the end of `out` (which holds what earlier
  // pieces gave, and nothing else).
  Result feed(std::string_view in, std::string& out);
  // After the last piece: true when the stream ended where its last member does (false: the
  // input stopped inside a member, e.g. a truncated file).
  bool complete() const;
  // What was wrong, after kCorrupt: "invalid block type", "incorrect data check", ...
  const std::string& error() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuprobe
