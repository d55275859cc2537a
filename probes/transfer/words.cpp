// transfer's words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <string>

#include "analysis.hpp"

namespace gpuprobe::transfer {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"link_bytes_per_payload", "link/pay",
     "counters: PCIe bytes in the copy's direction(s) / payload bytes"},
    {"reverse_link_bytes_per_payload", "rev/pay",
     "counters: PCIe bytes in the other direction / payload bytes"},
    {"model.fit_bandwidth", "fit",
     "model: the fitted t = latency + bytes/bandwidth at this size, GB/s"},
    {"bandwidth_h2d", "h2d GB/s", "bandwidth of bidir's h2d lane"},
    {"bandwidth_d2h", "d2h GB/s", "bandwidth of bidir's d2h lane"},
    {"summary.fit_bandwidth", "fit GB/s", "asymptotic bandwidth of the fit"},
    {"summary.half_bandwidth_size", "half-bw size",
     "size reaching half the fit bandwidth (per direction)"},
    {"summary.fit_rms_error", "fit err", "rms relative error of the fit"},
    {"summary.largest_size_bandwidth", "GB/s @max", "measured bandwidth at the largest size"},
};

std::string link_bytes_text(const Finding& f) {
  const auto range = [&](const char* lo, const char* hi) {
    const double a = value_of(f, lo), b = value_of(f, hi);
    return fmt::format("{:.3f}{}x", a,
                       fmt::format("{:.3f}", a) == fmt::format("{:.3f}", b)
                           ? std::string()
                           : fmt::format("-{:.3f}", b));
  };
  const double large = value_of(f, "large_rows");
  const std::string big =
      large > 0
          ? fmt::format("{} on the {:g} row{} of {} and more; ", range("large_min", "large_max"),
                        large, large == 1 ? "" : "s", value_text(f, "large_from"))
          : std::string();
  const double n = value_of(f, "rows");
  return fmt::format(
      "PCIe counters: bytes on the link / payload {}{} over {} {:g} row{} with counters "
      "(highest: "
      "{} {} {}); no model predicts it: the counters count payload at 512-B granularity, "
      "device-wide, so about 1 is expected where the copy dwarfs other traffic",
      big, range("min", "max"), n == 1 ? "the" : "all", n, n == 1 ? "" : "s",
      param_text_of(f, "memory"), param_text_of(f, "direction"), param_text_of(f, "bytes"));
}

}  // namespace

void add_words(Glossary& g) {
  g.add_phrasing("transfer_pinned_over_pageable", [](const Finding& f) {
    return fmt::format("{}: pinned {} vs pageable {} at {} — pinned is {:.2f}x pageable (measured)",
                       param_text_of(f, "direction"), value_text(f, "pinned_bandwidth"),
                       value_text(f, "pageable_bandwidth"), param_text_of(f, "bytes"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("transfer_pinned_fit", [](const Finding& f) {
    return fmt::format("pinned {}: {} asymptotic, {} per copy, half of it reached at {}",
                       param_text_of(f, "direction"), value_text(f, "fit_bandwidth"),
                       value_text(f, "latency"), value_text(f, "half_bandwidth_size"));
  });
  g.add_phrasing("transfer_no_fit", [](const Finding& f) {
    return fmt::format("no fit for {} {}: {}", param_text_of(f, "memory"),
                       param_text_of(f, "direction"), param_text_of(f, "why"));
  });
  g.add_phrasing("transfer_pcie_link", [](const Finding& f) {
    return fmt::format(
        "link: PCIe gen {:g} x{:g} = {} per direction after line encoding, before packet "
        "overhead (model ceiling for h2d/d2h; bidir up to twice that)",
        value_of(f, "generation"), value_of(f, "lanes"), value_text(f, "raw_bandwidth"));
  });
  g.add_phrasing("transfer_pcie_link_unknown", [](const Finding&) {
    return std::string(
        "PCIe link speed/width not readable from sysfs here (VM?): no link ceiling shown");
  });
  g.add_phrasing("transfer_link_bytes", link_bytes_text);
  g.add_terms("transfer", kTerms);
}

}  // namespace gpuprobe::transfer
