// gzip streams through zlib: detection, bounded inflating in pieces, writing.
#include "gpuprobe/core/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <new>

namespace gpuprobe {
namespace {

// zlib counts in uInt: feed it at most this much at a time.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
constexpr std::size_t kBufferBytes = std::size_t{1} << 16;

// zlib's input pointer is not const (zlib never writes through it).
Bytef* zlib_input(const char* data) {
  return reinterpret_cast<Bytef*>(const_cast<char*>(data));
}

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

bool has_gzip_suffix(std::string_view path) {
  return path.ends_with(".gz");
}

std::string gzip_text(std::string_view text) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate data. The best compression: a
  // 3 MB run of every probe is 6% smaller than at the default level (319 against 341 KB) for 0.1 s
  // more, and results are kept (examples/results has a budget).
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw std::bad_alloc();
  struct End {
    z_stream& z;
    ~End() { deflateEnd(&z); }
  } end{z};
  std::string out;
  std::array<unsigned char, kBufferBytes> buffer;
  std::size_t offset = 0;
  int flush = Z_NO_FLUSH;
  while (flush != Z_FINISH) {
    const std::size_t piece = std::min(text.size() - offset, kMaxPiece);
    z.next_in = zlib_input(text.data() + offset);
    z.avail_in = static_cast<uInt>(piece);
    offset += piece;
    flush = offset == text.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = buffer.data();
      z.avail_out = static_cast<uInt>(buffer.size());
      (void)deflate(&z, flush);  // cannot fail here: the stream is sound and has room
      out.append(reinterpret_cast<const char*>(buffer.data()), buffer.size() - z.avail_out);
    } while (z.avail_out == 0);
  }
  return out;
}

struct GzipInflater::State {
  z_stream z{};
  std::uint64_t limit = 0;
  bool ended = false;  // the last member fed ended (its trailer read and checked)
  std::string error;
  std::array<unsigned char, kBufferBytes> buffer{};
};

GzipInflater::GzipInflater(std::uint64_t limit) : state_(std::make_unique<State>()) {
  state_->limit = limit;
  // 16 + MAX_WBITS: gzip members only (header, CRC-32 and length checked).
  if (inflateInit2(&state_->z, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
}

GzipInflater::~GzipInflater() {
  inflateEnd(&state_->z);
}

GzipInflater::Result GzipInflater::feed(std::string_view in, std::string& out) {
  State& s = *state_;
  std::size_t offset = 0;
  while (offset < in.size()) {
    if (s.ended) {  // more bytes after a member: the next member (or garbage, refused below)
      inflateReset(&s.z);
      s.ended = false;
    }
    const std::size_t piece = std::min(in.size() - offset, kMaxPiece);
    s.z.next_in = zlib_input(in.data() + offset);
    s.z.avail_in = static_cast<uInt>(piece);
    bool progress = false;
    while (true) {
      s.z.next_out = s.buffer.data();
      s.z.avail_out = static_cast<uInt>(s.buffer.size());
      const int rc = inflate(&s.z, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        s.error = s.z.msg != nullptr ? s.z.msg : zError(rc);
        return Result::kCorrupt;
      }
      const std::size_t produced = s.buffer.size() - s.z.avail_out;
      if (out.size() + produced > s.limit) return Result::kOverLimit;
      out.append(reinterpret_cast<const char*>(s.buffer.data()), produced);
      progress = progress || produced > 0 || s.z.avail_in < piece;
      if (rc == Z_STREAM_END) {
        s.ended = true;
        break;
      }
      if (s.z.avail_out != 0) break;  // this piece is used up (or zlib can do no more with it)
    }
    if (!progress) {  // zlib took nothing and gave nothing: never loop on it
      s.error = "the stream cannot be inflated";
      return Result::kCorrupt;
    }
    offset += piece - s.z.avail_in;
  }
  return Result::kOk;
}

bool GzipInflater::complete() const {
  return state_->ended;
}

const std::string& GzipInflater::error() const {
  return state_->error;
}

}  // namespace gpuprobe
