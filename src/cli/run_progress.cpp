// The progress line of a whole run: which probe of how many, which point, time spent and left.
#include "run_progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuprobe::cli {

RunProgress::RunProgress(std::size_t runs, Clock::time_point start)
    : runs_(std::max<std::size_t>(runs, 1)), start_(start) {}

void RunProgress::run_done() {
  if (finished_ < runs_) ++finished_;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

namespace {

// Columns of UTF-8 text: one per code point (the line holds no wide characters).
std::size_t columns(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// The first `keep` code points of `text`.
std::string first_columns(const std::string& text, std::size_t keep) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (seen++ == keep) return text.substr(0, i);
  }
  return text;
}

}  // namespace

std::string RunProgress::line(const std::string& probe, std::size_t done, std::size_t total,
                              const std::string& label, Clock::time_point now,
                              std::size_t width) const {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double within =
      total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;
  // Every run weighs the same: probes differ in length, so the estimate is rough, and says so.
  const double fraction =
      std::min(1.0, (static_cast<double>(finished_) + within) / static_cast<double>(runs_));
  const std::string left =
      fraction > 0.02 && elapsed >= 1.0
          ? fmt::format(" · ~{} left", clock_text(elapsed / fraction - elapsed))
          : std::string();
  const std::string which =
      runs_ > 1 ? fmt::format("probe {}/{} ", std::min(finished_ + 1, runs_), runs_) : "";
  const std::string head =
      fmt::format("[{}{}] {}/{} ", which, probe, done + 1, std::max(total, done + 1));
  const std::string tail = fmt::format(" · {}{}", clock_text(elapsed), left);
  // The label gives way first: the counts and times always show.
  const std::size_t fixed = columns(head) + columns(tail);
  const std::size_t room = width > fixed ? width - fixed : 0;
  std::string shown = label;
  if (columns(shown) > room) shown = room > 3 ? first_columns(shown, room - 3) + "..." : "";
  return head + shown + tail;
}

}  // namespace gpuprobe::cli
