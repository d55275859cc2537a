// Fuzz target: the gzip inflater behind every input file (read_input_file): any bytes, fed whole
// or in two pieces, inflate alike and never past the limit, and what inflates completely comes
// back unchanged through gzip_text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuprobe/core/gzip.hpp"

namespace {

constexpr std::uint64_t kLimit = std::uint64_t{1} << 20;

struct Outcome {
  gpuprobe::GzipInflater::Result result;
  bool complete;
  std::string text;
};

Outcome inflate(std::string_view first, std::string_view second) {
  gpuprobe::GzipInflater inflater(kLimit);
  Outcome o{gpuprobe::GzipInflater::Result::kOk, false, {}};
  o.result = inflater.feed(first, o.text);
  if (o.result == gpuprobe::GzipInflater::Result::kOk) o.result = inflater.feed(second, o.text);
  o.complete = inflater.complete();
  if (o.text.size() > kLimit) __builtin_trap();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Outcome whole = inflate(bytes, {});
  const std::size_t cut = size == 0 ? 0 : data[0] % size;
  const Outcome split = inflate(bytes.substr(0, cut), bytes.substr(cut));
  // (Over the limit and damaged may be told in either order, by where the pieces end.)
  const bool ok = whole.result == gpuprobe::GzipInflater::Result::kOk;
  if (ok != (split.result == gpuprobe::GzipInflater::Result::kOk)) __builtin_trap();
  if (!ok) return 0;
  if (whole.complete != split.complete || whole.text != split.text) __builtin_trap();
  if (whole.complete && inflate(gpuprobe::gzip_text(whole.text), {}).text != whole.text)
    __builtin_trap();
  return 0;
}
