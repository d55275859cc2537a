// Fuzz target: the expectation parser (--expect, --expect-file lines).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/expect.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::string origin = "--expect";
  try {
    (void)gpuprobe::parse_expectation(text, origin);
  } catch (const gpuprobe::UsageError& e) {
    // One line: the message may quote the text, but never a raw control character.
    for (const char* c = e.what(); *c != '\0'; ++c) {
      if (static_cast<unsigned char>(*c) < 0x20) __builtin_trap();
    }
  }
  return 0;
}
