#!/usr/bin/env python3
# Unit tests of the report's occupancy plot: the routes read from an occupancy result (no
# matplotlib needed) and, where matplotlib is installed, the figure: one panel per op, a line per
# route and Little's law dashed. The input is a small made-up result.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_occupancy as po  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def row(op, warps, ilp, width, gbps, model=None):
    out = {"params": {"op": op, "warps": warps, "ilp": ilp, "width": width},
           "metrics": {"bandwidth": {"unit": "GB/s", "median": gbps, "min": gbps * 0.99,
                                     "max": gbps * 1.01}}}
    if model is not None:
        out["model"] = {"bandwidth": {"unit": "GB/s", "value": model}}
    return out


def result():
    rows = [row("read", 64, 1, 4, 1800, 3000), row("read", 2, 1, 4, 60, 100),
            row("read", 8, 1, 4, 240, 400), row("read", 8, 8, 4, 1850), row("read", 8, 1, 16, 950),
            row("read", 8, 8, 16, 3000), row("write", 8, 1, 4, 2900), row("write", 2, 1, 4, 900),
            {"params": {"op": "read", "warps": 4, "ilp": 1, "width": 4}, "metrics": {}}]
    return {"probe": "occupancy", "status": "ok", "rows": rows, "findings": []}


class Data(unittest.TestCase):
    def test_routes_per_op_in_bytes_in_flight_order(self):
        s = po.series(result())
        self.assertEqual(list(s), ["read", "write"])
        self.assertEqual(list(s["read"]),
                         ["warps (ILP 1, 4 B)", "8 warps, 4 B: ILP", "8 warps, 16 B: ILP"])
        warps = [r["params"]["warps"] for r in s["read"]["warps (ILP 1, 4 B)"]]
        self.assertEqual(warps, [2, 8, 64])  # the row without a bandwidth left out
        self.assertEqual(list(s["write"]), ["warps (ILP 1, 4 B)"])

    def test_bytes_in_flight_and_the_model(self):
        self.assertEqual(po.in_flight(row("read", 8, 8, 16, 1)), 8 * 32 * 8 * 16)
        self.assertEqual(po.model_points(result(), "read"), [(256, 100), (1024, 400), (8192, 3000)])


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_one_panel_per_op_a_line_per_route(self):
        pics = po.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["occupancy-in-flight"])
        panels = [ax for ax in pics[0].figure.axes if ax.get_visible()]
        self.assertEqual([ax.get_title() for ax in panels], ["read", "write"])
        self.assertEqual(len(panels[0].get_legend().get_texts()), 4)  # 3 routes + the model

    def test_a_run_without_rows_gets_no_figure(self):
        res = {"probe": "occupancy", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(po.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
