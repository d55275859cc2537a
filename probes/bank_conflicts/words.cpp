// bank-conflicts' words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_check.hpp"

namespace gpuprobe::bank {
namespace {

std::string outcome_words(const std::string& outcome) {
  if (outcome == "faster" || outcome == "slower") return outcome;
  if (outcome == "same") return "the same within noise";
  if (outcome == "inconclusive") return "not told apart by the noise (inconclusive)";
  return "not comparable";
}

// The source claim's decision: "yes", "no" or "straddles" (the noise reaches across the band).
std::string claim_words(const std::string& holds) {
  if (holds == "yes") return "holds";
  if (holds == "no") return "does not hold";
  return "undecided: the noise reaches across the band's edge";
}

// "1.00x (1)" for a slowdown and its model.
std::string measured_vs_model(const Finding& f, const std::string& label) {
  return fmt::format("{:.2f}x ({:g})", value_of(f, label + "_slowdown"),
                     value_of(f, label + "_model"));
}

constexpr const char* kProbe = "bank-conflicts";
constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"wavefronts_per_request_counter", "wf ctr",
     "counters: shared wavefronts / instructions of the row's op, one launch"},
    {"wavefronts_per_request_counter_vs_model", "wf c/m",
     "wf ctr / the model's wavefronts per request"},
    {"load_wavefronts_per_request_counter", "ld ctr",
     "counters: shared-load wavefronts / load instructions, one launch"},
    {"load_wavefronts_per_request_counter_vs_model", "ld c/m",
     "ld ctr / the model's wavefronts per column read"},
    {"store_wavefronts_per_request_counter", "st ctr",
     "counters: shared-store wavefronts / store instructions, one launch"},
    {"store_wavefronts_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's wavefronts per row write"},
    {"load_wavefronts_per_request", "ld wf",
     "model: shared wavefronts per column read of the tile (with counters)"},
    {"store_wavefronts_per_request", "st wf",
     "model: shared wavefronts per row write of the tile (with counters)"},
    {"time_per_instruction", "t/instr", "time per warp-wide shared instruction per SM, median"},
    {"relative_to_copy", "vs copy", "bandwidth / bandwidth of copy"},
    {"slowdown", "slowdown", "time_per_instruction / that at stride 1 (same op, width)"},
    {"cycles_per_request", "cyc/req",
     "time_per_instruction x the SM clock sampled around the sweep"},
    {"conflict_ways", "ways",
     "model: n-way bank conflict (ladder: the larger of loads and stores)"},
    {"load_conflict_ways", "ld ways", "model: n-way conflict of the tile's loads"},
    {"store_conflict_ways", "st ways", "model: n-way conflict of the tile's stores"},
    {"wavefronts_per_request", "wf/req", "model: shared-memory wavefronts per warp instruction"},
    {"predicted_slowdown", "pred x", "model: wavefronts / wavefronts at stride 1 (same op, width)"},
    {"bandwidth_ratio", "ratio", "bandwidth of one kernel / that of the other"},
    {"stride1_bandwidth", "s1 GB/s", "bandwidth at stride 1"},
    {"stride1_cycles_per_request", "s1 cyc", "cycles_per_request at stride 1"},
    {"max_slowdown", "max x", "largest measured slowdown vs stride 1"},
    {"model_max_slowdown", "model x", "model: largest predicted slowdown"},
    {"element_bytes", "B", "element width, bytes"},
};

