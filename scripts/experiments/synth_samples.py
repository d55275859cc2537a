#!/usr/bin/env python3
# Makes a schema-3-like gpuprobe result from schema 2 files by synthesising each metric's samples.
"""Synthesise per-round samples for every row metric of gpuprobe result files.

Each metric gets N samples (its recorded n, or --n), dealt round-robin into --rounds rounds,
drawn around its median with its recorded relative noise (normal, seeded). --scale multiplies
every value (a uniform change between two files); --episode F --episode-share P slows one round
of a share P of the metrics by the factor F (a "slow episode": bandwidths times F, times
divided by F). Statistics are recomputed from the samples. The output is test input for
`gpuprobe compare` (timing, the bootstrap rule), never a measurement.

Several inputs are merged into one file (the first one's header, every file's results).

    scripts/experiments/synth_samples.py examples/results/h100/all.json -o /tmp/a.json --seed 1
    scripts/experiments/synth_samples.py examples/results/h100/all.json -o /tmp/b.json --seed 2
    gpuprobe compare /tmp/a.json /tmp/b.json
"""
import argparse
import json
import random
import statistics


def stats_of(values):
    ordered = sorted(values)
    n = len(ordered)
    mean = sum(ordered) / n
    stdev = statistics.stdev(ordered) if n > 1 else 0.0
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {"median": median, "min": ordered[0], "max": ordered[-1], "mean": mean,
            "stdev": stdev, "rel_noise": stdev / abs(mean) if mean else 0.0, "n": n}


def synthesise(metric, rng, args):
    n = args.n or max(int(metric.get("n", 5)), 1)
    noise = max(float(metric.get("rel_noise", 0.0)), 1e-4)
    center = float(metric["median"]) * args.scale
    rounds = [[] for _ in range(args.rounds)]
    for i in range(n):
        rounds[i % args.rounds].append(center * max(0.05, 1.0 + noise * rng.gauss(0.0, 1.0)))
    if args.episode and rng.random() < args.episode_share:
        slow = rng.randrange(args.rounds)
        factor = args.episode if metric.get("unit") != "s" else 1.0 / args.episode
        rounds[slow] = [v * factor for v in rounds[slow]]
    out = {"unit": metric.get("unit", "")}
    out.update(stats_of([v for r in rounds for v in r]))
    out["samples"] = rounds
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("inputs", nargs="+", help="schema 2 result files")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--n", type=int, default=0, help="samples per metric (default: its n)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--episode", type=float, default=0.0, help="slow-round factor, e.g. 0.5")
    p.add_argument("--episode-share", type=float, default=0.2)
    args = p.parse_args()
    rng = random.Random(args.seed)
    report = None
    for path in args.inputs:
        with open(path) as f:
            data = json.load(f)
        if data.get("schema_version") != 2:
            p.error(f"{path}: schema_version {data.get('schema_version')}, not 2")
        if report is None:
            report = data
        else:
            report["results"].extend(data["results"])
    report["schema_version"] = 3
    for result in report.get("results", []):
        # What this build writes for sizes (schema 3): their unit, so tables print KiB/MiB.
        result["param_units"] = {k: "B" for row in result.get("rows", []) for k in row["params"]
                                 if k == "bytes" or k.endswith("element_bytes")}
        for row in result.get("rows", []):
            for name, metric in row.get("metrics", {}).items():
                row["metrics"][name] = synthesise(metric, rng, args)
    with open(args.output, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
