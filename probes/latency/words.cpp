// latency's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::latency {
namespace {

constexpr TermEntry kTerms[] = {
    {"mode", "mode", "chase: timed pointer chase; trace: per-access times at a share of L2"},
    {"stride", "stride", "bytes between chased elements (sector, line, page)"},
    {"carveout", "carve%", "shared-memory carve-out asked for, % of the most shared memory"},
    {"l2_pct", "L2%", "trace: working set in % of the L2 size"},
    {"bytes", "set", "working set: elements x stride"},
    {"latency", "cyc", "cycles per dependent load (clock64 over the timed steps)"},
    {"latency_time", "t", "time per dependent load (%globaltimer over the timed steps)"},
    {"clock_mhz", "MHz", "SM clock during the row: cycles / ns of its launches"},
    {"l1_hit", "L1 hit", "counters: L1 hit rate of the chase's load sectors"},
    {"l2_hit", "L2 hit", "counters: L2 hit rate of the reads from the SMs"},
    {"fabric_share", "fabric", "counters: L2 reads that crossed to the other partition / L2 reads"},
    {"dram_per_access", "DRAM B", "counters: DRAM bytes read per access"},
    {"p10_cycles", "p10", "trace: 10th percentile of per-access cycles"},
    {"p50_cycles", "p50", "trace: median per-access cycles"},
    {"p90_cycles", "p90", "trace: 90th percentile of per-access cycles"},
    {"fast_cycles", "near", "trace: median of the fast cluster (2-means)"},
    {"slow_cycles", "far", "trace: median of the slow cluster (2-means)"},
    {"slow_share", "far %", "trace: share of accesses in the slow cluster"},
    {"cluster_eta", "eta", "trace: between-cluster / total variance (1: separate)"},
    {"cluster_threshold", "split", "trace: cycles that split the two clusters"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("latency", kTerms);
}

}  // namespace gpuprobe::latency
