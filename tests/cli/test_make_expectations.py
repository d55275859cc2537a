#!/usr/bin/env python3
"""Tests scripts/make-expectations.py's rule: a bound only for a value that every reference run
has and that a healthy run cannot lack; each value left out says why.

Usage: test_make_expectations.py [SCRIPT]   (default: the repository's scripts/make-expectations.py)
"""
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "make-expectations.py")


def load_script(path):
    spec = importlib.util.spec_from_file_location("make_expectations", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def value(v, unit="x"):
    return {"unit": unit, "value": v}


def zerocopy_summary(stride, break_even, first=2.0, last=0.8, extra=None):
    values = {"break_even_reuse": value(break_even, ""),
              "copy_over_zerocopy_first": value(first),
              "copy_over_zerocopy_last": value(last)}
    values.update(extra or {})
    return {"params": {"direction": "read", "memory": "hostalloc", "stride": stride,
                       "element_bytes": 16},
            "values": values}


def run(summaries):
    """A run of one GPU with one ok zerocopy result holding these summary rows."""
    return {"schema_version": 3, "tool": {"git": "test"}, "devices": [{"name": "Test GPU"}],
            "results": [{"probe": "zerocopy", "status": "ok", "rows": [], "findings": [],
                         "summary": summaries}]}


def chase(stride, size, cycles):
    return {"params": {"mode": "chase", "stride": stride, "carveout": 0, "bytes": size},
            "metrics": {"latency": {"unit": "cycles", "median": cycles, "rel_noise": 0.001}}}


def ring(scope, size, gbps):
    return {"params": {"scope": scope, "op": "read", "working_set_bytes": size},
            "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "rel_noise": 0.001}}}


def cache_run(l2, dram):
    """A run of one GPU with one ok cache result: a device series of three sizes and one shared
    size, and a planned row without a metric."""
    rows = [ring("device", 4 << 20, l2), ring("device", 32 << 20, 7000.0),
            ring("device", 512 << 20, dram), ring("shared", 64 << 10, 30000.0),
            {"params": {"scope": "sm", "op": "read", "working_set_bytes": 1 << 20}}]
    return {"schema_version": 3, "tool": {"git": "test"}, "devices": [{"name": "Test GPU"}],
            "results": [{"probe": "cache", "status": "ok", "rows": rows, "findings": [],
                         "summary": []}]}


def latency_run(l1, dram, near=282.0, far=475.0):
    """A run of one GPU with one ok latency result: a cache series, a page series, a trace."""
    rows = [chase(32, 1024, l1), chase(32, 4096, l1), chase(32, 256 << 20, dram),
            chase(2 << 20, 32 << 20, 280.0), chase(2 << 20, 2 << 30, 900.0),
            {"params": {"mode": "trace", "stride": 32, "carveout": 0, "l2_pct": 75,
                        "bytes": 39321600},
             "derived": {"fast_cycles": value(near, "cycles"),
                         "slow_cycles": value(far, "cycles")}}]
    return {"schema_version": 3, "tool": {"git": "test"}, "devices": [{"name": "Test GPU"}],
            "results": [{"probe": "latency", "status": "ok", "rows": rows, "findings": [],
                         "summary": []}]}


class MakeExpectations(unittest.TestCase):
    def make(self, runs):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, r in enumerate(runs):
                paths.append(os.path.join(d, f"run-{i}.json"))
                with open(paths[-1], "w") as f:
                    json.dump(r, f)
            err = io.StringIO()
            with redirect_stderr(err):
                name, text = self.script.make(paths)
            return text

    @classmethod
    def setUpClass(cls):
        cls.script = load_script(sys.argv[1] if len(sys.argv) > 1 else SCRIPT)

    def line_for(self, text, stride, name):
        key = f"stride={stride},element_bytes=16].{name}"
        lines = [line for line in text.splitlines() if key in line and not line.startswith("# 3")]
        self.assertEqual(len(lines), 1, text)
        return lines[0]

    def test_break_even_every_run_has_is_not_bounded(self):
        # Every run crossed at stride 32; a healthy run that decides "no crossing" lacks it.
        runs = [run([zerocopy_summary(32, be)]) for be in (6.1, 6.3, 6.5)]
        line = self.line_for(self.make(runs), 32, "break_even_reuse")
        self.assertTrue(line.startswith("# not gated: "), line)
        self.assertIn("no crossing", line)

    def test_value_null_in_another_pattern_is_not_bounded(self):
        # 'crossover' is bounded nowhere by name, but is null at stride 1 in some run: the outcome
        # it reports can leave it out, so stride 32 gets no bound either, saying where it was null.
        extra = {"crossover": value(3.0)}
        runs = [run([zerocopy_summary(1, None, extra={"crossover": value(None)}),
                     zerocopy_summary(32, 6.0, extra=extra)])] * 3
        saved, self.script.PROBES = self.script.PROBES, (("zerocopy", self.pick_crossover),)
        try:
            text = self.make(runs)
        finally:
            self.script.PROBES = saved
        line = self.line_for(text, 32, "crossover")
        self.assertTrue(line.startswith("# not gated: "), line)
        self.assertIn("null in zerocopy.summary[", line)
        self.assertIn("stride=1", line)

    def pick_crossover(self, result):
        out = {}
        for s in result["summary"]:
            key = self.script.selector("zerocopy", s["params"],
                                       ("direction", "memory", "stride", "element_bytes"),
                                       ".summary")
            out[key + ".crossover"] = self.script.plain_value(s["values"], "crossover")
        return out

    def test_value_some_run_lacks_is_not_bounded(self):
        runs = [run([zerocopy_summary(32, 6.0, last=v)]) for v in (0.8, None, 0.82)]
        line = self.line_for(self.make(runs), 32, "copy_over_zerocopy_last")
        self.assertEqual(line.split(": ")[-1], "no value in 1 of 3 runs")

    def test_value_every_run_has_and_none_can_lack_is_bounded(self):
        runs = [run([zerocopy_summary(32, 6.0, first=v)]) for v in (2.0, 2.02, 2.04)]
        text = self.make(runs)
        self.assertIn("stride=32,element_bytes=16].copy_over_zerocopy_first >= 1.9x\n", text)

    def test_latency_plateaus_get_upper_bounds_from_the_highest_value(self):
        # L1 (smallest working set), DRAM (largest), near and far L2 (the trace's clusters): a
        # latency is healthy when low, so the bound is the highest value x (1 + margin).
        runs = [latency_run(32.0, dram) for dram in (670.0, 675.0, 680.0)]
        text = self.make(runs)
        self.assertIn("latency[mode=chase,stride=32,carveout=0,bytes=1024].latency <= 33.6\n", text)
        # DRAM: spread 10/675 = 1.5%, margin 5%: 680 x 1.05 = 714.
        self.assertIn("latency[mode=chase,stride=32,carveout=0,bytes=268435456].latency <= 714\n",
                      text)
        self.assertIn("latency[mode=trace,stride=32,carveout=0,l2_pct=75].fast_cycles <= 296.1\n",
                      text)
        self.assertIn("latency[mode=trace,stride=32,carveout=0,l2_pct=75].slow_cycles <= 498.8\n",
                      text)
        # Neither a middle working set nor the page series (a TLB step is no plateau every GPU has).
        self.assertNotIn("bytes=4096", text)
        self.assertNotIn("stride=2097152", text)
        self.assertNotIn(">=", "".join(l for l in text.splitlines() if l.startswith("latency")))

    def test_cache_bounds_the_smallest_and_largest_working_set_of_each_series(self):
        runs = [cache_run(8000.0, dram) for dram in (3100.0, 3120.0, 3140.0)]
        text = self.make(runs)
        # L2: one value, margin 5%: 8000 x 0.95 = 7600.
        self.assertIn("cache[scope=device,op=read,working_set_bytes=4194304].bandwidth >= 7600GB/s\n",
                      text)
        # DRAM: spread 40/3120 = 1.3%, margin 5%: 3100 x 0.95 = 2945.
        self.assertIn(
            "cache[scope=device,op=read,working_set_bytes=536870912].bandwidth >= 2945GB/s\n", text)
        # A series of one size is bounded once; a middle size and a planned row not at all.
        self.assertEqual(text.count("scope=shared"), 1)
        self.assertNotIn("working_set_bytes=33554432", text)
        self.assertNotIn("scope=sm", text)

    def test_local_step_times_get_upper_bounds_unspilled_and_most_spilled(self):
        # Per kernel at the first carve-out: cap 0 and the smallest cap; lower is healthier.
        def row(kernel, carveout, cap, ps):
            return {"params": {"kernel": kernel, "carveout": carveout, "max_registers": cap},
                    "metrics": {"step_time": {"unit": "ps", "median": ps, "rel_noise": 0.001}}}
        runs = []
        for ps in (10.0, 10.2, 10.4):
            rows = [row("compute", 0, 0, ps), row("compute", 0, 64, 2 * ps),
                    row("compute", 0, 32, 4 * ps), row("compute", 100, 32, 9 * ps)]
            runs.append({"schema_version": 3, "tool": {"git": "test"},
                         "devices": [{"name": "Test GPU"}],
                         "results": [{"probe": "local", "status": "ok", "rows": rows,
                                      "findings": [], "summary": []}]})
        text = self.make(runs)
        # spread 0.4/10.2 = 3.9%, margin 7.8%: 10.4 x 1.0784 = 11.22; 41.6 x 1.0784 = 44.86.
        self.assertIn("local[kernel=compute,carveout=0,max_registers=0].step_time <= 11.22\n", text)
        self.assertIn("local[kernel=compute,carveout=0,max_registers=32].step_time <= 44.86\n", text)
        self.assertNotIn("max_registers=64", text)
        self.assertNotIn("carveout=100", text)

    def test_occupancy_bounds_the_fewest_and_the_most_bytes_in_flight_per_op(self):
        def row(op, warps, ilp, width, gbps):
            return {"params": {"op": op, "warps": warps, "ilp": ilp, "width": width},
                    "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "rel_noise": 0.001}}}
        runs = []
        for gbps in (3000.0, 3030.0, 3060.0):
            rows = [row("read", 2, 1, 4, gbps / 40), row("read", 64, 1, 4, gbps / 2),
                    row("read", 8, 8, 16, gbps), row("write", 8, 1, 4, gbps)]
            runs.append({"schema_version": 3, "tool": {"git": "test"},
                         "devices": [{"name": "Test GPU"}],
                         "results": [{"probe": "occupancy", "status": "ok", "rows": rows,
                                      "findings": [], "summary": []}]})
        text = self.make(runs)
        # spread 60/3030 = 2.0%, margin 5%: 3000 x 0.95 = 2850; 75 x 0.95 = 71.25.
        self.assertIn("occupancy[op=read,warps=8,ilp=8,width=16].bandwidth >= 2850GB/s\n", text)
        self.assertIn("occupancy[op=read,warps=2,ilp=1,width=4].bandwidth >= 71.25GB/s\n", text)
        self.assertIn("occupancy[op=write,warps=8,ilp=1,width=4].bandwidth >= 2850GB/s\n", text)
        self.assertNotIn("warps=64", text)

    def test_partitions_bounds_the_smallest_stride_per_order_and_pad_and_each_transpose(self):
        def stride(order, pad, size, gbps):
            return {"params": {"mode": "stride", "order": order, "pad": pad, "stride": size},
                    "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "rel_noise": 0.001}}}

        def transpose(order, n, gbps):
            return {"params": {"mode": "transpose", "order": order, "n": n},
                    "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "rel_noise": 0.001}}}
        runs = []
        for k in (1.0, 1.02):
            rows = [stride("row", 0, 256, 3000 * k), stride("row", 0, 4096, 2900 * k),
                    stride("row", 256, 512, 3010 * k), stride("row", 256, 4352, 2950 * k),
                    transpose("row", 4096, 2000 * k), transpose("diagonal", 4096, 2100 * k)]
            runs.append({"schema_version": 3, "tool": {"git": "test"},
                         "devices": [{"name": "Test GPU"}],
                         "results": [{"probe": "partitions", "status": "ok", "rows": rows,
                                      "findings": [], "summary": []}]})
        text = self.make(runs)
        # spread 2/101 = 2%, margin 5%: 3000 x 0.95 = 2850, 3010 x 0.95 = 2860, 2000 x 0.95.
        self.assertIn("partitions[mode=stride,order=row,pad=0,stride=256].bandwidth >= 2850GB/s\n",
                      text)
        self.assertIn("partitions[mode=stride,order=row,pad=256,stride=512].bandwidth >= "
                      "2860GB/s\n", text)
        self.assertIn("partitions[mode=transpose,order=row,n=4096].bandwidth >= 1900GB/s\n", text)
        self.assertIn("partitions[mode=transpose,order=diagonal,n=4096].bandwidth >= 1995GB/s\n",
                      text)
        self.assertNotIn("stride=4096", text)
        self.assertNotIn("stride=4352", text)

    def test_constant_bounds_bandwidth_from_below_and_chase_latency_from_above(self):
        def lookup(path, distinct, size, gbps):
            return {"params": {"mode": "lookup", "path": path, "width": 4, "distinct": distinct,
                               "bytes": size},
                    "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "rel_noise": 0.001}}}

        def chase(path, size, cycles):
            return {"params": {"mode": "chase", "path": path, "bytes": size},
                    "metrics": {"latency": {"unit": "cycles", "median": cycles,
                                            "rel_noise": 0.001}}}
        runs = []
        for k in (1.0, 1.02):
            rows = [lookup("constant", 1, 1024, 12000 * k), lookup("constant", 32, 1024, 500 * k),
                    lookup("constant", 8, 1024, 2000 * k), lookup("constant", 1, 16384, 1200 * k),
                    chase("global", 1024, 32 * k), chase("global", 65536, 40 * k),
                    chase("global", 256 << 20, 600 * k)]
            runs.append({"schema_version": 3, "tool": {"git": "test"},
                         "devices": [{"name": "Test GPU"}],
                         "results": [{"probe": "constant", "status": "ok", "rows": rows,
                                      "findings": [], "summary": []}]})
        text = self.make(runs)
        # spread 2/101 = 2%, margin 5%: 12000 x 0.95 = 11400 (>=); 32.64 x 1.05 = 34.27 and
        # 612 x 1.05 = 642.6 (<=).
        self.assertIn("constant[mode=lookup,path=constant,width=4,distinct=1,bytes=1024]."
                      "bandwidth >= 1.14e+04GB/s\n", text)
        self.assertIn("constant[mode=lookup,path=constant,width=4,distinct=32,bytes=1024]."
                      "bandwidth >= 475GB/s\n", text)
        self.assertIn("constant[mode=chase,path=global,bytes=1024].latency <= 34.27\n", text)
        self.assertIn("constant[mode=chase,path=global,bytes=268435456].latency <= 642.6\n", text)
        # Neither a middle distinct count, a larger table's lookups, nor a middle chase size.
        self.assertNotIn("distinct=8", text)
        self.assertNotIn("bytes=16384", text)
        self.assertNotIn("bytes=65536", text)

    def test_constant_second_level_is_bounded_only_when_every_run_chased_on_sm_0(self):
        def chase(size, cycles):
            return {"params": {"mode": "chase", "path": "constant", "bytes": size},
                    "metrics": {"latency": {"unit": "cycles", "median": cycles,
                                            "rel_noise": 0.001}}}

        def constant_run(method, level):
            return {"schema_version": 3, "tool": {"git": "test"},
                    "devices": [{"name": "Test GPU"}],
                    "results": [{"probe": "constant", "status": "ok", "method": method,
                                 "rows": [chase(1024, 28.5), chase(65536, level)],
                                 "findings": [], "summary": []}]}
        pinned = "chases: one thread on SM 0, 1024 dependent loads"
        unpinned = "chases: one thread, 1024 dependent loads"
        key = "constant[mode=chase,path=constant,bytes=65536].latency"
        both = self.make([constant_run(pinned, 102.5), constant_run(pinned, 102.5)])
        self.assertIn(key + " <= 107.6\n", both)  # 102.5 x 1.05
        mixed = self.make([constant_run(pinned, 102.5), constant_run(unpinned, 94.5)])
        self.assertIn("# not gated: " + key + ": the constant path's second level", mixed)
        self.assertNotIn(key + " <=", mixed)
        # The smallest table is bounded either way.
        self.assertIn("constant[mode=chase,path=constant,bytes=1024].latency <= ", mixed)

    def test_stderr_counts_bounds_and_values_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            with open(path, "w") as f:
                json.dump(run([zerocopy_summary(32, 6.0)]), f)
            err = io.StringIO()
            out = io.StringIO()
            with redirect_stderr(err):
                sys.stdout, saved = out, sys.stdout
                try:
                    self.script.main([path])
                finally:
                    sys.stdout = saved
        self.assertIn("test-gpu.txt: 2 bounds; 1 values left out", err.getvalue())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
