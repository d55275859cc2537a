#!/usr/bin/env python3
"""Writes COUNT runs per side (a-1.json ... and b-1.json ...) for the pooling tests: each a copy
of a small result file whose transfer rows are widened to ROWS sizes of 5 rounds of 24 samples,
the shape of a real run's rows, with values that differ from run to run (a seeded generator, so
every machine writes the same files). Usage: many_runs.py OUT_DIR TEMPLATE.json COUNT [ROWS]
"""
import copy
import json
import os
import random
import sys

out, template_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows_per_run = int(sys.argv[4]) if len(sys.argv) > 4 else 40
os.makedirs(out, exist_ok=True)
template = json.load(open(template_path, encoding="utf-8"))
first_row = template["results"][0]["rows"][0]
rng = random.Random(35)


def run(level):
    doc = copy.deepcopy(template)
    rows = []
    for i in range(rows_per_run):
        row = copy.deepcopy(first_row)
        row["params"]["bytes"] = 4096 << i % 20
        row["params"]["direction"] = "h2d" if i < 20 else "d2h"
        metric = row["metrics"]["bandwidth"]
        rounds = [[round(level * rng.gauss(50, 0.5), 3) for _ in range(24)] for _ in range(5)]
        values = sorted(v for r in rounds for v in r)
        metric.update(samples=rounds, n=len(values), median=values[len(values) // 2],
                      min=values[0], max=values[-1])
        rows.append(row)
    doc["results"][0]["rows"] = rows
    return doc


for side, level in (("a", 1.0), ("b", 0.97)):
    for k in range(1, count + 1):
        with open(os.path.join(out, f"{side}-{k}.json"), "w", encoding="utf-8") as f:
            json.dump(run(level * rng.gauss(1, 0.01)), f)
print(f"{count} runs per side written to {out}")
