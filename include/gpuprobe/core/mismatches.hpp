// What verification found: wrong words counted with the first one's index, and the words for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe {

// How many words (elements, thread sums, ...) of a checked buffer are wrong, and the lowest index
// among them (meaningful when count > 0).
struct Mismatches {
  std::uint64_t count = 0;
  std::uint64_t first = 0;
};

// Checks indices [0, n) on the host: `wrong(i)` is true where index i holds a wrong value.
template <typename Wrong>
Mismatches find_mismatches(std::uint64_t n, Wrong wrong) {
  Mismatches m;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!wrong(i)) continue;
    if (m.count++ == 0) m.first = i;
  }
  return m;
}

// An Operation::verify's answer for one checked buffer: "" when nothing is wrong, else
// "<what>: 3 of 1024 <unit> wrong, the first at index 17" (no "<what>: " when `what` is empty).
std::string mismatch_text(std::string_view what, const Mismatches& found, std::uint64_t total,
                          std::string_view unit = "words");

// An Operation::verify's answer, built one checked buffer at a time:
//   MismatchReport r;
//   r.add("h2d", runtime::verify_pattern_device(dst, bytes, seed, stream), bytes / 4);
//   return r.text();  // "" when every buffer was right
// Each wrong buffer reads as mismatch_text says; parts are joined with "; ".
class MismatchReport {
 public:
  void add(std::string_view what, const Mismatches& found, std::uint64_t total,
           std::string_view unit = "words");
  std::string text() const;

 private:
  std::vector<std::string> parts_;
};

}  // namespace gpuprobe
