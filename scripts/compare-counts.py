#!/usr/bin/env python3
"""Counts of a `gpuprobe compare --json` file, for the gate-check log: the change of every compared
row metric per probe, and which probes have regressions. Usage: compare-counts.py COMPARE.json"""
import collections
import json
import sys


def main(path):
    report = json.load(open(path))
    changes = collections.Counter()
    by_probe = collections.defaultdict(collections.Counter)
    for result in report["results"]:
        probe = result["probe"]
        if not probe.startswith("compare ") or result["params"].get("compared") != "rows":
            continue
        name = probe[len("compare "):]
        for row in result["rows"]:
            change = row["params"].get("change", "?")
            changes[change] += 1
            by_probe[name][change] += 1
            if "regression" in row["flags"]:
                by_probe[name]["regression"] += 1
    parts = [f"{n} {c}" for c, n in sorted(changes.items())]
    probes = "; ".join(
        f"{p}: " + ", ".join(f"{n} {c}" for c, n in sorted(counts.items()) if c != "same")
        for p, counts in sorted(by_probe.items())
        if any(c != "same" for c in counts))
    print(f"row metrics {sum(changes.values())}: {', '.join(parts)}" + (f" [{probes}]" if probes else ""))


if __name__ == "__main__":
    main(sys.argv[1])
