// zerocopy's words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <string>

#include "analysis.hpp"
#include "gpuprobe/core/counter_check.hpp"

namespace gpuprobe::zerocopy {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"model.link_bytes_per_payload", "link/pay",
     "model: PCIe bytes (TLP data + headers) in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter", "ctr link/pay",
     "counters: PCIe bytes in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter_vs_model", "ctr/mdl", "counters / model, link bytes"},
    {"bytes_per_access_counter", "B/access",
     "counters: PCIe bytes per element access (isolated accesses only)"},
    {"bytes_in_flight", "in flight", "bytes the grid has requested at once: blocks x 256 x 4 x w"},
    {"summary.break_even_reuse", "break-even",
     "reuse count where the copy starts to win (interpolated; blank: no crossing measured)"},
    {"summary.copy_over_zerocopy_first", "zc gain@min",
     "copy time / zero-copy time at the smallest reuse"},
    {"summary.copy_over_zerocopy_last", "zc gain@max",
     "copy time / zero-copy time at the largest reuse"},
};

// "16 B" (row params read back from JSON carry no unit: the width is said in bytes either way).
std::string width_text(const Finding& f) {
  std::string width = param_text_of(f, "element_bytes");
  if (width.find('B') == std::string::npos) width += " B";
  return width;
}

// "hostalloc read, 16 B, stride 1" from a finding's pattern params.
std::string pattern_text(const Finding& f) {
  const std::string width = width_text(f);
  return fmt::format("{} {}, {}, stride {}", param_text_of(f, "memory"),
                     param_text_of(f, "direction"), width, param_text_of(f, "stride"));
}

std::string break_even_text(const Finding& f) {
  const std::string result = param_text_of(f, "result");
  const std::string gains =
      fmt::format("copy time / zero-copy time {:.2f}x at reuse {:g}, {:.2f}x at {:g}",
                  value_of(f, "speedup_first"), value_of(f, "min_reuse"),
                  value_of(f, "speedup_last"), value_of(f, "max_reuse"));
  if (result == "crossing")
    return fmt::format("{}: break-even at reuse {:.1f} (measured crossing, interpolated); {}",
                       pattern_text(f), value_of(f, "break_even_reuse"), gains);
  if (result == "zerocopy-wins")
    return fmt::format("{}: zero-copy wins at every reuse up to {:g}, no break-even measured; {}",
                       pattern_text(f), value_of(f, "max_reuse"), gains);
  if (result == "alike-then-copy")
    return fmt::format(
        "{}: zero-copy and the copy are alike within noise up to reuse {:g} (no winner there), "
        "the copy wins from the next reuse on; {}",
        pattern_text(f), value_of(f, "alike_until"), gains);
  if (result == "alike")
    return fmt::format(
        "{}: zero-copy and the copy are alike within noise at every reuse up to "
        "{:g}; {}",
        pattern_text(f), value_of(f, "max_reuse"), gains);
  return fmt::format("{}: the copy wins already at reuse {:g}, no break-even measured; {}",
                     pattern_text(f), value_of(f, "min_reuse"), gains);
}

std::string stride_text(const Finding& f) {
  const std::string width = width_text(f);
  const auto counter = optional_value_of(f, "link_bytes_per_payload");
  const auto link = optional_value_of(f, "link_bandwidth");
  const auto base_link = optional_value_of(f, "base_link_bandwidth");
  const std::string measured =
      counter
          ? fmt::format("counters {:.2f} (stride 1: {:.2f}) PCIe bytes per payload byte", *counter,
                        optional_value_of(f, "base_link_bytes_per_payload").value_or(0))
          : std::string("no counters");
  const std::string links =
      link && base_link ? fmt::format("; the link carried {:.1f} GB/s vs {:.1f} GB/s at stride 1",
                                      *link, *base_link)
                        : std::string();
  const std::string tlps =
      fmt::format("; {:.0f} M TLPs/s vs {:.0f} M at stride 1 (model TLPs)",
                  value_of(f, "tlp_rate") / 1e6, value_of(f, "base_tlp_rate") / 1e6);
  return fmt::format(
      "{} zero-copy {}, {}, stride {}: {} vs {} at stride 1 ({:.3f}x); if link-bound the model "
      "predicts {:.3f}x ({:.2f} PCIe bytes per payload byte); {}{}{}",
      param_text_of(f, "memory"), param_text_of(f, "direction"), width, param_text_of(f, "stride"),
      value_text(f, "bandwidth"), value_text(f, "base_bandwidth"), value_of(f, "relative"),
      value_of(f, "model_relative"), value_of(f, "model_link_bytes_per_payload"), measured, links,
      tlps);
}

