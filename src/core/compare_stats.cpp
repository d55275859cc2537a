// The hierarchical bootstrap of a B/A ratio of medians: rounds, then samples within rounds.
#include "gpuprobe/core/compare_stats.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <numeric>
#include <random>
#include <thread>

#include "gpuprobe/core/interrupt.hpp"

namespace gpuprobe {
namespace {

// Uniform indices below n from a 64-bit Mersenne twister, fully specified (unlike
// std::uniform_int_distribution), so every standard library draws the same indices. A batch of
// `count` draws below n < 2^21 takes fresh 64-bit outputs, each cut into three 21-bit slices
// (low bits first) mapped to [0, n) by multiply-shift: uneven by at most n / 2^21 relative
// (0.05% for a round of 1000 samples), far under the bootstrap's own variation; slices left in
// the last output are dropped. n of 2^21 and more takes the upper 32 bits of one output a draw.
class IndexDraw {
 public:
  explicit IndexDraw(std::uint64_t seed) : gen_(seed) {}

  template <typename F>
  void each_below(std::uint32_t n, std::uint32_t count, F&& f) {
    if (n >= kSlice) {
      for (std::uint32_t k = 0; k < count; ++k)
        f(static_cast<std::uint32_t>(((gen_() >> 32) * n) >> 32));
      return;
    }
    auto slice = [n](std::uint64_t word, unsigned i) {
      return static_cast<std::uint32_t>((((word >> (i * kBits)) & (kSlice - 1)) * n) >> kBits);
    };
    std::uint32_t k = 0;
    for (; k + 3 <= count; k += 3) {
      const std::uint64_t word = gen_();
      f(slice(word, 0));
      f(slice(word, 1));
      f(slice(word, 2));
    }
    if (k < count) {
      const std::uint64_t word = gen_();
      for (unsigned i = 0; k < count; ++k, ++i)
        f(slice(word, i));
    }
  }

  std::uint32_t below(std::uint32_t n) {
    std::uint32_t out = 0;
    each_below(n, 1, [&out](std::uint32_t i) { out = i; });
    return out;
  }

