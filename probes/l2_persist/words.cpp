// l2-persist's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::l2_persist {
namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"workload", "work", "phases: hot kernel after a streaming kernel; bpg: one mixed kernel"},
    {"setaside_bytes", "aside", "persisting-L2 set-aside (cudaLimitPersistingL2CacheSize)"},
    {"hot_bytes", "hot", "hot region"},
    {"setaside_pct", "aside%", "set-aside, % of persistingL2CacheMaxSize"},
    {"hot_pct", "hot%", "hot region, % of persistingL2CacheMaxSize"},
    {"hit_ratio", "hitR", "the window's hitRatio (blank: no window)"},
    {"window", "win", "where the window is set: stream attribute, launch attribute, none"},
    {"hot_time", "t_hot", "hot kernel's time (phases: repetition less streaming part)"},
    {"hot_bandwidth", "GB/s hot", "2 x hot bytes / hot kernel time"},
    {"speedup", "speed-up", "baseline hot time / this row's"},
    {"speedup_low", "lo", "smallest per-round speed-up"},
    {"speedup_high", "hi", "largest per-round speed-up"},
    {"loop_speedup", "loop", "baseline repetition / this one (streaming included)"},
    {"stream_time_vs_none", "vs 0", "streaming kernel's time / at set-aside 0"},
    {"hot_l2_hit_share", "L2", "counters: share of hot reads L2 served (1 - DRAM read / read)"},
    {"l2_hit_share", "L2", "counters: share of reads L2 served (1 - DRAM read / read)"},
    {"hot_near_hit_share", "near", "counters: hot reads that hit the first L2 slice asked"},
    {"near_hit_share", "near", "counters: reads that hit the first L2 slice asked"},
    {"hot_fabric_hit_share", "fabric", "counters: hot reads served by the other partition"},
    {"fabric_hit_share", "fabric", "counters: reads served by the other L2 partition"},
    {"hot_dram_bytes", "DRAM", "counters: DRAM bytes per hot kernel"},
    {"dram_bytes", "DRAM", "counters: DRAM bytes per kernel"},
    {"evict_last_share", "ev-last", "counters: evict-last sectors / 2 x hot sectors accessed"},
    {"hot_l2_hit_share_range", "L2/rng", "counters: L2-served share over the range"},
    {"hot_l2_hit_share_range_vs_model", "L2/m", "counter / model x (k-1)/k"},
    {"hot_read_sectors", "rd sec", "counters: hot kernels' L2 read sectors"},
    {"hot_read_sectors_vs_model", "rd/m", "counter / model"},
    {"persisting_fraction", "pers", "model: min(1, set-aside / (hitRatio x window))"},
    {"overcommit", "oc", "model: 1 when hitRatio x window > set-aside"},
    {"hot_hit_share", "hit", "model: min(hitRatio x window, set-aside) / hot"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("l2-persist", kTerms);
}

}  // namespace gpuprobe::l2_persist
