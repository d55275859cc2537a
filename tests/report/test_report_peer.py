#!/usr/bin/env python3
# Unit tests of the report's peer bandwidth matrix: the matrices from a peer result's rows (no
# matplotlib needed), and, where matplotlib is installed, the heat map drawn from them. The input
# is the synthetic 2-GPU peer result of the C++ tests (tests/golden/peer-2gpu.json).
import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "gpuprobe_report"))
import pair_matrix as pm  # noqa: E402
import runs as rd  # noqa: E402

PEER_2GPU = os.path.join(HERE, "..", "golden", "peer-2gpu.json")

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def peer_result():
    with open(PEER_2GPU, encoding="utf-8") as f:
        return json.load(f)["results"][0]


class Matrices(unittest.TestCase):
    def test_one_matrix_per_mode_and_direction(self):
        ms = pm.peak_matrices(peer_result())
        self.assertEqual([pm.path_label(m) for m in ms],
                         ["mode ce · direction uni", "mode ce · direction bidir",
                          "mode staged · direction uni", "mode staged · direction bidir"])

    def test_cells_are_the_peak_over_sizes_row_src_column_dst(self):
        m = pm.peak_matrices(peer_result())[0]
        self.assertEqual(m["devices"], [0, 1])
        self.assertEqual(m["unit"], "GB/s")
        self.assertAlmostEqual(m["cells"][0][1], 40.1)  # 64 MiB, not 4 KiB (2.1)
        self.assertAlmostEqual(m["cells"][1][0], 41.0)
        self.assertIsNone(m["cells"][0][0])
        self.assertIsNone(m["cells"][1][1])

    def test_rows_without_src_or_dst_are_left_out(self):
        res = peer_result()
        stray = copy.deepcopy(res["rows"][1])
        del stray["params"]["dst"]
        stray["metrics"]["bandwidth"]["median"] = 1000.0
        res["rows"].append(stray)
        self.assertAlmostEqual(pm.peak_matrices(res)[0]["cells"][0][1], 40.1)
        self.assertEqual(pm.peak_matrices({"rows": [stray]}), [])

    def test_rows_without_metrics_give_none(self):
        res = peer_result()
        for r in res["rows"]:
            r["metrics"] = {}
        self.assertEqual(pm.peak_matrices(res), [])


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
class HeatMap(unittest.TestCase):
    def test_one_figure_with_a_heat_map_per_path(self):
        import plot_peer
        pics = plot_peer.pictures(rd.load_runs([PEER_2GPU]))
        self.assertEqual([p.name for p in pics], ["peer-bandwidth-matrix"])
        panels = [ax for ax in pics[0].figure.axes if ax.get_title()]
        self.assertEqual(len(panels), 4)
        for ax in panels:
            self.assertEqual(len(ax.get_images()), 1)
            self.assertEqual(sorted(t.get_text() for t in ax.texts)[:2], ["-", "-"])
        first = panels[0].get_images()[0].get_array()
        self.assertAlmostEqual(float(first[0][1]), 40.1)
        self.assertAlmostEqual(float(first[1][0]), 41.0)

    def test_a_run_without_peer_rows_gets_no_figure(self):
        import plot_peer
        run = rd.Run("x/none.json", {"schema_version": 3, "devices": [], "results": [
            {"probe": "peer", "status": "skipped", "rows": []}]}, 0)
        self.assertEqual(plot_peer.pictures([run]), [])


if __name__ == "__main__":
    unittest.main()