// The sentences of the ladder's findings.
void add_ladder_phrasings(Glossary& g) {
  g.add_phrasing("bank_padded_vs_tiled", [](const Finding& f) {
    return fmt::format(
        "padded [32][33]: {:.0f} GB/s = {:.0f}% of copy ({:.0f} GB/s); tiled [32][32]: {:.0f} "
        "GB/s = {:.0f}% of copy; padded is {:.2f}x tiled, {} (model: column reads {:.0f}-way -> "
        "{:.0f}-way)",
        value_of(f, "padded_bandwidth"), 100 * value_of(f, "padded_over_copy"),
        value_of(f, "copy_bandwidth"), value_of(f, "tiled_bandwidth"),
        100 * value_of(f, "tiled_over_copy"), value_of(f, "padded_over_tiled"),
        outcome_words(param_text_of(f, "outcome")), value_of(f, "tiled_column_read_ways"),
        value_of(f, "padded_column_read_ways"));
  });
  g.add_phrasing("bank_swizzled_vs_padded", [](const Finding& f) {
    return fmt::format("swizzled (XOR, no padding): {:.0f} GB/s = {:.3f}x padded, {}",
                       value_of(f, "swizzled_bandwidth"), value_of(f, "swizzled_over_padded"),
                       outcome_words(param_text_of(f, "outcome")));
  });
  g.add_phrasing("bank_source_claim", [](const Finding& f) {
    return fmt::format(
        "source claim \"the first three (copy, naive, tiled) are basically the same\": naive "
        "{:.0f}%, tiled {:.0f}% of copy — {} on this GPU (measured, +-{:g}% band)",
        100 * value_of(f, "naive_over_copy"), 100 * value_of(f, "tiled_over_copy"),
        claim_words(param_text_of(f, "holds")), value_of(f, "band"));
  });
  g.add_phrasing("bank_copy_repeat", [](const Finding& f) {
    std::string repeat = "copy was not measured again";
    if (optional_value_of(f, "repeat_bandwidth"))
      repeat = fmt::format(
          "copy again at the end: {:g} samples, median {:.0f} GB/s = {:.3f}x the "
          "first, {}",
          value_of(f, "repeat_samples"), value_of(f, "repeat_bandwidth"),
          value_of(f, "repeat_over_copy"), outcome_words(param_text_of(f, "outcome")));
    return fmt::format(
        "ladder: kernels measured one after another in the order copy, naive, tiled, padded, "
        "swizzled, then copy again (each after its own warm-up batch); copy, the baseline of "
        "relative_to_copy and of the ratios: {:g} samples, {:.0f}-{:.0f} GB/s (noise within this "
        "run, not the variation between runs); {}",
        value_of(f, "copy_samples"), value_of(f, "copy_min"), value_of(f, "copy_max"), repeat);
  });
  g.add_phrasing("bank_transpose_beats_copy", [](const Finding& f) {
    return fmt::format(
        "ladder: {} ran at {:.2f}x copy, beyond the noise of both: in this run copy is not an "
        "upper bound for the transposes, so relative_to_copy is not a fraction of a roofline here",
        param_text_of(f, "kernel"), value_of(f, "over_copy"));
  });
  g.add_phrasing("bank_ladder_fits_l2", [](const Finding& f) {
    return fmt::format(
        "ladder: the two matrices ({}) are not much larger than L2 ({}): copy and transposes may "
        "partly run from L2; use --size 8192 or more for DRAM behaviour",
        value_text(f, "working_set"), value_text(f, "l2"));
  });
}

