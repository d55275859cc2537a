// PCIe TLP accounting of the zerocopy probe's access patterns (see zerocopy_model.hpp).
#include "gpuprobe/models/zerocopy_model.hpp"

#include <numeric>

namespace gpuprobe::models {
namespace {

constexpr auto kLine = static_cast<std::uint64_t>(kZeroCopyLineBytes);
constexpr auto kSector = static_cast<std::uint64_t>(kZeroCopySectorBytes);

LinkTraffic& operator+=(LinkTraffic& a, const LinkTraffic& b) {
  a.tlps += b.tlps;
  a.data_bytes += b.data_bytes;
  a.link_bytes += b.link_bytes;
  return a;
}

LinkTraffic times(LinkTraffic t, std::uint64_t k) {
  return {t.tlps * k, t.data_bytes * k, t.link_bytes * k};
}

// The TLPs of one line's worth of accesses: reads [lo, hi) sectors span, writes runs.
struct LineState {
  bool open = false;
  std::uint64_t line = 0;
  std::uint64_t first = 0;  // reads: first byte touched; writes: start of the current run
  std::uint64_t end = 0;    // one past the last byte touched
};

void close_read(LineState& s, LinkTraffic& t) {
  if (!s.open) return;
  const std::uint64_t lo = s.first / kSector * kSector;
  const std::uint64_t hi = (s.end + kSector - 1) / kSector * kSector;
  t += {1, hi - lo, hi - lo + kCompletionHeaderBytes};
  s.open = false;
}

void close_write(LineState& s, LinkTraffic& t) {
  if (!s.open) return;
  t += {1, s.end - s.first, s.end - s.first + kRequestHeaderBytes};
  s.open = false;
}

// The traffic of `count` elements from address 0 on (elements never straddle a line: the
// element width divides both the line and the spacing).
LinkTraffic walk(std::uint64_t count, std::uint64_t spacing, std::uint64_t width, bool write) {
  LinkTraffic t;
  LineState s;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = i * spacing;
    const std::uint64_t line = at / kLine;
    const bool joins = s.open && s.line == line && (!write || s.end == at);
    if (!joins) {
      if (write)
        close_write(s, t);
      else
        close_read(s, t);
      s = {true, line, at, at};
    }
    s.end = at + width;
  }
  if (write)
    close_write(s, t);
  else
    close_read(s, t);
  return t;
}

}  // namespace

std::uint64_t payload_bytes(const HostAccess& a) {
  return a.elements * static_cast<std::uint64_t>(a.element_bytes);
}

std::uint64_t span_bytes(const HostAccess& a) {
  if (a.elements == 0) return 0;
  const auto w = static_cast<std::uint64_t>(a.element_bytes);
  return (a.elements - 1) * a.stride * w + w;
}

LinkTraffic pass_traffic(const HostAccess& a, bool write) {
  if (a.elements == 0 || a.element_bytes <= 0) return {};
  const auto w = static_cast<std::uint64_t>(a.element_bytes);
  const std::uint64_t spacing = a.stride * w;
  // The line pattern repeats every lcm(spacing, line) bytes: count one period, then the rest.
  const std::uint64_t period_bytes = std::lcm(spacing, kLine);
  const std::uint64_t period = period_bytes / spacing;  // elements per period (<= 128)
  LinkTraffic t = times(walk(period, spacing, w, write), a.elements / period);
  t += walk(a.elements % period, spacing, w, write);
  return t;
}

LinkTraffic link_traffic(const HostAccess& a, bool write) {
  if (a.zero_copy) return times(pass_traffic(a, write), a.reuse);
  const std::uint64_t span = span_bytes(a);
  const auto tlp = static_cast<std::uint64_t>(kCopyTlpPayloadBytes);
  const std::uint64_t tlps = (span + tlp - 1) / tlp;
  const auto header =
      static_cast<std::uint64_t>(write ? kRequestHeaderBytes : kCompletionHeaderBytes);
  return {tlps, span, span + tlps * header};
}

double link_bytes_per_payload(const HostAccess& a, bool write) {
  const std::uint64_t payload = payload_bytes(a);
  if (payload == 0) return 0;
  return static_cast<double>(link_traffic(a, write).link_bytes) / static_cast<double>(payload);
}

}  // namespace gpuprobe::models
