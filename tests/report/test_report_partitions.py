#!/usr/bin/env python3
# Unit tests of the report's partitions plot: the stride series and transposes read from a result
# (no matplotlib needed), the GT200 line, and, where matplotlib is installed, the figure: the
# stride panel with a line per (order, pad) and the model, the transpose bars. Made-up input.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_partitions as pp  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def metric(gbps):
    return {"bandwidth": {"unit": "GB/s", "median": gbps, "min": gbps * 0.99, "max": gbps * 1.01}}


def stride(order, pad, s, gbps, slow):
    return {"params": {"mode": "stride", "order": order, "pad": pad, "stride": s},
            "metrics": metric(gbps), "model": {"gt200_slowdown": {"unit": "x", "value": slow}}}


def transpose(order, n, gbps):
    return {"params": {"mode": "transpose", "order": order, "n": n}, "metrics": metric(gbps)}


def result():
    rows = [stride("row", 0, 4096, 2900, 8), stride("row", 0, 256, 3000, 1),
            stride("row", 256, 512, 3000, 1), stride("scatter", 0, 256, 2990, 1),
            transpose("diagonal", 8192, 2600), transpose("row", 8192, 2500),
            transpose("row", 4096, 2400),
            {"params": {"mode": "stride", "order": "row", "pad": 0, "stride": 1024}, "metrics": {}}]
    return {"probe": "partitions", "status": "ok", "rows": rows, "findings": []}


class Data(unittest.TestCase):
    def test_series_by_order_and_pad_in_stride_order(self):
        s = pp.series(result())
        self.assertEqual(list(s), [("row", 0), ("row", 256), ("scatter", 0)])
        self.assertEqual([r["params"]["stride"] for r in s[("row", 0)]], [256, 4096])

    def test_gt200_line_divides_the_smallest_stride_by_the_slowdown(self):
        xs, ys = pp.gt200_line(pp.series(result())[("row", 0)])
        self.assertEqual(xs, [256, 4096])
        self.assertEqual(ys, [3000, 375])

    def test_transposes_by_side_and_order(self):
        t = pp.transposes(result())
        self.assertEqual(list(t), [4096, 8192])
        self.assertEqual(sorted(t[8192]), ["diagonal", "row"])
        self.assertEqual(rd.median(t[8192]["diagonal"]), 2600)


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_stride_lines_model_and_transpose_bars(self):
        pics = pp.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["partitions-strides"])
        left, right = [ax for ax in pics[0].figure.axes if ax.get_visible()]
        labels = [t.get_text() for t in left.get_legend().get_texts()]
        self.assertIn("GT200 model (row, aligned)", labels)
        self.assertEqual(len(labels), 4)
        self.assertEqual(len(right.patches), 3)

    def test_a_run_without_rows_gets_no_figure(self):
        res = {"probe": "partitions", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(pp.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
