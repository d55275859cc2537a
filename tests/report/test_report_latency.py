#!/usr/bin/env python3
# Unit tests of the report's latency plot: the series, levels and traces read from a latency
# result (no matplotlib needed), and, where matplotlib is installed, the figure drawn from them:
# one panel per series, log x, a marked span per level. The input is a small made-up result.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_latency as pl  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def chase(stride, size, cycles, carveout=0):
    return {"params": {"mode": "chase", "stride": stride, "carveout": carveout, "bytes": size},
            "metrics": {"latency": {"unit": "cycles", "median": cycles, "min": cycles * 0.99,
                                    "max": cycles * 1.01}}}


def level(stride, n, first, last, cycles, served):
    return {"id": "latency_level", "params": {"stride": stride, "carveout": 0, "level": n},
            "values": {"latency": {"unit": "cycles", "value": cycles}},
            "outcome": {"from_bytes": first, "size": last, "served_by": served}}


def result():
    kib, mib = 1024, 1 << 20
    rows = [chase(32, s * kib, 32.0) for s in (1, 16, 128)]
    rows += [chase(32, s * mib, 275.0) for s in (1, 4, 16)]
    rows += [chase(32, s * mib, 675.0) for s in (256, 128)]  # out of order: sorted by size
    rows += [chase(2 * mib, s * mib, 280.0) for s in (32, 1024)]
    rows.append({"params": {"mode": "trace", "stride": 32, "carveout": 0, "l2_pct": 75,
                            "bytes": 37.5 * mib},
                 "derived": {"fast_cycles": {"unit": "cycles", "value": 282.0},
                             "slow_cycles": {"unit": "cycles", "value": 475.0}}})
    findings = [level(32, 2, 1 * mib, 16 * mib, 275.0, "L2"),  # out of order: by level
                level(32, 1, 1 * kib, 128 * kib, 32.0, "L1"),
                level(32, 3, 128 * mib, 256 * mib, 675.0, "DRAM"),
                level(2 * mib, 1, 32 * mib, 1024 * mib, 280.0, "L2"),
                {"id": "latency_far_l2", "params": {"l2_pct": 75, "bytes": 37.5 * mib},
                 "values": {}, "outcome": {"clusters": "two clusters (near and far L2)"}}]
    return {"probe": "latency", "status": "ok", "rows": rows, "findings": findings}


class Data(unittest.TestCase):
    def test_cache_series_first_then_pages_each_in_working_set_order(self):
        s = pl.series(result())
        self.assertEqual(list(s), [(32, 0), (2 << 20, 0)])
        sizes = [r["params"]["bytes"] for r in s[(32, 0)]]
        self.assertEqual(sizes, sorted(sizes))
        self.assertEqual(len(sizes), 8)

    def test_levels_of_a_series_fastest_first_with_span_latency_and_server(self):
        lv = pl.levels(result(), 32, 0)
        self.assertEqual([x[3] for x in lv], ["L1", "L2", "DRAM"])
        self.assertEqual(lv[0][:3], (1024, 128 * 1024, 32.0))
        self.assertEqual(len(pl.levels(result(), 2 << 20, 0)), 1)
        self.assertEqual(pl.levels(result(), 128, 0), [])

    def test_traces_give_near_and_far_l2_and_whether_they_separate(self):
        self.assertEqual(pl.traces(result()), [(37.5 * (1 << 20), 282.0, 475.0, True)])


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_one_panel_per_series_log_x_a_span_per_level(self):
        pics = pl.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["latency-working-set"])
        panels = [ax for ax in pics[0].figure.axes if ax.get_visible()]
        self.assertEqual(len(panels), 2)
        for ax in panels:
            self.assertEqual(ax.get_xscale(), "log")
        cache, pages = panels
        self.assertEqual(len(cache.patches), 3)  # the three levels' spans
        self.assertEqual(len(pages.patches), 1)
        labels = [t.get_text() for t in cache.texts]
        self.assertIn("32 L1", labels)
        self.assertIn("675 DRAM", labels)
        self.assertIn("far L2 475", labels)

    def test_a_run_without_chase_rows_gets_no_figure(self):
        res = {"probe": "latency", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(pl.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