 private:
  static constexpr unsigned kBits = 21;
  static constexpr std::uint64_t kSlice = std::uint64_t{1} << kBits;
  std::mt19937_64 gen_;
};

// What the draws depend on: the sizes of each side's non-empty rounds.
struct Shape {
  std::vector<std::uint32_t> a, b;
  std::size_t a_runs = 1, b_runs = 1;
  bool operator==(const Shape&) const = default;
};

std::vector<std::uint32_t> round_sizes(const SampleRounds& rounds) {
  std::vector<std::uint32_t> sizes;
  for (const auto& r : rounds) {
    if (!r.empty()) sizes.push_back(static_cast<std::uint32_t>(r.size()));
  }
  return sizes;
}

// One side's resamples: counts[s * n + i] is how often sample i (numbered over the non-empty
// rounds in order) was drawn in resample s, totals[s] how many were drawn in all.
struct SidePlan {
  std::size_t n = 0;
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> totals;
  // The run-level term: picks[s * runs + j] is the round drawn for run j of resample s (empty
  // with one round).
  std::size_t runs = 1;
  std::vector<std::uint32_t> picks;
};

struct Plan {
  bool drawn = false;
  Shape shape;
  SidePlan a, b;
};

// Draws one resample of one side into `counts` (n entries, zero on entry): rounds with
// replacement (the only one when there is one), then samples with replacement within each.
std::uint32_t draw_side(const std::vector<std::uint32_t>& sizes,
                        const std::vector<std::uint32_t>& offsets, IndexDraw& draw,
                        std::uint32_t* counts) {
  const auto rounds = static_cast<std::uint32_t>(sizes.size());
  std::uint32_t total = 0;
  for (std::uint32_t k = 0; k < rounds; ++k) {
    const std::uint32_t r = rounds == 1 ? 0 : draw.below(rounds);
    const std::uint32_t m = sizes[r];
    std::uint32_t* round_counts = counts + offsets[r];
    draw.each_below(m, m, [round_counts](std::uint32_t i) { ++round_counts[i]; });
    total += m;
  }
  return total;
}

// Draws the plan of `shape` into `plan`, reusing its storage.
void make_plan(const Shape& shape, const BootstrapOptions& options, Plan& plan) {
  plan.shape = shape;
  auto offsets_of = [](const std::vector<std::uint32_t>& sizes, SidePlan& side) {
    std::vector<std::uint32_t> offsets(sizes.size(), 0);
    std::uint32_t n = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = n;
      n += sizes[r];
    }
    side.n = n;
    return offsets;
  };
  const auto a_offsets = offsets_of(shape.a, plan.a);
  const auto b_offsets = offsets_of(shape.b, plan.b);
  plan.a.counts.assign(options.resamples * plan.a.n, 0);
  plan.b.counts.assign(options.resamples * plan.b.n, 0);
  plan.a.totals.resize(options.resamples);
  plan.b.totals.resize(options.resamples);
  IndexDraw draw(options.seed);
  for (std::size_t s = 0; s < options.resamples; ++s) {
    plan.a.totals[s] = draw_side(shape.a, a_offsets, draw, &plan.a.counts[s * plan.a.n]);
    plan.b.totals[s] = draw_side(shape.b, b_offsets, draw, &plan.b.counts[s * plan.b.n]);
  }
  // The run-level picks come after every sample draw, so they change none of those.
  auto draw_picks = [&](const std::vector<std::uint32_t>& sizes, std::size_t runs, SidePlan& side) {
    side.runs = runs;
    side.picks.clear();
    const auto rounds = static_cast<std::uint32_t>(sizes.size());
    if (rounds < 2) return;
    side.picks.resize(options.resamples * runs);
    draw.each_below(rounds, static_cast<std::uint32_t>(side.picks.size()),
                    [&, k = std::size_t{0}](std::uint32_t r) mutable { side.picks[k++] = r; });
  };
  draw_picks(shape.a, shape.a_runs, plan.a);
  draw_picks(shape.b, shape.b_runs, plan.b);
  plan.drawn = true;
}

// One side's values, numbered like the plan's samples, with the order that sorts them.
struct SortedValues {
  std::vector<double> values;
  std::vector<std::uint32_t> order;  // order[i]: the sample of the i-th smallest value
};

// nullopt when there is no value, or one is not finite or below `least` (or equal to it when
// `strict`).
std::optional<SortedValues> sort_values(const SampleRounds& rounds, double least, bool strict) {
  SortedValues out;
  for (const auto& round : rounds) {
    for (double v : round) {
      if (!std::isfinite(v) || v < least || (strict && v == least)) return std::nullopt;
      out.values.push_back(v);
    }
  }
  if (out.values.empty()) return std::nullopt;
  out.order.resize(out.values.size());
  std::iota(out.order.begin(), out.order.end(), 0u);
  std::stable_sort(out.order.begin(), out.order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return out.values[x] < out.values[y]; });
  return out;
}

// The median of each resample: the counts walked in value order to the middle one (the mean of
// the two middle ones for an even total).
std::vector<double> resampled_medians(const SidePlan& plan, const SortedValues& v,
                                      std::size_t resamples) {
  const double first = v.values[v.order.front()];
  if (first == v.values[v.order.back()]) return std::vector<double>(resamples, first);
  std::vector<double> medians(resamples);
  for (std::size_t s = 0; s < resamples; ++s) {
    const std::uint32_t* counts = &plan.counts[s * plan.n];
    const std::size_t total = plan.totals[s];
    // Walk to the value holding draw number `lo` (0-based), then to the one holding `hi`; the
    // loops have no branch on a count of zero, which would be mispredicted often.
    const std::size_t lo = (total - 1) / 2;
    const std::size_t hi = total / 2;
    std::size_t k = 0;
    std::size_t seen = counts[v.order[0]];
    while (seen <= lo)
      seen += counts[v.order[++k]];
    const double lo_value = v.values[v.order[k]];
    while (seen <= hi)
      seen += counts[v.order[++k]];
    medians[s] = (lo_value + v.values[v.order[k]]) / 2;
  }
  return medians;
}

// Each non-empty round's log-deviation from the pooled median (the run-level term's values).
std::vector<double> round_levels(const SampleRounds& rounds, double pooled, bool centred) {
  std::vector<double> out;
  for (const auto& round : rounds) {
    if (round.empty()) continue;
    std::vector<double> v = round;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    out.push_back(median > 0 && pooled > 0 ? std::log(median / pooled) : 0.0);
  }
  // Centred: the term spreads the median as far as the rounds disagree, and moves it by nothing
  // on average (rounds that sit mostly above the pooled median would otherwise shift every
  // resample one way, and the interval could miss the ratio it is the interval of).
  if (!centred) return out;
  double mean = 0;
  for (double level : out)
    mean += level;
  mean /= static_cast<double>(std::max<std::size_t>(out.size(), 1));
  for (double& level : out)
    level -= mean;
  return out;
}

