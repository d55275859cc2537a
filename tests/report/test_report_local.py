#!/usr/bin/env python3
# Unit tests of the report's local plot: the series read from a local result (no matplotlib
# needed) and, where matplotlib is installed, the figure: one panel per kernel, a line per
# carve-out, each point labelled with its registers and blocks. The input is a small made-up result.
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import plot_local as pl  # noqa: E402
import runs as rd  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def row(kernel, carveout, cap, regs, spill, blocks, ps):
    q = {"unit": "", "value": 0}
    derived = {"registers": dict(q, value=regs), "local_bytes": dict(q, unit="B", value=spill),
               "blocks_per_sm": dict(q, value=blocks)}
    return {"params": {"kernel": kernel, "carveout": carveout, "max_registers": cap},
            "metrics": {"step_time": {"unit": "ps", "median": ps, "min": ps * 0.99,
                                      "max": ps * 1.01}},
            "derived": derived}


def result():
    rows = [row("memory", 0, 32, 32, 344, 8, 1.2), row("memory", 0, 0, 112, 0, 2, 4.0),
            row("compute", 0, 32, 32, 360, 8, 16.0), row("compute", 0, 0, 74, 0, 3, 4.0),
            row("compute", 0, 128, 74, 0, 3, 4.1), row("compute", 100, 0, 74, 0, 3, 4.0),
            {"params": {"kernel": "compute", "carveout": 0, "max_registers": 64}, "metrics": {}}]
    return {"probe": "local", "status": "ok", "rows": rows, "findings": []}


class Data(unittest.TestCase):
    def test_series_by_kernel_and_carveout_in_spill_order(self):
        s = pl.series(result())
        self.assertEqual(list(s), [("compute", 0), ("compute", 100), ("memory", 0)])
        spills = [rd.part_value(r, "derived", "local_bytes") for r in s[("compute", 0)]]
        self.assertEqual(spills, [0, 0, 360])  # the row without derived values left out
        self.assertEqual(s[("memory", 0)][0]["params"]["max_registers"], 0)

    def test_a_point_is_labelled_with_registers_and_blocks(self):
        self.assertEqual(pl.label(row("memory", 0, 32, 32, 344, 8, 1.2)), "32r 8b")


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class Figure(unittest.TestCase):
    def run_of(self, res):
        return rd.Run("x/h100.json", {"schema_version": 3, "devices": [{"name": "H100"}],
                                      "results": [res]}, 0)

    def test_one_panel_per_kernel_a_line_per_carveout(self):
        pics = pl.pictures([self.run_of(result())])
        self.assertEqual([p.name for p in pics], ["local-spills"])
        panels = [ax for ax in pics[0].figure.axes if ax.get_visible()]
        self.assertEqual([ax.get_title() for ax in panels], ["compute kernel", "memory kernel"])
        self.assertEqual(len(panels[0].get_legend().get_texts()), 2)
        self.assertIn("32r 8b", [t.get_text() for t in panels[1].texts])

    def test_a_run_without_rows_gets_no_figure(self):
        res = {"probe": "local", "status": "skipped", "rows": [], "findings": []}
        self.assertEqual(pl.pictures([self.run_of(res)]), [])


if __name__ == "__main__":
    unittest.main()
