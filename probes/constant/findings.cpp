// constant's findings (host-only), each declared once, built from the lookup rows (broadcast
// ratios, each point's winner, the textbook's advice), the chase levels and the run's notes; words.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis.hpp"
#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::constant {
namespace {

constexpr Text<"mode"> kModeKey;
constexpr Text<"path"> kPathKey;
constexpr Int<"width", "B"> kWidthKey;
constexpr Int<"distinct"> kDistinctKey;
constexpr Size<"bytes"> kBytesKey;
constexpr Int<"level"> kLevelKey;
constexpr Value<"broadcast", "Glookup/s"> kBroadcast;
constexpr Value<"divergent", "Glookup/s"> kDivergent;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"model_ratio", "x"> kModelRatio;
constexpr Text<"winner"> kWinner;
constexpr Value<"winner_rate", "Glookup/s"> kWinnerRate;
constexpr Maybe<Text<"runner_up">> kRunnerUp;
constexpr Value<"runner_up_rate", "Glookup/s"> kRunnerRate;
constexpr Value<"margin", "%"> kMargin;
constexpr Value<"constant_vs_global", "x"> kConstantVsGlobal;
constexpr Value<"texture_vs_global", "x"> kTextureVsGlobal;
constexpr Value<"points_won"> kWon;
constexpr Value<"points_compared"> kCompared;
constexpr Texts<"where"> kWhere;
constexpr Text<"verdict"> kVerdict;
constexpr Value<"latency", "cycles"> kLatency;
constexpr Value<"latency_ns", "ns"> kLatencyNs;
constexpr Size<"from_bytes"> kFrom;
constexpr Size<"size"> kSize;
constexpr Maybe<Size<"next_size">> kNextSize;
constexpr Int<"skipped"> kSkipped;
constexpr Int<"dropped"> kDropped;
constexpr Int<"rows"> kRowsKey;
constexpr Value<"hits", "idc_request"> kHits;
constexpr Value<"requests", "idc_request"> kIdcReq;

FindingList list;

// The counter agreements' worst row: its point, and how a sentence names it.
constexpr auto kRowPoint = point(kModeKey, kPathKey, kWidthKey, kDistinctKey, kBytesKey);
const auto kRowText = [](const auto& f) {
  return fmt::format("{} {} d{} {}", f[kPathKey], f[kWidthKey], f[kDistinctKey], f[kBytesKey]);
};

const CounterAgreementMaker kRequests = define_counter_agreement(
    list, "constant_counter_requests",
    "requests per warp lookup in the path's unit (LDC instructions; l1tex global-load requests)",
    kRowPoint, kRowText);
const CounterAgreementMaker kTransactions = define_counter_agreement(
    list, "constant_counter_transactions",
    "transactions (idc requests per LDC; l1tex sectors per global-load request, texture sectors "
    "per warp lookup)",
    kRowPoint, kRowText);

const auto kBroadcastDef = list.verdict(
    "constant_broadcast", params(kPathKey, kWidthKey, kBytesKey),
    values(kBroadcast, kDivergent, kRatio, kModelRatio), outcome(kDistinctKey), [](const auto& f) {
      return fmt::format(
          "{}, {} elements, {} table: one address per warp {:.1f} Glookup/s, {} addresses {:.1f} "
          "— the broadcast is {:.1f}x the divergent rate (model {:.0f}x: {})",
          f[kPathKey], f[kWidthKey], f[kBytesKey], f.value(kBroadcast), f[kDistinctKey],
          f.value(kDivergent), f.value(kRatio), f.value(kModelRatio),
          f[kPathKey] == "constant" ? "one constant-cache transaction per distinct address"
                                    : "L1 sectors per warp lookup in proportion");
    });

const auto kWinnerDef = list.verdict(
    "constant_winner", params(kWidthKey, kDistinctKey, kBytesKey),
    values(kWinnerRate, kRunnerRate, kMargin, kConstantVsGlobal, kTextureVsGlobal),
    outcome(kWinner, kRunnerUp), [](const auto& f) {
      const std::string runner =
          f.has(kRunnerUp) ? fmt::format(", {:.0f}% ahead of {} ({:.1f})", f.value(kMargin),
                                         f[kRunnerUp], f.value(kRunnerRate))
                           : std::string(", every path alike within noise");
      auto vs = [&](const char* what, std::optional<double> r) {
        return r ? fmt::format("; {} {:.2f}x plain loads", what, *r) : std::string();
      };
      return fmt::format(
          "{} table, distinct addresses per warp {}, {} elements: {} fastest at "
          "{:.1f} Glookup/s{}{}{}",
          f[kBytesKey], f[kDistinctKey], f[kWidthKey], f[kWinner], f.value(kWinnerRate), runner,
          vs("constant", f.maybe(kConstantVsGlobal)), vs("texture", f.maybe(kTextureVsGlobal)));
    });

const auto kTextbookDef = list.verdict(
    "constant_textbook", params(kPathKey, kWidthKey), values(kWon, kCompared),
    outcome(kWhere, kVerdict), [](const auto& f) {
      const auto* where = std::get_if<TextList>(&f.param(kWhere).value);  // an outcome list
      return fmt::format(
          "textbook advice (use {} memory to raise effective bandwidth), {} elements: {} — faster "
          "than plain loads beyond noise at {:g} of {:g} (distinct, table) points{}",
          f[kPathKey], f[kWidthKey], f[kVerdict], f.value(kWon), f.value(kCompared),
          where && !where->empty() ? fmt::format(": {}", fmt::join(*where, ", ")) : "");
    });

const auto kLevelDef = list.verdict(
    "constant_latency_level", params(kPathKey, kLevelKey), values(kLatency, kLatencyNs),
    outcome(kFrom, kSize, kNextSize), [](const auto& f) {
      const std::string from = f[kFrom], to = f[kSize];
      return fmt::format(
          "{} chase: level {} at {:.1f} cycles ({:.1f} ns) for {}{}", f[kPathKey], f[kLevelKey],
          f.value(kLatency), f.maybe(kLatencyNs).value_or(0),
          from == to ? fmt::format("the {} table", to)
                     : fmt::format("tables from {} to {}", from, to),
          f.has(kNextSize) ? fmt::format("; {} is past it", f[kNextSize]) : std::string());
    });

const auto kSizingNote = list.note(
    "constant_sizing", params(), values(), outcome(kSkipped, kDropped), [](const auto& f) {
      return fmt::format(
          "the constant path's tables stop at 64 KiB (the __constant__ space of a module): {} "
          "lookup points above it ran on the other paths only; {} points did not fit half of the "
          "free device memory or a texture object's reach and were not measured",
          f[kSkipped], f[kDropped]);
    });

// CUPTI's idc__requests_lookup_hit below 0 or above idc__requests (seen on an H100 for every
// table past the ~2 KiB constant cache): no hit count, so no hit rate is derived from it.
const auto kIdcHitWarning = list.warning(
    "constant_idc_hit_unusable", params(), values(kHits, kIdcReq), outcome(kRowsKey, kBytesKey),
    [](const auto& f) {
      return fmt::format(
          "counters: idc__requests_lookup_hit is no hit count on {} constant row(s) (e.g. {:.4g} "
          "hits of {:.4g} idc requests, {} table): the idc hit rate is left out there",
          f[kRowsKey], f.value(kHits), f.value(kIdcReq), f[kBytesKey]);
    });

const Lookup* find(const std::vector<Lookup>& rows, LookupPath p, int w, int d, std::uint64_t b) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const Lookup& l) {
    return l.path == p && l.width == w && l.distinct == d && l.bytes == b;
  });
  return it == rows.end() ? nullptr : &*it;
}

