// coalescing's words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/compare_classify.hpp"
#include "gpuprobe/core/counter_check.hpp"

namespace gpuprobe::coalescing {
namespace {

// "offset 4, 4 B", and the points alike to it within noise when there are any.
std::string point_text(const Finding& f, const std::string& prefix) {
  const std::string alike =
      find_param(f.outcome, prefix + "_alike_with") ? param_text_of(f, prefix + "_alike_with") : "";
  return fmt::format("{} {}, {}{}", param_text_of(f, prefix + "_pattern"),
                     param_text_of(f, prefix + "_at"), param_text_of(f, prefix + "_element_bytes"),
                     alike.empty() ? ""
                                   : fmt::format("; alike within noise or {:g}%: {}",
                                                 kDefaultSameWithin * 100, alike));
}

// "1 line", "2 lines".
std::string count_of(double n, const char* what) {
  return fmt::format("{:g} {}{}", n, what, n == 1 ? "" : "s");
}

// A list param's items for a sentence: "1, 2, 4".
std::string spaced(const Finding& f, const char* key) {
  return fmt::format("{}", fmt::join(list_items_of(f.params, key).value_or(TextList{}), ", "));
}

// " (0.86-0.93x)", or "" when both ends print the same.
std::string range_text(double lo, double hi) {
  const std::string a = fmt::format("{:.2f}", lo), b = fmt::format("{:.2f}", hi);
  return a == b ? "" : fmt::format(" ({}-{}x)", a, b);
}

std::string offset_class_text(const Finding& f) {
  const double n = value_of(f, "count");
  const double sectors = value_of(f, "sectors_per_request");
  const double lines = value_of(f, "lines_per_request");
  const double bs = value_of(f, "baseline_sectors");
  const double bl = value_of(f, "baseline_lines");
  const std::string offsets = param_text_of(f, "offsets");
  std::string who;
  if (n <= 6) {
    who = fmt::format("offset{} {}", n == 1 ? "" : "s", spaced(f, "offsets"));
  } else {
    const char* how = sectors > bs ? "not 32-B aligned"
                      : lines > bl ? "32-B but not 128-B aligned"
                                   : "128-B aligned";
    who = fmt::format("{:g} offsets {}", n, how);
  }
  const double dram_lo = value_of(f, "model_dram_min"), dram_hi = value_of(f, "model_dram_max");
  const std::string dram = dram_hi - dram_lo < 0.005
                               ? fmt::format("{:.2f}x", dram_hi)
                               : fmt::format("{:.2f}-{:.2f}x", dram_lo, dram_hi);
  // Offset 0 standing for its own class needs no comparison with itself.
  const std::string baseline =
      offsets == "0"
          ? ""
          : fmt::format("; offset 0: {}, {}", count_of(bs, "sector"), count_of(bl, "line"));
  return fmt::format(
      "{} {} ({}, {} per warp load{}): {:.2f}x offset 0{}; model: sectors {:.2f}x, DRAM ({:g}-B "
      "fetches) {}",
      param_text_of(f, "element_bytes"), who, count_of(sectors, "sector"), count_of(lines, "line"),
      baseline, value_of(f, "relative_mean"),
      range_text(value_of(f, "relative_min"), value_of(f, "relative_max")),
      value_of(f, "model_relative"), value_of(f, "fetch_bytes"), dram);
}

std::string strides_text(const Finding& f) {
  struct Shown {
    double stride, relative, model, dram;
  };
  std::vector<Shown> shown;
  for (const char* role : {"stride_2", "sector_stride", "fetch_stride", "largest_stride"}) {
    const std::string name = role;
    const std::string suffix = name == "stride_2" ? "_stride_2" : "_" + name;
    const auto r = optional_value_of(f, "relative" + suffix);
    if (!r) continue;
    shown.push_back({name == "stride_2" ? 2.0 : value_of(f, name), *r,
                     value_of(f, "model" + suffix), value_of(f, "model_dram" + suffix)});
  }
  std::sort(shown.begin(), shown.end(),
            [](const Shown& a, const Shown& b) { return a.stride < b.stride; });
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i > 0 && shown[i].stride == shown[i - 1].stride) continue;
    parts.push_back(fmt::format("{:.2f}x at {}{:.0f} ({:.2f}x, {:.2f}x)", shown[i].relative,
                                parts.empty() ? "stride " : "", shown[i].stride, shown[i].model,
                                shown[i].dram));
  }
  return fmt::format("{} strides, measured (sector model, DRAM model with {:g}-B fetches): {}",
                     param_text_of(f, "element_bytes"), value_of(f, "fetch_bytes"),
                     fmt::join(parts, ", "));
}