// Moves each resampled median by the run-level term: the mean of the side's runs' picked levels.
void apply_run_levels(const SidePlan& plan, const std::vector<double>& levels,
                      std::vector<double>& medians) {
  if (plan.picks.empty()) return;
  for (std::size_t s = 0; s < medians.size(); ++s) {
    double sum = 0;
    for (std::size_t j = 0; j < plan.runs; ++j)
      sum += levels[plan.picks[s * plan.runs + j]];
    medians[s] *= std::exp(sum / static_cast<double>(plan.runs));
  }
}

double sorted_median(const SortedValues& v) {
  const std::size_t n = v.order.size();
  const double mid = v.values[v.order[n / 2]];
  return n % 2 == 1 ? mid : (v.values[v.order[n / 2 - 1]] + mid) / 2;
}

// The p-quantile of `values` (reordered), interpolating between the order statistics at
// p x (n - 1), as if they were sorted.
double quantile(std::vector<double>& values, double p) {
  const double pos = p * static_cast<double>(values.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(i);
  std::nth_element(values.begin(), at, values.end());
  if (i + 1 >= values.size()) return *at;
  const double next = *std::min_element(at + 1, values.end());
  return *at + (pos - static_cast<double>(i)) * (next - *at);
}

// One task, drawing a new plan only when its shape differs from the last one.
// The runs behind one side of a task: the task's own count, else the options'.
std::size_t runs_of(std::size_t task_runs, std::size_t option_runs) {
  return std::max<std::size_t>(task_runs > 0 ? task_runs : option_runs, 1);
}

// The rounds a side's resamples draw from: its own, or, for a pool of several runs with many
// rounds (kRoundMediansFrom), one value a round, its median. Such a side's resample is then the
// median of its rounds' medians drawn with replacement: it costs the rounds, not the samples (a
// pool of 200 runs of 5 rounds resamples 1000 values, not the 20 000 samples behind them), its
// spread still holds the rounds' levels and their own noise, and it is a little wider than the
// samples' would be where the rounds agree.
const SampleRounds& drawn_rounds(const SampleRounds& rounds, std::size_t runs,
                                 SampleRounds& medians) {
  const auto count = static_cast<std::size_t>(
      std::count_if(rounds.begin(), rounds.end(), [](const auto& r) { return !r.empty(); }));
  if (runs < 2 || count < kRoundMediansFrom) return rounds;
  medians.clear();
  for (const auto& r : rounds) {
    if (r.empty()) continue;
    std::vector<double> v = r;
    const std::size_t n = v.size();
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end());
    double median = v[n / 2];
    if (n % 2 == 0)
      median =
          (median + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2))) /
          2;
    medians.push_back({median});
  }
  return medians;
}

