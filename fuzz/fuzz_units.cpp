// Fuzz target: the size, count, share and list parsers (--sizes, --strides, --max-noise ...).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the list's options; the rest is the text.
  const std::uint8_t mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  gpuprobe::ListOptions options;
  options.kind = (mode & 1) != 0 ? gpuprobe::ListKind::kInt : gpuprobe::ListKind::kSize;
  options.allow_zero = (mode & 2) != 0;
  options.max_items = (mode & 4) != 0 ? 4096 : 16;
  try {
    (void)gpuprobe::parse_size(text);
  } catch (const gpuprobe::UsageError&) {
  }
  try {
    (void)gpuprobe::parse_int(text);
  } catch (const gpuprobe::UsageError&) {
  }
  try {
    const auto list = gpuprobe::parse_list(text, options);
    if (list.size() > options.max_items) __builtin_trap();  // the bound must hold
    for (auto v : list) {
      if (v == 0 && !options.allow_zero) __builtin_trap();
    }
  } catch (const gpuprobe::UsageError&) {
  }
  (void)gpuprobe::parse_share(text);
  return 0;
}