double rate(const Lookup* l) {
  return l->rate->stats.median;
}
const char* path_name(const Lookup* l) {
  return models::lookup_path_name(l->path);
}
std::optional<double> versus(const Lookup* a, const Lookup* global) {
  return a && global ? ratio_of(rate(a), rate(global)) : std::nullopt;
}

constexpr LookupPath kPaths[] = {LookupPath::kConstant, LookupPath::kReadOnly, LookupPath::kTexture,
                                 LookupPath::kGlobal};

void broadcast(const std::vector<Lookup>& rows, int w, int most, std::uint64_t b,
               std::vector<Finding>& out) {
  for (const LookupPath p : kPaths) {
    const Lookup *one = find(rows, p, w, 1, b), *many = find(rows, p, w, most, b);
    if (!one || !many || most == 1) continue;
    out.push_back(kBroadcastDef.make(
        kPathKey(models::lookup_path_name(p)), kWidthKey(w), kBytesKey(b), kDistinctKey(most),
        kBroadcast(rate(one)), kDivergent(rate(many)), kRatio(ratio_of(rate(one), rate(many))),
        kModelRatio(many->model.relative_time)));
  }
}

void winner(const std::vector<Lookup>& rows, int w, int d, std::uint64_t b,
            std::vector<Finding>& out) {
  std::vector<const Lookup*> here;
  std::vector<const Metric*> rates;
  for (const LookupPath p : kPaths)
    if (const Lookup* l = find(rows, p, w, d, b)) here.push_back(l), rates.push_back(l->rate);
  if (here.size() < 2) return;
  const auto alike = alike_to_extreme(rates, Extreme::kHighest);
  std::string names;
  const Lookup *best = nullptr, *runner = nullptr;  // the fastest in the alike set, and outside
  for (std::size_t i = 0; i < here.size(); ++i) {
    const bool in = std::find(alike.begin(), alike.end(), i) != alike.end();
    if (in) names += (names.empty() ? "" : " ~ ") + std::string(path_name(here[i]));
    const Lookup*& slot = in ? best : runner;
    if (!slot || rate(here[i]) > rate(slot)) slot = here[i];
  }
  const Lookup* global = find(rows, LookupPath::kGlobal, w, d, b);
  auto opt = [](bool has, auto v) { return has ? std::optional(v) : std::nullopt; };
  out.push_back(kWinnerDef.make(
      kWidthKey(w), kDistinctKey(d), kBytesKey(b), kWinner(names),
      kRunnerUp(opt(runner, std::string(runner ? path_name(runner) : ""))), kWinnerRate(rate(best)),
      kRunnerRate(opt(runner, runner ? rate(runner) : 0.0)),
      kMargin(opt(runner, runner ? 100 * (rate(best) / rate(runner) - 1) : 0.0)),
      kConstantVsGlobal(versus(find(rows, LookupPath::kConstant, w, d, b), global)),
      kTextureVsGlobal(versus(find(rows, LookupPath::kTexture, w, d, b), global))));
}

