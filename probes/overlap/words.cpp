// overlap's words (host-only): its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::overlap {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"model.model_pipeline", "pipe",
     "model: max(s) + (sum(s) - max(s))/n per chunk, solo stage times + per-chunk costs"},
    {"model.model_concurrent", "conc",
     "model: the pipeline with the copies at their concurrent times in the n-2 middle slots"},
    {"model.model_guide", "guide", "model: Best Practices Guide, max(tE,tT) + min(tE,tT)/n"},
    {"model.model_ideal", "ideal", "model: max(tH2D, tK, tD2H)"},
    {"speedup", "x seq", "sequential time / this time (medians)"},
    {"speedup_low", "lo", "95% interval of the speed-up, low (bootstrap over rounds)"},
    {"speedup_high", "hi", "95% interval of the speed-up, high"},
    {"efficiency", "eff", "(t_seq - t) / (t_seq - t_ideal): share of the saving possible"},
    {"time_vs_concurrent", "t/conc", "measured time / concurrent-rate model"},
    {"pcie_read_per_payload", "rd/pay", "counters: PCIe read bytes / buffer bytes"},
    {"pcie_write_per_payload", "wr/pay", "counters: PCIe write bytes / buffer bytes"},
    {"bandwidth_h2d", "h2d GB/s", "h2d lane of h2d+d2h"},
    {"bandwidth_d2h", "d2h GB/s", "d2h lane of h2d+d2h"},
    {"time_h2d", "h2d time", "h2d lane of h2d+d2h: from the common start to its end"},
    {"time_d2h", "d2h time", "d2h lane of h2d+d2h: from the common start to its end"},
    {"summary.h2d_concurrent", "h2d conc", "h2d time while d2h runs (h2d+d2h lane)"},
    {"summary.d2h_concurrent", "d2h conc", "d2h time while h2d runs (h2d+d2h lane)"},
    {"summary.h2d_chunk_cost", "h2d/chunk", "h2d cost per extra chunk (chunked - whole)/(n-1)"},
    {"summary.kernel_chunk_cost", "k/chunk", "kernel cost per extra chunk"},
    {"summary.d2h_chunk_cost", "d2h/chunk", "d2h cost per extra chunk"},
    {"summary.model_sequential", "model seq", "model: h2d + kernel + d2h"},
    {"summary.model_ideal", "ideal", "model: max(h2d, kernel, d2h)"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("overlap", kTerms);
}

}  // namespace gpuprobe::overlap