std::string leaves_model_text(const Finding& f) {
  // With no stride before the shortfall: "measured more than 10% below the DRAM model from ...".
  const std::string holds =
      optional_value_of(f, "holds_up_to")
          ? fmt::format(
                "measured/DRAM model {:.2f}-{:.2f}x up to stride {:.0f} (elements {:.0f} B "
                "apart), more than {:.0f}% below it",
                value_of(f, "ratio_min"), value_of(f, "ratio_max"), value_of(f, "holds_up_to"),
                value_of(f, "holds_up_to_spacing"), value_of(f, "shortfall"))
          : fmt::format("measured more than {:.0f}% below the DRAM model",
                        value_of(f, "shortfall"));
  return fmt::format(
      "{} strides: {} from stride {:.0f} ({:.0f} B apart), down to {:.2f}x at "
      "stride {:.0f}: a loss the model does not explain",
      param_text_of(f, "element_bytes"), holds, value_of(f, "short_from"),
      value_of(f, "short_from_spacing"), value_of(f, "lowest_ratio"), value_of(f, "lowest_at"));
}

constexpr const char* kProbe = "coalescing";
constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"sectors_per_request_counter", "sec ctr",
     "counters: global-load sectors / load requests (l1tex), one launch"},
    {"sectors_per_request_counter_vs_model", "sec c/m",
     "sec ctr / the model's sectors per warp load"},
    {"store_sectors_per_request_counter", "st ctr",
     "counters: global-store sectors / store requests (l1tex), one launch"},
    {"store_sectors_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's sectors per warp store (unit-stride, aligned)"},
    {"l2_sectors_per_request_counter", "L2 ctr",
     "counters: L2 sectors read by L1 / load requests: what L1 sends on"},
    {"l2_sectors_per_request_counter_vs_model", "L2 c/m", "L2 ctr / m.L2 sec"},
    {"l1_hit_sectors_per_request_counter", "L1 hit",
     "counters: load sectors that hit in L1 / load requests"},
    {"l2_sectors_per_request", "m.L2 sec",
     "model: sectors per warp load less the L1 hits counted (what L1 sends on)"},
    {"dram_read_bytes_per_useful_byte_counter", "rd ctr",
     "counters: DRAM bytes read / useful bytes read (N x width)"},
    {"dram_read_bytes_per_useful_byte_counter_vs_model", "rd c/m",
     "rd ctr / m.rd (agrees anywhere from m.rd to m.rd max)"},
    {"dram_read_bytes_per_useful_byte", "m.rd",
     "model: load fetch-block bytes per useful byte, a shared block fetched once"},
    {"dram_read_bytes_per_useful_byte_refetch", "m.rd max",
     "model: the same, a shared block fetched once per request touching it"},
    {"shared_blocks_refetched", "refetch",
     "(rd ctr - m.rd) / (m.rd max - m.rd): share of shared blocks fetched twice"},
    {"dram_write_bytes_per_useful_byte_counter", "wr ctr",
     "counters: DRAM bytes written in the launch's range + written back after it / N x width"},
    {"dram_write_bytes_per_useful_byte_counter_vs_model", "wr c/m", "wr ctr / m.wr"},
    {"dram_write_bytes_per_useful_byte", "m.wr",
     "model: store fetch-block bytes per useful byte written"},
    {"store_sectors_per_request", "st sec",
     "model: distinct 32-B sectors one warp store touches (with counters)"},
    {"element_bytes", "width", "element width in bytes"},
    {"relative_bandwidth", "rel", "bandwidth / that of offset 0 or stride 1 at the same width"},
    {"working_set_over_l2", "ws/L2", "distinct sectors in + out per launch x 32 B / L2 size"},
    {"implied_dram_bandwidth", "DRAM bw", "bandwidth x DRAM-model bytes per useful byte, GB/s"},
    {"sectors_per_request", "sec/req", "model: distinct 32-B sectors one warp load touches"},
    {"lines_per_request", "lin/req", "model: distinct 128-B lines one warp load touches"},
    {"sector_efficiency", "sec eff", "model: useful load bytes / loaded sector bytes"},
    {"predicted_relative_bandwidth", "model",
     "model: baseline ld+st sectors per request / this point's"},
    {"predicted_relative_bandwidth_dram", "DRAM mdl",
     "model: baseline DRAM fetch-block bytes per warp / this point's"},
    {"baseline_bandwidth", "base", "bandwidth of offset 0 / stride 1, GB/s"},
    {"misaligned_mean_relative", "misalign",
     "mean rel of offsets that load more sectors than offset 0"},
    {"model_misaligned_relative", "mdl mis", "sector model for those offsets"},
    {"model_dram_misaligned_relative", "DRAM mis", "DRAM model for those offsets"},
    {"line_misaligned_mean_relative", "line mis",
     "mean rel of 32-B aligned offsets touching more lines than offset 0"},
    {"line_aligned_mean_relative", "aligned",
     "mean rel of other offsets with offset 0's sectors and lines"},
    {"worst_relative_bandwidth", "worst", "lowest rel of the sweep"},
    {"worst_at", "at", "offset or stride of the worst rel, elements"},
    {"model_at_worst", "mdl@w", "sector model at the worst point"},
    {"model_dram_at_worst", "DRAM@w", "DRAM model at the worst point"},
};

