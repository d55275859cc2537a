#!/usr/bin/env python3
"""Copies a result file with the values a reference file bounds moved to FACTOR x their bound.

Usage: move_to_bound.py IN.json OUT.json EXPECTATIONS.txt FACTOR REGEX

For each bound of EXPECTATIONS.txt (lines `SUBJECT >= NUMBER[unit]`) whose text matches REGEX,
the value SUBJECT selects in IN.json (a row's derived value, a summary or a finding value) is set
to FACTOR x NUMBER: with FACTOR 0.99 each lands 1% below its bound (`gpuprobe check` must fail
it), with 1.01 1% above (it must pass). Prints one line per value moved; exits 1 when a bound
selects no value (the test would then prove nothing).
"""
import gzip
import json
import re
import sys

LINE = re.compile(r"^(?P<probe>[\w-]+)(?P<kind>\.summary|\.findings\.[\w-]+)?"
                  r"\[(?P<sel>[^\]]*)\]\.(?P<name>[\w.]+)\s*>=\s*(?P<bound>[0-9.eE+-]+)")


def text(v):
    return repr(v) if isinstance(v, float) else str(v)


def matches(params, selectors):
    return all(k in params and text(params[k]) == v for k, v in selectors)


def places(result, kind, selectors):
    """The value tables the subject's selectors pick in one probe's result."""
    if not kind:
        return [r.get("derived", {}) for r in result["rows"] if matches(r["params"], selectors)]
    if kind == ".summary":
        return [s["values"] for s in result["summary"] if matches(s["params"], selectors)]
    finding = kind[len(".findings."):]
    return [f["values"] for f in result["findings"]
            if f["id"] == finding and matches(f["params"], selectors)]


def main(src, dst, expectations, factor, pattern):
    with (gzip.open if src.endswith(".gz") else open)(src, "rt") as f:
        report = json.load(f)
    moved = 0
    with open(expectations) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    for line in lines:
        m = LINE.match(line)
        if not m or not re.search(pattern, line):
            continue
        selectors = [tuple(kv.split("=", 1)) for kv in m["sel"].split(",") if kv]
        found = [t for r in report["results"] if r["probe"] == m["probe"]
                 for t in places(r, m["kind"], selectors) if m["name"] in t]
        if not found:
            sys.exit(f"move_to_bound: '{line}' selects no value in {src}")
        for table in found:
            old = table[m["name"]]["value"]
            table[m["name"]]["value"] = factor * float(m["bound"])
            print(f"{m['probe']}{m['kind'] or ''}[{m['sel']}].{m['name']}: {old:.4g} -> "
                  f"{table[m['name']]['value']:.4g}")
            moved += 1
    if not moved:
        sys.exit(f"move_to_bound: no bound of {expectations} matches '{pattern}'")
    with open(dst, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5])
