#!/usr/bin/env python3
"""Medians of `transfer` runs against a slow careful run (issue 29: every row of at least 1 MiB
within 1%). Usage: transfer_vs_slow.py SLOW.json[.gz] RUN.json[.gz] [RUN ...]"""
import gzip
import json
import sys


def medians(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        result = next(r for r in json.load(f)["results"] if r["probe"] == "transfer")
    return {(r["params"]["memory"], r["params"]["direction"], r["params"]["bytes"]):
            r["metrics"]["bandwidth"]["median"] for r in result["rows"]}


def main(slow_path, run_paths):
    slow = medians(slow_path)
    runs = [medians(p) for p in run_paths]
    print(f"{'memory':10} {'dir':5} {'size':>7} {'slow GB/s':>10} " +
          " ".join(f"run{i + 1}/slow" for i in range(len(runs))))
    off = [0] * len(runs)
    rows = sorted(k for k in slow if k[2] >= 1 << 20)
    for k in rows:
        ratios = [run[k] / slow[k] for run in runs]
        for i, r in enumerate(ratios):
            off[i] += abs(r - 1) > 0.01
        print(f"{k[0]:10} {k[1]:5} {k[2] >> 20:5}Mi {slow[k]:10.3f} " +
              " ".join(f"{r:9.4f}{'*' if abs(r - 1) > 0.01 else ' '}" for r in ratios))
    for i, n in enumerate(off):
        print(f"run{i + 1}: {n} of {len(rows)} rows of at least 1 MiB more than 1% from the slow run (*)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
