#!/usr/bin/env python3
# Unit tests of the report's cache plot: the series and plateaus read from a cache result (no
# matplotlib needed), and, where matplotlib is installed, the figure drawn from them: one panel
# per scope, log x, a marked span per plateau. The input is a small made-up result.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_cache as pc  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

KIB, MIB = 1024, 1 << 20


def ring(scope, op, size, gbps):
    return {"params": {"scope": scope, "op": op, "working_set_bytes": size},
            "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "min": gbps * 0.99,
                                      "max": gbps * 1.01}}}


def plateau(scope, op, level, first, last, gbps, peak=None):
    return {"id": "cache_plateau", "params": {"scope": scope, "op": op, "level": level},
            "values": {"plateau": {"unit": "GB/s", "value": gbps},
                       "from_bytes": {"unit": "B", "value": first},
                       "to_bytes": {"unit": "B", "value": last},
                       "model_peak": {"unit": "GB/s", "value": peak}}}


def result():
    rows = [ring("device", "read", s * MIB, 8200.0) for s in (16, 4, 8)]  # out of order
    rows += [ring("device", "read", s * MIB, 3140.0) for s in (256, 512)]
    rows += [ring("device", "copy", s * MIB, 7200.0) for s in (4, 8)]
    rows += [ring("sm", "read", s * KIB, 32500.0) for s in (16, 64)]
    rows.append({"params": {"scope": "sm", "op": "read", "working_set_bytes": 1 * MIB}})  # planned
    findings = [plateau("device", "read", "DRAM", 256 * MIB, 512 * MIB, 3140.0, 3352.0),
                plateau("device", "read", "L2", 4 * MIB, 16 * MIB, 8200.0),  # out of order
                plateau("sm", "read", "L1", 16 * KIB, 64 * KIB, 32500.0, 33450.0),
                {"id": "cache_knee", "params": {"scope": "device", "op": "read"},
                 "values": {"knee_bytes": {"unit": "B", "value": 40 * MIB}}}]
    return {"probe": "cache", "status": "ok", "rows": rows, "findings": findings}


class Data(unittest.TestCase):
    def test_series_by_scope_then_op_each_in_working_set_order_without_planned_rows(self):
        s = pc.series(result())
        self.assertEqual(list(s), [("sm", "read"), ("device", "read"), ("device", "copy")])
        sizes = [r["params"]["working_set_bytes"] for r in s[("device", "read")]]
        self.assertEqual(sizes, sorted(sizes))
        self.assertEqual(len(sizes), 5)
        self.assertEqual(len(s[("sm", "read")]), 2)

    def test_plateaus_of_a_series_smallest_first_with_level_and_model_peak(self):
        p = pc.plateaus(result(), "device", "read")
        self.assertEqual([x[3] for x in p], ["L2", "DRAM"])
        self.assertEqual(p[0][:3], (4 * MIB, 16 * MIB, 8200.0))
        self.assertIsNone(p[0][4])
        self.assertEqual(p[1][4], 3352.0)
        self.assertEqual(pc.plateaus(result(), "device", "copy"), [])


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_one_panel_per_scope_log_x_a_span_per_plateau(self):
        pics = pc.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["cache-working-set"])
        sm, device = pics[0].figure.axes
        for ax in (sm, device):
            self.assertEqual(ax.get_xscale(), "log")
        self.assertEqual(len(device.patches), 2)
        self.assertEqual(len(sm.patches), 1)
        labels = [t.get_text() for t in device.texts]
        self.assertEqual(labels, ["L2 8200", "DRAM 3140"])

    def test_a_run_without_measured_rows_gets_no_figure(self):
        res = {"probe": "cache", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(pc.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
