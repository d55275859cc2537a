#!/usr/bin/env python3
"""Makes a GPU's reference expectations for `gpuprobe check` from result files of that GPU.

Usage: scripts/make-expectations.py RUN.json [RUN.json ...] > expectations/<gpu-name>.txt

Each bound is the lowest median over the runs x (1 - margin). With several runs the margin is
max(5%, 2 x the spread of their medians, (max - min) / median); with one run, which cannot
show how far another run lands (docs/method.md: runs minutes apart differ more than rounds of
one run), it is max(10%, 3 x the metric's spread between its rounds, else its relative noise).
The quantities: pinned copies at the largest size every run has (h2d, d2h, bidir);
coalescing's baseline (aligned unit-stride) bandwidth per pattern and width; bank-conflicts'
ladder copy and padded transposes. Every line says what it was made from.
"""
import json
import statistics
import sys

MIN_MARGIN = 0.05
MIN_MARGIN_ONE_RUN = 0.10


def load(path):
    with open(path) as f:
        return json.load(f)


def results(report, probe):
    return [r for r in report["results"] if r["probe"] == probe and r.get("status") == "ok"]


def metric_of(row, name):
    return row.get("metrics", {}).get(name)


def spread_of(metric):
    """A single run's relative spread of a metric's median."""
    samples = metric.get("samples")
    if samples and len(samples) > 1:
        medians = [statistics.median(r) for r in samples if r]
        return (max(medians) - min(medians)) / metric["median"]
    return abs(metric.get("rel_noise", 0.0))


def bound_line(selector, name, unit, values, spreads):
    """values: per-run medians; spreads: per-run single-run spreads (used with one run)."""
    low = min(values)
    if len(values) > 1:
        spread = (max(values) - min(values)) / statistics.median(values)
        margin = max(MIN_MARGIN, 2 * spread)
        how = f"{len(values)} runs: {min(values):.4g}-{max(values):.4g} {unit}, spread {spread:.1%}"
    else:
        spread = spreads[0]
        margin = max(MIN_MARGIN_ONE_RUN, 3 * spread)
        how = f"1 run: {low:.4g} {unit}, spread within the run {spread:.1%}"
    return (f"# {how}, margin {margin:.1%}\n"
            f"{selector}.{name} >= {low * (1 - margin):.4g}{unit}\n")


def gather(reports, probe, pick):
    """pick(result) -> {selector: (metric or value dict)}; keeps selectors every run has."""
    per_run = [dict(kv for r in results(rep, probe) for kv in pick(r).items()) for rep in reports]
    common = [k for k in per_run[0] if all(k in run for run in per_run)]
    return [(k, [run[k] for run in per_run]) for k in common]


def transfer_rows(result):
    rows = [r for r in result["rows"] if r["params"].get("memory") == "pinned"]
    if not rows:
        return {}
    largest = max(r["params"]["bytes"] for r in rows)
    return {f"transfer[memory=pinned,direction={r['params']['direction']},bytes={largest}]":
            metric_of(r, "bandwidth") for r in rows if r["params"]["bytes"] == largest}


def coalescing_summary(result):
    out = {}
    for s in result.get("summary", []):
        p, v = s["params"], s["values"].get("baseline_bandwidth")
        if v and v.get("value") and "pattern" in p and "element_bytes" in p:
            key = (f"coalescing.summary[pattern={p['pattern']},"
                   f"element_bytes={p['element_bytes']}]")
            out[key] = {"median": v["value"], "rel_noise": 0.0}
    return out


def ladder_rows(result):
    out = {}
    for r in result["rows"]:
        k = r["params"].get("kernel")
        if k in ("copy", "padded"):
            out[f"bank-conflicts[kernel={k},size={r['params']['size']}]"] = metric_of(r, "bandwidth")
    return out


def main(paths):
    reports = [load(p) for p in paths]
    names = {rep["devices"][0]["name"] for rep in reports}
    if len(names) != 1:
        sys.exit(f"make-expectations: the runs are of different GPUs: {sorted(names)}")
    builds = sorted({rep["tool"].get("git", "?") for rep in reports})
    out = [f"# {names.pop()}: reference expectations for `gpuprobe check` (--expect-file auto).\n",
           f"# Made by scripts/make-expectations.py from {len(paths)} run(s), build(s) "
           f"{', '.join(builds)}:\n"]
    out += [f"#   {p}\n" for p in paths]
    out.append("# Bound = lowest median x (1 - margin); margin = max(5%, 2 x the runs' spread), "
               "or with one run max(10%, 3 x its spread between rounds).\n\n")
    for probe, pick in (("transfer", transfer_rows), ("coalescing", coalescing_summary),
                        ("bank-conflicts", ladder_rows)):
        for selector, metrics in gather(reports, probe, pick):
            if any(m is None for m in metrics):
                continue
            name = "baseline_bandwidth" if probe == "coalescing" else "bandwidth"
            out.append(bound_line(selector, name, "GB/s", [m["median"] for m in metrics],
                                  [spread_of(m) for m in metrics]))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