// The sentences of the offset and stride sweeps' findings.
void add_sweep_phrasings(Glossary& g) {
  g.add_phrasing("coalescing_offset_class", offset_class_text);
  g.add_phrasing("coalescing_offset_sector_cost", [](const Finding& f) {
    return fmt::format("{} offsets, measured: {:g} vs {:g} sectors with {} each {:.2f}x",
                       param_text_of(f, "element_bytes"), value_of(f, "sectors"),
                       value_of(f, "fewer_sectors"), count_of(value_of(f, "lines"), "line"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_offset_line_cost", [](const Finding& f) {
    return fmt::format("{} offsets, measured: {:g} vs {:g} lines with {} each {:.2f}x",
                       param_text_of(f, "element_bytes"), value_of(f, "lines"),
                       value_of(f, "fewer_lines"), count_of(value_of(f, "sectors"), "sector"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_strides", strides_text);
  g.add_phrasing("coalescing_stride_dram_model_holds", [](const Finding& f) {
    return fmt::format("{} strides: measured/DRAM model {:.2f}-{:.2f}x at every stride",
                       param_text_of(f, "element_bytes"), value_of(f, "ratio_min"),
                       value_of(f, "ratio_max"));
  });
  g.add_phrasing("coalescing_stride_leaves_dram_model", leaves_model_text);
}

// The sentences of the findings over every point, and of a missing baseline.
void add_point_phrasings(Glossary& g) {
  g.add_phrasing("coalescing_worst_best", [](const Finding& f) {
    return fmt::format("worst/best measured: {:.1f} GB/s ({}) vs {:.1f} GB/s ({}) = {:.3f}x",
                       value_of(f, "worst_bandwidth"), point_text(f, "worst"),
                       value_of(f, "best_bandwidth"), point_text(f, "best"), value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_implied_dram", [](const Finding& f) {
    const auto lo = optional_value_of(f, "baseline_min");
    const auto hi = optional_value_of(f, "baseline_max");
    const auto peak = optional_value_of(f, "peak_estimate");
    return fmt::format(
        "implied DRAM traffic (bandwidth x DRAM-model bytes per useful byte, {:g}-B fetches): "
        "{}highest {:.0f} GB/s ({}), lowest {:.0f} GB/s ({}){}; the model's predictions assume it "
        "is the same everywhere",
        value_of(f, "fetch_bytes"),
        lo && hi ? fmt::format("{:.0f}-{:.0f} GB/s for the aligned unit-stride copies, ", *lo, *hi)
                 : std::string(),
        value_of(f, "highest"), point_text(f, "highest"), value_of(f, "lowest"),
        point_text(f, "lowest"), peak ? fmt::format(" (est. peak {:.0f} GB/s)", *peak) : "");
  });
  g.add_phrasing("coalescing_no_baseline", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format("{} {} of {} was not measured: no relative bandwidth for those rows",
                       pattern, param_text_of(f, pattern), param_text_of(f, "element_bytes"));
  });
}

// The sentences of what the driver reported and of dropped points.
void add_device_phrasings(Glossary& g) {
  g.add_phrasing("coalescing_l2_size_assumed", [](const Finding& f) {
    return fmt::format("the driver reports no L2 size: sized as if it were {}",
                       value_text(f, "l2_size"));
  });
  g.add_phrasing("coalescing_fetch_not_reported", [](const Finding& f) {
    return fmt::format(
        "the driver reports no L2 fetch granularity: the DRAM model uses {:g}-B fetches (the "
        "sector)",
        value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_fetch_adjusted", [](const Finding& f) {
    return fmt::format(
        "the driver reports an L2 fetch granularity of {:g} B: the DRAM model uses {:g} B (a "
        "power of two from 32 to 128)",
        value_of(f, "l2_fetch_granularity"), value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_dropped", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format(
        "{} {} at {} dropped: its input span does not fit the memory cap of {} ({:.0f}% of free "
        "memory) with a working set of at least {:g}x L2",
        pattern, param_text_of(f, pattern), param_text_of(f, "element_bytes"),
        value_text(f, "memory_cap"), value_of(f, "memory_cap_share"),
        value_of(f, "min_working_set"));
  });
}

// The sentences of how the run was sized.
void add_sizing_phrasings(Glossary& g) {
  g.add_phrasing("coalescing_clamped", [](const Finding& f) {
    const TextList strides = list_items_of(f.params, "strides").value_or(TextList{});
    const TextList elements = list_items_of(f.params, "elements").value_or(TextList{});
    std::vector<std::string> items;
    for (std::size_t i = 0; i < std::min(strides.size(), elements.size()); ++i)
      items.push_back(fmt::format("{} (N = {})", strides[i], elements[i]));
    return fmt::format(
        "{} strides {} ran with fewer elements than the default {:.0f} so the input span fits the "
        "memory cap of {}; their working set stays >= {:g}x L2 (flag 'clamped')",
        param_text_of(f, "element_bytes"), fmt::join(items, ", "), value_of(f, "default_elements"),
        value_text(f, "memory_cap"), value_of(f, "min_working_set"));
  });
  g.add_phrasing("coalescing_sizing", [](const Finding& f) {
    const auto ws = optional_value_of(f, "working_set_over_l2");
    return fmt::format(
        "sizing: N = {} elements for widths {} B ({} per direction, {:g}x the {} L2); offsets "
        "read N + offset elements, strides (N - 1) x stride + 1{}",
        spaced(f, "elements"), spaced(f, "widths"), value_text(f, "bytes_per_direction"),
        value_of(f, "l2_multiple"), value_text(f, "l2_size"),
        ws ? fmt::format("; the smallest working set (distinct sectors in + out per launch) is "
                         "{:.1f}x L2",
                         *ws)
           : "");
  });
  g.add_phrasing("coalescing_baseline_added", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format(
        "{} {} was not asked for and was measured as the baseline of widths {} B (flag "
        "'baseline')",
        pattern, pattern == "offset" ? 0 : 1, spaced(f, "widths"));
  });
}

// The sentences of what the model and the columns mean, and of --plan.
void add_model_phrasings(Glossary& g) {
  g.add_phrasing("coalescing_model", [](const Finding&) {
    return std::string(
        "model: sectors_per_request / lines_per_request = distinct 32-B sectors / 128-B lines "
        "one warp's load touches (stores are aligned and unit-stride); "
        "predicted_relative_bandwidth counts load + store sectors per request, as L1 sends them "
        "to L2 (lines are shown, not used in a prediction); predicted_relative_bandwidth_dram "
        "counts distinct G-byte DRAM fetch blocks (G = the L2 fetch granularity) per run of "
        "warps, loads + stores: a block neighbouring warps share is fetched once, an element "
        "alone in its block costs G bytes");
  });
  g.add_phrasing("coalescing_implied_dram_meaning", [](const Finding&) {
    return std::string(
        "implied_dram_bandwidth = bandwidth x DRAM-model bytes per useful byte: the DRAM traffic "
        "rate the measurement implies if the model's byte count is right; the model assumes it "
        "is the same at every point, so where it moves, something the model does not count "
        "(DRAM row locality, bank/channel interleaving, read/write turnaround, TLB reach) is at "
        "work; which one, this probe cannot tell");
  });
  g.add_phrasing("coalescing_plan_fetch", [](const Finding& f) {
    return fmt::format(
        "--plan has no device: predicted_relative_bandwidth_dram uses {:g}-B fetches (the "
        "sector); a run uses the device's L2 fetch granularity (cudaLimitMaxL2FetchGranularity; "
        "an H100 reports 64 B), which lowers it for strides that put elements 64 B or more apart",
        value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_plan_sizing", [](const Finding& f) {
    return fmt::format(
        "sizes are chosen on the device: N x element bytes >= {:g}x L2 per direction at offset "
        "0 / stride 1 (--l2-multiple); large strides may run with a smaller N or be dropped to "
        "stay within {:.0f}% of free device memory",
        value_of(f, "l2_multiple"), value_of(f, "memory_cap_share"));
  });
}

// The sentences of the counters beside the model.
void add_counter_phrasings(Glossary& g) {
  // Counters beside the model: the row a finding names is its worst (or, agreeing, its most
  // deviating) row.
  // (Row params read back from JSON carry no unit: the width is said in bytes either way.)
  const auto point = [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    std::string width = param_text_of(f, "element_bytes");
    if (width.find('B') == std::string::npos) width += " B";
    return fmt::format("{} {}, {}", pattern, param_text_of(f, pattern), width);
  };
  CounterCheck::add_phrasings(g, "coalescing_counter_load_sectors",
                              "global-load sectors per request (l1tex)", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_store_sectors",
                              "global-store sectors per request (l1tex)", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_l2_sectors",
                              "L2 read sectors from L1 per load request", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_dram_read",
                              "DRAM bytes read per useful byte (model: each shared 64-B block "
                              "fetched once to once per request)",
                              point);
  CounterCheck::add_phrasings(g, "coalescing_counter_dram_write",
                              "DRAM bytes written per useful byte (in the range + written back "
                              "after it)",
                              point);
}

}  // namespace

void add_words(Glossary& g) {
  add_sweep_phrasings(g);
  add_point_phrasings(g);
  add_device_phrasings(g);
  add_sizing_phrasings(g);
  add_model_phrasings(g);
  add_counter_phrasings(g);
  g.add_terms(kProbe, kTerms);
}

}  // namespace gpuprobe::coalescing
