// constant's words: its findings (findings.cpp) and the columns' short headers.
#include "analysis.hpp"

namespace gpuprobe::constant {
namespace {

constexpr TermEntry kTerms[] = {
    {"mode", "mode", "lookup: throughput of the whole GPU; chase: one thread's dependent lookups"},
    {"path", "path", "constant: __constant__; readonly: __ldg; texture: tex1Dfetch; global"},
    {"width", "width", "element bytes"},
    {"distinct", "dist", "distinct addresses per warp lookup"},
    {"bytes", "table", "table size"},
    {"lookups", "Glk/s", "lookups per second, 1e9"},
    {"latency", "cyc", "cycles per chased lookup (clock64)"},
    {"latency_time", "t", "time per chased lookup (%globaltimer)"},
    {"warp_lookups", "warp lk", "warp lookups per launch"},
    {"slowdown", "slow", "broadcast lookups/s / this point's (same path, width, table)"},
    {"predicted_slowdown", "m.slow", "model: transactions (constant) or sectors / broadcast's"},
    {"transactions_per_ldc", "m.tr/ldc", "model: constant-cache transactions per LDC"},
    {"sectors_per_request", "m.sec/rq", "model: L1 sectors per request (coalescing's model)"},
    {"sectors_per_lookup", "m.sec/lk", "model: texture sectors per warp lookup (64-B requests)"},
    {"sectors_per_lookup_counter", "sec ctr", "counters: texture sectors / warp lookups"},
    {"sectors_per_lookup_counter_vs_model", "sec c/m", "sec ctr / m.sec/lk"},
    {"requests_per_lookup", "m.rq/lk", "model: requests per warp lookup in the path's unit"},
    {"requests_per_lookup_counter", "rq ctr",
     "counters: LDC or global-load requests / warp lookups"},
    {"requests_per_lookup_counter_vs_model", "rq c/m", "rq ctr / m.rq/lk"},
    {"transactions_per_ldc_counter", "tr ctr", "counters: idc requests / LDC instructions"},
    {"transactions_per_ldc_counter_vs_model", "tr c/m", "tr ctr / m.tr/ldc"},
    {"sectors_per_request_counter", "sec ctr", "counters: l1tex sectors / requests of the path"},
    {"sectors_per_request_counter_vs_model", "sec c/m", "sec ctr / m.sec/rq"},
    {"l2_sectors_per_lookup", "L2 sec", "counters: L2 sectors read by L1 and gcc / warp lookups"},
    {"idc_hit", "idc hit", "counters: indexed-constant-cache hit rate"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(finding_list());
  g.add_terms("constant", kTerms);
}

}  // namespace gpuprobe::constant
