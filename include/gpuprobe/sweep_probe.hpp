// The framework's side of a probe's sweep: a probe declares its point type, its points (from its
// axis values), each point's planned row, and how it measures them; plan(), run() and the round
// processes' measure_keys() are made here from those, so a plan and a run name the same rows.
// With it come the kit's runtime pieces a probe's operations use: buffers, checked CUDA calls,
// verification patterns.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/analysis_guard.hpp"
#include "gpuprobe/core/sweep_rows.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe {

// One run of a sweep on a GPU (or, in a round process, of the points its keys name): the context,
// the axis values, the points with their planned rows, and the result the probe adds its
// conditions, summary and findings to. Each point ends with add() (its row, from its samples) or
// drop() (it could not run).
template <typename P>
class Sweep {
 public:
  Sweep(runtime::ProbeContext& ctx, const AxisValues& values, std::vector<P> points, SweepRows rows,
        ProbeResult result)
      : ctx_(ctx),
        values_(values),
        points_(std::move(points)),
        rows_(std::move(rows)),
        result_(std::move(result)) {}

  runtime::ProbeContext& ctx() const { return ctx_; }
  const AxisValues& values() const { return values_; }
  const std::vector<P>& points() const { return points_; }
  ProbeResult& result() { return result_; }

  // The row of point `i` from its samples (SweepRows::add): add to it what the run knows beyond
  // the plan (lane metrics, derived values, params after the planned ones).
  Row& add(std::size_t i, const SampleSet& samples) { return rows_.add(i, samples); }
  Row& row(std::size_t i) { return rows_.row(i); }  // the row add() made
  void drop(std::size_t i) { rows_.drop(i); }
  // ProbeContext::measure_all of one operation per point, in point order, each point's row added.
  std::vector<SampleSet> measure_all(const std::vector<runtime::Operation>& ops) {
    if (ops.size() != points_.size()) throw std::logic_error("one operation per point");
    std::vector<SampleSet> measured = ctx_.measure_all(ops);
    for (std::size_t i = 0; i < measured.size(); ++i)
      add(i, measured[i]);
    return measured;
  }
  // measure_all of one operation per point, each made by make(point, op) (an operation left
  // without a label is named by its point's key).
  template <typename Make>
  std::vector<SampleSet> measure_each(Make make) {
    std::vector<runtime::Operation> ops(points_.size());
    for (std::size_t i = 0; i < points_.size(); ++i) {
      make(points_[i], ops[i]);
      if (ops[i].label.empty()) ops[i].label = point_key(rows_.planned(i));
    }
    return measure_all(ops);
  }
  // ops[k], of point at[k], with each round in a process of its own: the keys are made here, and
  // the round process finds the same points in the same sweep (SweepProbe::measure_keys).
  std::vector<SampleSet> measure_in_processes(const std::vector<runtime::Operation>& ops,
                                              const std::vector<std::size_t>& at,
                                              std::size_t least_rounds = 0) {
    return ctx_.measure_all_in_processes(ops, rows_.keys(at), values_, least_rounds);
  }

  // The result with every point's row, in point order (SweepRows::finish).
  ProbeResult finish() {
    result_.rows = rows_.finish();
    return std::move(result_);
  }
  // In a round process: the samples of every point, in point order.
  std::vector<SampleSet> samples() const {
    std::vector<SampleSet> out;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const SampleSet* s = rows_.samples(i);
      if (s == nullptr) throw std::logic_error("a round process left a point unmeasured");
      out.push_back(*s);
    }
    return out;
  }

 private:
  runtime::ProbeContext& ctx_;
  const AxisValues& values_;
  std::vector<P> points_;
  SweepRows rows_;
  ProbeResult result_;
};

// What every probe on SweepProbe answers without a GPU: the rows a run across `devices` starts
// from, one per point, which plan_across(values, devices) shows too (the unit test
// SweepProbes.PlanAndRunNameTheSameRows holds every registered probe to it).
class SweepSource {
 public:
  virtual ~SweepSource() = default;
  virtual SweepRows run_rows(const AxisValues& values, const std::vector<int>& devices) const = 0;
};

// A probe whose rows are its points'. It declares method(), points() and row(), and measure():
// the framework makes the plan from the points' rows, and in a run hands measure() the same
// points; measure() returns the analysis (conditions and findings from the finished rows),
// which runs once every point has its row, keeping the rows on an error (analyse_keeping_rows).
template <typename P>
class SweepProbe : public Probe, public SweepSource {
 public:
  using Point = P;
  using Analysis = std::function<void(ProbeResult&)>;

  ProbeResult plan(const AxisValues& values) const final { return planned(values, nullptr); }
  ProbeResult plan_across(const AxisValues& values, const std::vector<int>& devices) const final {
    return planned(values, &devices);
  }

  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues& values) final {
    Sweep<P> sweep(ctx, values, points_across(values, ctx.devices()),
                   run_rows(values, ctx.devices()), new_result(method(values)));
    const Analysis analysis = measure(sweep);
    ProbeResult result = sweep.finish();
    if (analysis) analyse_keeping_rows(result, [&] { analysis(result); });
    return result;
  }

  std::vector<SampleSet> measure_keys(runtime::ProbeContext& ctx, const AxisValues& values,
                                      const std::vector<std::string>& keys) final {
    const std::vector<P> all = points_across(values, ctx.devices());
    std::vector<P> points;
    for (const std::size_t i : SweepRows(rows_of(all)).points_of(keys))
      points.push_back(all[i]);
    SweepRows rows(rows_of(points));
    Sweep<P> sweep(ctx, values, std::move(points), std::move(rows), new_result(method(values)));
    (void)measure(sweep);  // the analysis is the parent's
    return sweep.samples();
  }

  SweepRows run_rows(const AxisValues& values, const std::vector<int>& devices) const final {
    return SweepRows(rows_of(points_across(values, devices)));
  }

 protected:
  // The result's method line.
  virtual std::string method(const AxisValues& values) const = 0;
  // The sweep's points, in row order.
  virtual std::vector<P> points(const AxisValues& values) const = 0;
  // A host-scoped probe's points across a device selection (the run's, or `--device` in a plan);
  // by default points(values).
  virtual std::vector<P> points_across(const AxisValues& values,
                                       const std::vector<int>& /*devices*/) const {
    return points(values);
  }
  // A point's planned row: its params, and what is known of it without a GPU (model, flags).
  virtual Row row(const P& point) const = 0;
  // What a plan adds beyond its rows (a model over all rows, notes on sizing); `devices` null
  // when the plan is for no device selection.
  virtual void finish_plan(ProbeResult& /*plan*/, const AxisValues& /*values*/,
                           const std::vector<int>* /*devices*/) const {}
  // Measures the sweep's points (Sweep::add or Sweep::drop for each) and returns its analysis.
  virtual Analysis measure(Sweep<P>& sweep) = 0;

 private:
  std::vector<Row> rows_of(const std::vector<P>& points) const {
    std::vector<Row> rows;
    for (const P& p : points)
      rows.push_back(row(p));
    return rows;
  }
  ProbeResult planned(const AxisValues& values, const std::vector<int>* devices) const {
    ProbeResult r = new_result(method(values));
    r.rows = rows_of(devices ? points_across(values, *devices) : points(values));
    finish_plan(r, values, devices);
    return r;
  }
};

}  // namespace gpuprobe
