#!/usr/bin/env python3
"""Writes the files `gpuprobe check` must refuse (exit 4), made from one healthy run.

Usage: check_inputs.py RUN.json[.gz] DIR

DIR gets: no-results.json (the run, its results emptied), only-failed.json (one failed transfer
result, nothing else), transfer-failed.json (the run with its transfer result failed),
no-coalescing.json (the run without its coalescing result) and arbitrary.json ({"a": 1}).
"""
import gzip
import json
import os
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def failed(result):
    out = dict(result, status="failed", reason="wrong result: 3 of 16777216 words differ")
    out.update(rows=[], summary=[], findings=[])
    return out


def main(run_path, out_dir):
    run = load(run_path)
    transfer = next(r for r in run["results"] if r["probe"] == "transfer")
    files = {
        "no-results.json": dict(run, results=[]),
        "only-failed.json": dict(run, results=[failed(transfer)]),
        "transfer-failed.json": dict(run, results=[failed(r) if r is transfer else r
                                                   for r in run["results"]]),
        "no-coalescing.json": dict(run, results=[r for r in run["results"]
                                                 if r["probe"] != "coalescing"]),
        "arbitrary.json": {"a": 1},
    }
    for name, data in files.items():
        with open(os.path.join(out_dir, name), "w") as f:
            json.dump(data, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