std::optional<RatioInterval> bootstrap_one(const RatioTask& task, const BootstrapOptions& options,
                                           Plan& plan) {
  if (!task.a || !task.b || options.resamples == 0) return std::nullopt;
  const auto a = sort_values(*task.a, 0.0, /*strict=*/true);
  const auto b = sort_values(*task.b, 0.0, /*strict=*/false);
  if (!a || !b) return std::nullopt;
  const std::size_t a_runs = runs_of(task.a_runs, options.a_runs);
  const std::size_t b_runs = runs_of(task.b_runs, options.b_runs);
  SampleRounds a_medians, b_medians;
  const SampleRounds& a_drawn = drawn_rounds(*task.a, a_runs, a_medians);
  const SampleRounds& b_drawn = drawn_rounds(*task.b, b_runs, b_medians);
  Shape shape{round_sizes(a_drawn), round_sizes(b_drawn), a_runs, b_runs};
  if (!plan.drawn || !(plan.shape == shape)) make_plan(shape, options, plan);
  RatioInterval out;
  out.a_median = sorted_median(*a);
  out.b_median = sorted_median(*b);
  out.ratio = out.b_median / out.a_median;
  // The drawn values in order: the samples themselves, or the round medians.
  const auto a_values = &a_drawn == task.a ? a : sort_values(a_drawn, 0.0, /*strict=*/true);
  const auto b_values = &b_drawn == task.b ? b : sort_values(b_drawn, 0.0, /*strict=*/false);
  std::vector<double> ma = resampled_medians(plan.a, *a_values, options.resamples);
  std::vector<double> mb = resampled_medians(plan.b, *b_values, options.resamples);
  apply_run_levels(plan.a, round_levels(*task.a, out.a_median, options.centred), ma);
  apply_run_levels(plan.b, round_levels(*task.b, out.b_median, options.centred), mb);
  std::vector<double> ratios(options.resamples);
  for (std::size_t s = 0; s < options.resamples; ++s)
    ratios[s] = mb[s] / ma[s];
  // The percentile interval of the resampled ratios, taken relative to their median and placed
  // at the point ratio: the resampling's spread, without its shift. A median of resamples can sit
  // off the median of all samples (few rounds, lopsided samples), and a plain percentile interval
  // then misses its own ratio; this one always holds it (low <= ratio <= high).
  const double tail = (1.0 - options.level) / 2;
  const double lo = quantile(ratios, tail);
  const double hi = quantile(ratios, 1.0 - tail);
  if (!options.centred) {
    out.low = lo;
    out.high = hi;
    return out;
  }
  const double centre = quantile(ratios, 0.5);
  out.low = centre > 0 ? out.ratio * (lo / centre) : lo;
  out.high = centre > 0 ? out.ratio * (hi / centre) : hi;
  out.low = std::min(out.low, out.ratio);
  out.high = std::max(out.high, out.ratio);
  return out;
}

std::size_t thread_count(const BootstrapOptions& options, std::size_t tasks) {
  constexpr std::size_t kMaxThreads = 8;
  constexpr std::size_t kTasksPerThread = 16;  // fewer: not worth a thread
  std::size_t n = options.threads;
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  n = std::min({n, kMaxThreads, (tasks + kTasksPerThread - 1) / kTasksPerThread});
  return std::max<std::size_t>(n, 1);
}

}  // namespace

std::optional<double> pooled_median(const SampleRounds& rounds) {
  std::vector<double> all;
  for (const auto& round : rounds)
    all.insert(all.end(), round.begin(), round.end());
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end());
  const std::size_t n = all.size();
  return n % 2 == 1 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
}

std::optional<RatioInterval> bootstrap_ratio(const SampleRounds& a, const SampleRounds& b,
                                             const BootstrapOptions& options) {
  Plan plan;
  return bootstrap_one({&a, &b}, options, plan);
}

std::vector<std::optional<RatioInterval>> bootstrap_ratios(std::span<const RatioTask> tasks,
                                                           const BootstrapOptions& options) {
  std::vector<std::optional<RatioInterval>> out(tasks.size());
  // Jobs: runs of consecutive tasks of one shape, which share their draws, cut to at most
  // `most` tasks so that many metrics of one shape (a fixed sample count) still spread over the
  // threads. Threads take the next job as they finish one, so a few heavy rows do not keep one
  // thread busy alone.
  const std::size_t threads = thread_count(options, tasks.size());
  const std::size_t most =
      std::max<std::size_t>(4, (tasks.size() + threads * 8 - 1) / (threads * 8));
  std::vector<std::size_t> starts;
  Shape last;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    Shape shape;
    if (tasks[i].a && tasks[i].b)
      shape = {round_sizes(*tasks[i].a), round_sizes(*tasks[i].b),
               runs_of(tasks[i].a_runs, options.a_runs), runs_of(tasks[i].b_runs, options.b_runs)};
    if (i == 0 || !(shape == last) || i - starts.back() >= most) starts.push_back(i);
    last = std::move(shape);
  }
  starts.push_back(tasks.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](std::size_t t) {
    try {
      Plan plan;
      // SIGINT/SIGTERM: every thread stops at its next job; the caller's thread throws below.
      for (std::size_t job = next++; job + 1 < starts.size() && interrupt_signal() == 0;
           job = next++) {
        for (std::size_t i = starts[job]; i < starts[job + 1]; ++i)
          out[i] = bootstrap_one(tasks[i], options, plan);
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back(work, t);
  } catch (...) {
    // No thread could be started: the ones that were run to the end of the jobs; join them
    // (a std::thread destroyed unjoined would terminate the program), then do the rest here.
  }
  work(0);
  for (auto& th : pool)
    th.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  throw_if_interrupted();
  return out;
}

}  // namespace gpuprobe