// The sentences of the stride sweep's findings.
void add_stride_phrasings(Glossary& g) {
  g.add_phrasing("bank_stride_slowdowns", [](const Finding& f) {
    std::vector<std::string> items;
    for (const auto& [label, words] :
         {std::pair<std::string, std::string>{"broadcast", "broadcast"},
          {"stride2", "s2"},
          {"stride32", "s32"}}) {
      if (optional_value_of(f, label + "_slowdown"))
        items.push_back(fmt::format("{} {}", words, measured_vs_model(f, label)));
    }
    if (optional_value_of(f, "odd_slowdown_min")) {
      const double lo = value_of(f, "odd_slowdown_min");
      const double hi = value_of(f, "odd_slowdown_max");
      // One value when every odd stride measured the same slowdown.
      items.push_back(
          lo == hi ? fmt::format("odd {:.2f}x ({:g})", lo, value_of(f, "odd_model"))
                   : fmt::format("odd {:.2f}-{:.2f}x ({:g})", lo, hi, value_of(f, "odd_model")));
    }
    return fmt::format("{}s, slowdown vs stride 1 measured (model): {}: {}", param_text_of(f, "op"),
                       param_text_of(f, "element_bytes"), fmt::join(items, ", "));
  });
  g.add_phrasing("bank_stride_model_agreement", [](const Finding& f) {
    return fmt::format(
        "stride sweep: measured slowdown within {:g}% of the model on {:g} of {:g} "
        "rows",
        value_of(f, "tolerance"), value_of(f, "rows_within"), value_of(f, "rows_compared"));
  });
  g.add_phrasing("bank_stride_model_miss", [](const Finding& f) {
    return fmt::format(
        "stride sweep, far from the model: {} {} stride {}: {:.2f}x vs {:g}x ({:.0f}% "
        "off)",
        param_text_of(f, "element_bytes"), param_text_of(f, "op"), param_text_of(f, "stride"),
        value_of(f, "slowdown"), value_of(f, "predicted_slowdown"), value_of(f, "off"));
  });
  g.add_phrasing("bank_no_stride1", [](const Finding&) {
    return std::string("stride sweep: no stride 1 in --strides, so no slowdown is derived");
  });
  g.add_phrasing("bank_stride_shape", [](const Finding& f) {
    std::string launch;
    if (optional_value_of(f, "launch_time_stride1"))
      launch = fmt::format("; {} per launch at stride 1", value_text(f, "launch_time_stride1"));
    return fmt::format(
        "stride kernel, {} {}: one wave on {:g} SMs, {:g} blocks ({:g}/SM) of {:g} threads x {:g} "
        "instructions per warp{}",
        param_text_of(f, "element_bytes"), param_text_of(f, "op"), value_of(f, "sm_count"),
        value_of(f, "blocks"), value_of(f, "blocks_per_sm"), value_of(f, "threads_per_block"),
        value_of(f, "instructions_per_warp"), launch);
  });
  g.add_phrasing("bank_cycles_method", [](const Finding& f) {
    return fmt::format(
        "cycles_per_request = time_per_instruction x the SM clock {} ({:.0f} MHz); the model "
        "expects 1 cycle per wavefront (32 banks x 4 B per clock per SM)",
        param_text_of(f, "sampled") == "true" ? "sampled in-kernel around the sweep"
                                              : "rated maximum (not sampled)",
        value_of(f, "sm_clock"));
  });
  g.add_phrasing("bank_counters_not_collected", [](const Finding&) {
    return std::string(
        "no row has shared-memory counters in this run (--no-counters, or the GPU refused "
        "them): the model's wavefronts per request stand unchecked; without the counter pass, "
        "compare them with l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} in Nsight "
        "Compute");
  });
}

// The sentences of the counters beside the model.
void add_counter_phrasings(Glossary& g) {
  CounterCheck::add_phrasings(g, "bank_counter_ladder_loads",
                              "ladder shared-load wavefronts per instruction",
                              [](const Finding& f) { return param_text_of(f, "kernel"); });
  CounterCheck::add_phrasings(g, "bank_counter_ladder_stores",
                              "ladder shared-store wavefronts per instruction",
                              [](const Finding& f) { return param_text_of(f, "kernel"); });
  CounterCheck::add_phrasings(
      g, "bank_counter_stride", "stride sweep shared wavefronts per instruction",
      [](const Finding& f) {
        // Row params read back from JSON carry no unit: the width is said in bytes either way.
        std::string width = param_text_of(f, "element_bytes");
        if (width.find('B') == std::string::npos) width += " B";
        return fmt::format("{} {}s stride {}", width, param_text_of(f, "op"),
                           param_text_of(f, "stride"));
      });
}

}  // namespace

void add_words(Glossary& g) {
  add_ladder_phrasings(g);
  add_stride_phrasings(g);
  add_counter_phrasings(g);
  g.add_terms(kProbe, kTerms);
}

}  // namespace gpuprobe::bank
