#!/usr/bin/env python3
"""Makes a synthetic fleet of result files for `gpuprobe fleet` from real runs of one GPU.

Usage: scripts/make-fleet.py OUT_DIR COUNT RUN.json [RUN.json ...]

Node i (node-000 ... node-<COUNT-1>) is a copy of RUN number i mod len(RUNs) with its host name
set and each GPU given a UUID of its own (GPU-f1ee7000-0000-0000-<node>-<index>: `fleet` counts
GPUs by UUID, and the runs were all made on one GPU), so the fleet's spread is the real run-to-run
spread of those runs. Two nodes are perturbed,
as documented here and in each file's host.perturbation (every sample and statistic of the
affected rows scaled, so a file reads as a real run of a slower GPU):
  node-017: every pinned transfer row x 0.5 (a PCIe link trained at half its width or generation)
  node-123: every coalescing row x 0.85 (slow HBM: 15% less memory bandwidth)
(a node whose number is not below COUNT is left out).
"""
import gzip
import json
import os
import sys

PERTURBATIONS = {
    17: ("transfer", lambda row: row["params"].get("memory") == "pinned", 0.5,
         "pinned transfer rows x 0.5 (PCIe link at half rate)"),
    123: ("coalescing", lambda row: True, 0.85, "coalescing rows x 0.85 (slow HBM)"),
}


def scale_metric(metric, factor):
    for key in ("median", "min", "max", "mean", "stdev"):
        if key in metric and metric[key] is not None:
            metric[key] *= factor
    metric["samples"] = [[v * factor for v in rnd] for rnd in metric.get("samples", [])]


def perturb(report, probe, select, factor):
    for result in report["results"]:
        if result["probe"] != probe:
            continue
        for row in result["rows"]:
            if not select(row):
                continue
            for name, metric in row["metrics"].items():
                # time scales the other way: a slower GPU takes longer
                scale_metric(metric, 1 / factor if metric.get("unit") == "s" else factor)


def main(out_dir, count, runs):
    os.makedirs(out_dir, exist_ok=True)
    texts = [(gzip.open if p.endswith(".gz") else open)(p, "rt").read() for p in runs]
    for i in range(count):
        report = json.loads(texts[i % len(texts)])
        report["host"]["hostname"] = f"node-{i:03d}"
        for device in report.get("devices", []):
            device["uuid"] = f"GPU-f1ee7000-0000-0000-{i:04x}-{device.get('index', 0):012x}"
        if i in PERTURBATIONS:
            probe, select, factor, what = PERTURBATIONS[i]
            perturb(report, probe, select, factor)
            report["host"]["perturbation"] = what
        with open(os.path.join(out_dir, f"node-{i:03d}.json"), "w") as f:
            json.dump(report, f)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
