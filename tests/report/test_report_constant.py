#!/usr/bin/env python3
# Unit tests of the report's constant plot: the lookup series (smallest table, narrowest width,
# in distinct order), the chase series and levels read from a constant result (no matplotlib
# needed), and, where matplotlib is installed, the figure: two panels, log axes, a bar per level.
# The input is a small made-up result.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_constant as pc  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def metric(name, unit, v):
    return {name: {"unit": unit, "median": v, "min": v * 0.99, "max": v * 1.01}}


def lookup(path, width, distinct, size, rate):
    return {"params": {"mode": "lookup", "path": path, "width": width, "distinct": distinct,
                       "bytes": size}, "metrics": metric("lookups", "Glookup/s", rate)}


def chase(path, size, cycles):
    return {"params": {"mode": "chase", "path": path, "bytes": size},
            "metrics": metric("latency", "cycles", cycles)}


def level(path, n, first, last, cycles):
    return {"id": "constant_latency_level", "params": {"path": path, "level": n},
            "values": {"latency": {"unit": "cycles", "value": cycles}},
            "outcome": {"from_bytes": first, "size": last}}


def result():
    rows = [lookup("global", 4, d, 4096, 2600 / d) for d in (32, 1, 8)]  # out of order
    rows += [lookup("global", 16, 1, 4096, 1900), lookup("global", 4, 1, 1 << 20, 2200)]
    rows += [lookup("constant", 4, d, 4096, 730 / d) for d in (1, 32)]
    rows += [chase("constant", s, c) for s, c in ((4096, 98), (1024, 28), (2048, 28))]
    rows += [chase("global", s, 41) for s in (1024, 65536)]
    findings = [level("constant", 2, 4096, 4096, 98.0), level("constant", 1, 1024, 2048, 28.0)]
    return {"probe": "constant", "status": "ok", "rows": rows, "findings": findings}


class Data(unittest.TestCase):
    def test_lookups_at_the_smallest_table_and_narrowest_width_in_distinct_order(self):
        series, at = pc.lookup_series(result())
        self.assertEqual(at, (4096, 4))
        self.assertEqual(list(series), ["constant", "global"])
        self.assertEqual([r["params"]["distinct"] for r in series["global"]], [1, 8, 32])

    def test_chases_in_size_order_and_levels_fastest_first(self):
        chases = pc.chase_series(result())
        self.assertEqual([r["params"]["bytes"] for r in chases["constant"]], [1024, 2048, 4096])
        self.assertEqual(pc.levels(result(), "constant"), [(1024, 2048, 28.0), (4096, 4096, 98.0)])
        self.assertEqual(pc.levels(result(), "texture"), [])


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_two_log_panels_and_a_bar_per_level(self):
        pics = pc.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["constant-paths"])
        left, right = [ax for ax in pics[0].figure.axes if ax.get_visible()]
        self.assertEqual((left.get_xscale(), left.get_yscale()), ("log", "log"))
        self.assertEqual(right.get_xscale(), "log")
        self.assertEqual(len(right.collections) - len(right.containers), 2)  # the level bars

    def test_a_run_without_rows_gets_no_figure(self):
        res = {"probe": "constant", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(pc.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