void textbook(const std::vector<Lookup>& rows, LookupPath p, int w, std::vector<Finding>& out) {
  TextList where;
  double won = 0, compared = 0;
  for (const Lookup& l : rows) {
    if (l.path != p || l.width != w) continue;
    const Lookup* global = find(rows, LookupPath::kGlobal, w, l.distinct, l.bytes);
    if (!global) continue;
    ++compared;
    if (order_of(*l.rate, *global->rate) != Change::kFaster) continue;
    ++won;
    where.push_back(
        fmt::format("d{} at {}", l.distinct, format_bytes(static_cast<double>(l.bytes))));
  }
  if (compared == 0) return;
  const char* verdict = won == 0          ? "does not hold on this GPU"
                        : won == compared ? "holds at every point"
                                          : "holds only where listed";
  out.push_back(kTextbookDef.make(kPathKey(models::lookup_path_name(p)), kWidthKey(w), kWon(won),
                                  kCompared(compared), kWhere(where), kVerdict(verdict)));
}

// The columns' short headers.
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
    {"predicted_slowdown", "slow", "model: transactions (constant) or sectors / broadcast's"},
    {"transactions_per_ldc", "tr/ldc", "model: constant-cache transactions per LDC"},
    {"sectors_per_request", "sec/rq", "model: L1 sectors per request (coalescing's model)"},
    {"sectors_per_lookup", "sec/lk", "model: texture sectors per warp lookup (64-B requests)"},
    {"sectors_per_lookup_counter", "sec ctr", "counters: texture sectors / warp lookups"},
    {"sectors_per_lookup_counter_vs_model", "sec c/m", "sec ctr / m.sec/lk"},
    {"requests_per_lookup", "rq/lk", "model: requests per warp lookup in the path's unit"},
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
  g.add_findings(list);
  g.add_terms("constant", kTerms);
}

