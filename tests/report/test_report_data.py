#!/usr/bin/env python3
# Unit tests of the report's data side (no matplotlib needed): spreads behind the error bars,
# param matching, the headline figures' values and their verdicts from compare's output.
import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "gpuprobe_report"))
import headline  # noqa: E402
import page  # noqa: E402
import runs as rd  # noqa: E402


def row(params, samples=None, median=None, mn=None, mx=None, **parts):
    m = {"unit": "GB/s", "median": median, "min": mn, "max": mx}
    if samples is not None:
        m["samples"] = samples
    out = {"params": params, "metrics": {"bandwidth": m}}
    out.update(parts)
    return out


def run_of(results, index=0, name="NVIDIA H100 80GB HBM3", path="x/h100.json"):
    return rd.Run(path, {"schema_version": 3, "devices": [{"name": name}], "results": results},
                  index)


class Spread(unittest.TestCase):
    def test_rounds_give_lowest_and_highest_round_median(self):
        r = row({}, samples=[[10, 11, 12], [20, 21, 22], [5, 6, 7]], median=11)
        self.assertEqual(rd.spread(r), (6, 21))

    def test_one_round_gives_the_medians_order_statistic_interval(self):
        values = list(range(1, 101))  # n = 100: ranks 50 -+ 9.8 -> indices 40 and 60
        lo, hi = rd.spread(row({}, samples=[values], median=50.5))
        self.assertEqual((lo, hi), (41, 61))

    def test_no_samples_gives_min_and_max(self):
        self.assertEqual(rd.spread(row({}, median=5, mn=3, mx=9)), (3, 9))

    def test_nothing_known_gives_none(self):
        self.assertIsNone(rd.spread(row({}, median=None)))


class TrimmedSvg(unittest.TestCase):
    def test_geometry_is_rounded_to_a_hundredth_and_text_keeps_its_digits(self):
        svg = ('<path d="M 335.162659 341.958125 L 1.2 -0.004999"/>'
               '<text x="12.345678" y="3.999999" style="font-size: 8px; font-family: '
               "'DejaVu Sans', 'Arial', sans-serif\">rate (4.6875 Glookup/s) 0.78125x</text>")
        self.assertEqual(page.trimmed_svg(svg),
                         '<path d="M 335.16 341.96 L 1.2 -0.00"/><text x="12.35" y="4.00" '
                         'style="font-size: 8px; font-family: sans-serif">rate (4.6875 Glookup/s) '
                         '0.78125x</text>')


class Matching(unittest.TestCase):
    def test_numbers_match_across_int_and_float_not_text(self):
        self.assertTrue(rd.matches({"bytes": 64.0, "m": "pinned"}, {"bytes": 64}))
        self.assertFalse(rd.matches({"bytes": "64"}, {"bytes": 64}))
        self.assertFalse(rd.matches({"m": "pinned"}, {"bytes": 64}))


class Headline(unittest.TestCase):
    def setUp(self):
        self.item = headline.ITEMS[0]  # pinned H2D 64 MiB bandwidth
        p = dict(self.item.want)
        self.a = run_of([{"probe": "transfer", "status": "ok",
                          "rows": [row(p, samples=[[50, 51], [54, 55]], median=52.5)]}])
        self.b = run_of([{"probe": "transfer", "status": "ok",
                          "rows": [row(p, median=55, mn=54, mx=56)]}], 1, "NVIDIA H200")

    def test_side_value_is_the_rows_median_and_spread(self):
        self.assertEqual(headline.side_value(self.a, self.item), (52.5, 50.5, 54.5))
        self.assertEqual(headline.side_value(self.b, self.item), (55, 54, 56))

    def test_a_run_without_the_probe_has_no_value(self):
        self.assertIsNone(headline.side_value(run_of([]), self.item))

    def comparison(self, change, method="bootstrap", ratio=1.05):
        params = dict(self.item.want, metric="bandwidth", method=method, change=change)
        return {"results": [{"probe": "compare transfer",
                             "params": {"compared": "rows", "metric": "bandwidth"},
                             "rows": [{"params": params,
                                       "derived": {"ratio": {"value": ratio},
                                                   "ci_low": {"value": 1.01},
                                                   "ci_high": {"value": 1.09}}}]}]}

    def test_verdict_and_interval_come_from_compare(self):
        rows = headline.rows_for([self.a, self.b], self.comparison("faster"), 2)
        first = rows[0]
        self.assertEqual(first["ratio"], 1.05)  # compare's, not 55 / 52.5
        self.assertEqual(first["interval"], (1.01, 1.09))
        self.assertEqual(first["noise"], "yes: faster")
        same = headline.rows_for([self.a, self.b], self.comparison("same"), 2)[0]
        self.assertEqual(same["noise"], "no: within ±2%")
        band = headline.rows_for([self.a, self.b], self.comparison("same", "band"), 2)[0]
        self.assertIn("noise band", band["how"])

    def test_not_compared_is_not_decided(self):
        first = headline.rows_for([self.a, self.b], {"results": []}, 2)[0]
        self.assertEqual(first["noise"], "not decided")

    def test_missing_side_names_the_run(self):
        rows = headline.rows_for([self.a, run_of([], 1, "NVIDIA H200", "y/h200.json")],
                                 self.comparison("faster"), 2)
        self.assertEqual(rows[0]["noise"], "—")
        self.assertEqual(rows[0]["missing"], ["H200 · y/h200.json"])

    def test_derived_items_are_decided_by_the_sides_intervals(self):
        item = [i for i in headline.ITEMS if i.part == "derived"][0]
        self.assertEqual(headline.verdict(item, (1.6, 1.59, 1.62), (1.2, 1.1, 1.3), None, 2)[0],
                         "yes: intervals apart")
        self.assertEqual(headline.verdict(item, (1.6, 1.5, 1.7), (1.55, 1.45, 1.65), None, 2)[0],
                         "no: intervals overlap")


class ReadResult(unittest.TestCase):
    """Result files are read plain or gzipped (by their first bytes), within the size limit."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.doc = {"schema_version": 3, "devices": [{"name": "NVIDIA H100"}], "results": []}

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_gzipped_reads_as_the_plain_file_whatever_its_name(self):
        text = json.dumps(self.doc).encode()
        plain = rd.read_result(self.write("run.json", text))
        self.assertEqual(rd.read_result(self.write("run.json.gz", gzip.compress(text))), plain)
        self.assertEqual(rd.read_result(self.write("named-plain.json", gzip.compress(text))), plain)
        self.assertEqual(rd.load_runs([os.path.join(self.dir, "run.json.gz")])[0].gpu, "H100")

    def test_inflating_beyond_the_limit_is_refused(self):
        limit, rd.MAX_RESULT_BYTES = rd.MAX_RESULT_BYTES, 1000
        try:
            fits = self.write("fits.json.gz", gzip.compress(b" " * 999 + b"1"))
            self.assertEqual(rd.read_result(fits), 1)
            bomb = self.write("bomb.json.gz", gzip.compress(b" " * 1000 + b"1"))
            with self.assertRaises(ValueError):
                rd.read_result(bomb)
        finally:
            rd.MAX_RESULT_BYTES = limit


if __name__ == "__main__":
    unittest.main()