std::string in_flight_text(const Finding& f) {
  const auto reached = optional_value_of(f, "reached_blocks");
  const std::string where =
      reached ? fmt::format("{:.0f}% of it from {:g} block{} ({} in flight)",
                            value_of(f, "reached_fraction"), *reached, *reached == 1 ? "" : "s",
                            value_text(f, "reached_in_flight"))
              : std::string("no grid of the sweep reached 90% of it");
  return fmt::format(
      "bytes in flight ({} zero-copy {}, {}): {} block{} ({} in flight) reach {}, so the loaded "
      "latency is {} (Little's law); {} needs {} in flight; {}",
      param_text_of(f, "memory"), param_text_of(f, "direction"), width_text(f),
      value_of(f, "smallest_blocks"), value_of(f, "smallest_blocks") == 1 ? "" : "s",
      value_text(f, "smallest_in_flight"), value_text(f, "smallest_bandwidth"),
      value_text(f, "latency"), value_text(f, "peak_bandwidth"), value_text(f, "needed_in_flight"),
      where);
}

void add_finding_phrasings(Glossary& g) {
  g.add_phrasing("zerocopy_once_vs_memcpy", [](const Finding& f) {
    const auto copy = optional_value_of(f, "copy_mode_bandwidth");
    return fmt::format(
        "{} {} once, coalesced {}: zero-copy {} vs the {} cudaMemcpyAsync alone {} ({:.2f}x){}",
        param_text_of(f, "memory"), param_text_of(f, "direction"), width_text(f),
        value_text(f, "zerocopy_bandwidth"),
        param_text_of(f, "direction") == "write" ? "D2H" : "H2D", value_text(f, "memcpy_bandwidth"),
        value_of(f, "ratio"),
        copy ? fmt::format("; copy + kernel {}", value_text(f, "copy_mode_bandwidth")) : "");
  });
  g.add_phrasing("zerocopy_break_even", break_even_text);
  g.add_phrasing("zerocopy_stride_collapse", stride_text);
  g.add_phrasing("zerocopy_in_flight", in_flight_text);
  g.add_phrasing("zerocopy_access_bytes", [](const Finding& f) {
    const auto range = [&](const char* lo, const char* hi) {
      return value_text(f, lo) == value_text(f, hi)
                 ? value_text(f, lo)
                 : fmt::format("{} to {}", value_text(f, lo), value_text(f, hi));
    };
    const bool read = param_text_of(f, "direction") == "read";
    const auto fetch = optional_value_of(f, "fetch_granularity");
    return fmt::format(
        "counters: an isolated zero-copy {} (elements {:g} B or more apart) puts {} on PCIe per "
        "access ({:g} rows); the model says {}: {} plus a {} TLP header{}",
        param_text_of(f, "direction"), value_of(f, "spacing_from"), range("min", "max"),
        value_of(f, "rows"), range("model_min", "model_max"),
        read ? "one 32-B sector" : "the element's own bytes", value_text(f, "header"),
        read && fetch ? fmt::format(" (not the {} L2 fetch granularity of DRAM)",
                                    value_text(f, "fetch_granularity"))
                      : std::string());
  });
  g.add_phrasing("zerocopy_sizing", [](const Finding& f) {
    return fmt::format(
        "sizing: every row's elements lie in one {} host buffer (--bytes); stride s reads every "
        "s-th element (payload = span / s), so strided rows move less data; the copy mode copies "
        "the whole span{}",
        value_text(f, "span"),
        optional_value_of(f, "l2")
            ? fmt::format(" ({:.2f}x the {} L2)", value_of(f, "span") / value_of(f, "l2"),
                          value_text(f, "l2"))
            : std::string());
  });
}

}  // namespace

void add_words(Glossary& g) {
  add_finding_phrasings(g);
  CounterCheck::add_phrasings(g, "zerocopy_counter_link_bytes", "PCIe bytes per payload byte",
                              [](const Finding& f) {
                                return fmt::format("{} {}, reuse {}", param_text_of(f, "mode"),
                                                   pattern_text(f), param_text_of(f, "reuse"));
                              });
  g.add_terms("zerocopy", kTerms);
}

}  // namespace gpuprobe::zerocopy