void add_counters(const std::vector<Lookup>& rows, std::vector<Finding>& out) {
  CounterAgreement requests(kRequests, ""), transactions(kTransactions, "");
  constexpr const char* kPer[] = {"transactions_per_ldc_counter", "sectors_per_lookup_counter",
                                  "sectors_per_request_counter"};
  const Lookup* first_bad = nullptr;
  std::int64_t bad = 0;
  for (const Lookup& l : rows) {
    Row& row = *l.row;
    if (!row.counters) continue;
    const std::optional<double> warp_lookups = quantity_value(row.derived, kWarpLookups);
    const models::LookupPrediction& m = l.model;
    const bool constant = l.path == LookupPath::kConstant, tex = l.path == LookupPath::kTexture;
    const int k = constant ? 0 : tex ? 1 : 2;
    const double per_model[] = {m.constant_transactions / m.requests_per_lookup,
                                m.sectors_per_lookup, m.sectors_per_request};
    const auto req = tex ? std::nullopt : counter_value(row, constant ? kLdc : kLsuRequests);
    const auto per = counter_value(row, constant ? kIdcRequests : tex ? kTexSectors : kLsuSectors);
    if (!tex) set_model_value(row, {"requests_per_lookup", "", m.requests_per_lookup});
    requests.add(row, "requests_per_lookup_counter", ratio_of(req, warp_lookups),
                 m.requests_per_lookup);
    transactions.add(row, kPer[k], ratio_of(per, tex ? warp_lookups : req), per_model[k]);
    const auto l2 = sum_of(counter_value(row, kL2FromL1), counter_value(row, kL2FromGcc));
    row.derived.push_back({"l2_sectors_per_lookup", "sectors", ratio_of(l2, warp_lookups)});
    if (!constant) continue;
    const auto hits = counter_value(row, kIdcHits);
    const bool usable = !hits || !per || (*hits >= 0 && *hits <= *per);
    row.derived.push_back({"idc_hit", "", usable ? ratio_of(hits, per) : std::nullopt});
    if (!usable && bad++ == 0) first_bad = &l;
  }
  for (const CounterAgreement* a : {&requests, &transactions})
    if (auto f = a->finding()) out.push_back(std::move(*f));
  if (bad > 0)
    out.push_back(kIdcHitWarning.make(kRowsKey(bad), kBytesKey(first_bad->bytes),
                                      kHits(counter_value(*first_bad->row, kIdcHits)),
                                      kIdcReq(counter_value(*first_bad->row, kIdcRequests))));
}

void add_findings(const std::vector<Lookup>& rows, const std::vector<ChaseSeries>& series,
                  const RunFacts& facts, std::vector<Finding>& out) {
  std::set<int> distincts;
  std::set<std::uint64_t> sizes;
  int w = rows.empty() ? 0 : rows.front().width;
  for (const Lookup& l : rows)
    distincts.insert(l.distinct), sizes.insert(l.bytes), w = std::min(w, l.width);
  for (const std::uint64_t b : sizes) {
    broadcast(rows, w, *distincts.rbegin(), b, out);
    for (const int d : distincts)
      winner(rows, w, d, b, out);
  }
  for (const LookupPath p : {LookupPath::kConstant, LookupPath::kTexture})
    textbook(rows, p, w, out);
  for (const ChaseSeries& s : series)
    for (std::size_t i = 0; i < s.levels.size(); ++i) {
      const latency::Level& l = s.levels[i];
      const double ns_per_cycle = s.ns_per_cycle[(l.plateau_first + l.plateau_last) / 2];
      out.push_back(kLevelDef.make(
          kPathKey(models::lookup_path_name(s.path)), kLevelKey(i + 1), kLatency(l.median),
          kLatencyNs(ns_per_cycle > 0 ? std::optional(l.median * ns_per_cycle) : std::nullopt),
          kFrom(l.smallest), kSize(l.size), kNextSize(l.next_size)));
    }
  if (facts.constant_skipped > 0 || facts.dropped > 0)
    out.push_back(kSizingNote.make(kSkipped(facts.constant_skipped), kDropped(facts.dropped)));
}

}  // namespace gpuprobe::constant
