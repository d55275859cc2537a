#!/usr/bin/env python3
"""Makes a GPU's reference expectations for `gpuprobe check` from result files of that GPU.

Usage: scripts/make-expectations.py RUN.json [RUN.json ...] > expectations/<gpu-name>.txt
       scripts/make-expectations.py --out-dir DIR RUN.json [RUN.json ...]
         (writes DIR/<gpu-name>.txt, named as `gpuprobe check` looks it up, and prints its path)

Each bound is the lowest value over the runs x (1 - margin); for a latency (lower is healthier:
the probes in UPPER) it is the highest value x (1 + margin), written with <=. With several runs
the margin is
max(5%, 2 x their spread), the spread being (max - min) / median; with one run, which cannot
show how far another run lands (docs/method.md: runs minutes apart differ more than rounds of
one run), it is max(10%, 3 x the value's spread within the run: between its rounds, or its 95%
interval). A quantity is bounded from the runs whose result of its probe is ok (each line says
how many), so runs from before a probe existed still count for the others.

The quantities (the headline of each probe's quick run, as `gpuprobe all` has it):
- transfer: pinned copies at the largest size every run has (h2d, d2h, bidir), bandwidth;
- coalescing: the baseline (aligned unit-stride) bandwidth per pattern and width (summary);
- bank-conflicts: the ladder's copy and padded transposes, bandwidth;
- overlap: the speed-up over sequential at the largest stream count, per memory and workload;
- zerocopy: per pattern the summary's break-even reuse and zero-copy's gain over the copy at the
  smallest and largest reuse (copy time / zero-copy time), and the coalesced read-once ratio to
  pinned cudaMemcpy (finding zerocopy_once_vs_memcpy);
- l2-persist: the window's gain (speed-up over no window) with the hot region the size of the
  set-aside, hitRatio 1, per workload;
- latency (upper bounds, cycles): per cache series (stride below a page) its headline plateaus,
  found without the levels or the counters, so that every healthy run has them: the L1 (the
  smallest working set every run has), the DRAM (the largest one; the quick sweep ends at over
  4 x the L2) and, from the per-access trace of each share of the L2, the near and the far L2
  (the fast and slow clusters' medians);
- cache: per scope and op the bandwidth at the smallest and the largest working set swept (shared
  memory; L1 and L2 per SM; L2 and DRAM across the GPU);
- local (upper bounds, ps per thread-step): per kernel at the smallest carve-out, the unspilled
  kernel (cap 0) and the smallest cap swept;
- constant: per path at the smallest lookup table and the narrowest width, the bandwidth of the
  broadcast (one address per warp) and of the most distinct addresses (lower bounds); per path
  the chase latency at its smallest and its largest table (upper bounds, cycles: UPPER_NAMES);
- occupancy: per op the bandwidth at the fewest and at the most bytes in flight per SM swept (the
  latency-bound start of the curve and its plateau; lower bounds).
- partitions: per block order the bandwidth of the stride sweep at its smallest stride, aligned
  and padded (all streams side by side: the spread-out stream), and of the transpose per side
  and order.
Only a value that every run has and that a healthy run cannot lack is bounded. Not gated, each
with a comment line saying why (and a count on stderr): a value some run lacks; a value a healthy
run can lack, by the outcome it reports (OUTCOME_DEPENDENT, or any value of that name found null
in some result of that probe of these runs: a break-even reuse exists only where zero-copy and the
copy cross, so a run that decides "no crossing" has none); a margin over 30% (too noisy to gate);
a speed-up whose bound would be <= 1 (it could not tell a working window or pipeline from none);
and the values in NOT_GATED (reported differently by a newer build than by the runs).
"""
import gzip
import json
import re
import statistics
import sys

MIN_MARGIN = 0.05
MIN_MARGIN_ONE_RUN = 0.10
MAX_MARGIN = 0.30

# Quantities that the current build no longer reports as the committed runs did, or whose
# run-to-run spread the reference runs happen not to show: (pattern, reason, whether it applies to
# these runs).
def always(_reports):
    return True


def chased_on_any_sm(reports):
    """Whether some run's constant chase ran on the SM the scheduler picked: builds before
    2026-11-27, whose method does not say "one thread on SM 0"."""
    return any("one thread on SM 0" not in r.get("method", "")
               for rep in reports for r in results(rep, "constant"))


NOT_GATED = [
    (r"^constant\[mode=chase,path=texture,bytes=(?!1024\])\d+\]\.latency$",
     "the texture path's chase over a table past the L1 moves between runs by up to 13% (H100 check "
     "runs: 327-372 cycles at 1-4 MiB; an H200, the chase pinned to SM 0: 333-379 cycles at 4 MiB in "
     "three quick runs; docs/probes/constant.md): a bound from runs that happen to agree fails "
     "healthy ones", always),
    (r"^constant\[mode=chase,path=constant,bytes=(?!1024\])\d+\]\.latency$",
     "the constant path's second level depends on the SM that chases: 94.5 cycles on the H100 from "
     "the SM the scheduler picked (runs before 2026-11-27), 104.5 from SM 0, where the chase runs "
     "since (docs/probes/constant.md); bounded from runs that all chase on SM 0", chased_on_any_sm),
    (r"^zerocopy\.summary\[direction=write,memory=hostalloc,stride=32,element_bytes=16\]"
     r"\.break_even_reuse$",
     "at reuse 8 the copy leads by only 2-3% in three of six same-build H100 runs (copy time / "
     "zero-copy time 0.97-0.98), inside the 5% alike margin that decides the break-even since "
     "59e8ad6: such a run now reports no crossing (null), and the bound would be unmatched", always),
]


# Values that a healthy run may lack by the outcome it reports (null when it has none), by name:
# never bounded, even where every reference run happens to have one.
OUTCOME_DEPENDENT = {
    "break_even_reuse": "a break-even reuse exists only where zero-copy and the copy cross within "
                        "the reuse sweep; a healthy run that decides \"no crossing\" has none",
}


def load(path):
    """A result file; a gzipped one (.json.gz, as the older committed runs are) read as is."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def results(report, probe):
    return [r for r in report["results"] if r["probe"] == probe and r.get("status") == "ok"]


def number(value):
    """A quantity's number ({unit, value} or a bare number), or None."""
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def metric_value(row, name):
    """A row metric as {value, unit, spread}: its median, the spread between its rounds."""
    m = row.get("metrics", {}).get(name)
    if not m:
        return None
    samples = m.get("samples")
    if samples and len(samples) > 1:
        medians = [statistics.median(r) for r in samples if r]
        spread = (max(medians) - min(medians)) / m["median"]
    else:
        spread = abs(m.get("rel_noise", 0.0))
    return {"value": m["median"], "unit": m.get("unit", ""), "spread": spread}


def plain_value(values, name):
    """A derived, summary or finding value as {value, unit, spread}; the spread is its 95%
    interval (NAME_low..NAME_high) where the probe gives one, else 0."""
    v = number(values.get(name))
    if v is None:
        return {"value": None, "unit": "", "spread": 0.0}
    unit = values[name].get("unit", "") if isinstance(values[name], dict) else ""
    low, high = number(values.get(name + "_low")), number(values.get(name + "_high"))
    spread = (high - low) / v if low is not None and high is not None and v else 0.0
    return {"value": v, "unit": unit, "spread": spread}


def selector(probe, params, keys, kind=""):
    """probe[k=v,...] (kind: ".summary", ".findings.ID") with the params' values as the JSON has
    them; sizes in bytes."""
    def text(v):
        return repr(v) if isinstance(v, float) else str(v)
    inner = ",".join(f"{k}={text(params[k])}" for k in keys if k in params)
    return f"{probe}{kind}[{inner}]"


def transfer_rows(result):
    rows = [r for r in result["rows"] if r["params"].get("memory") == "pinned"]
    if not rows:
        return {}
    largest = max(r["params"]["bytes"] for r in rows)
    return {f"transfer[memory=pinned,direction={r['params']['direction']},bytes={largest}]"
            ".bandwidth": metric_value(r, "bandwidth")
            for r in rows if r["params"]["bytes"] == largest}


def coalescing_summary(result):
    out = {}
    for s in result.get("summary", []):
        p = s["params"]
        if "pattern" in p and "element_bytes" in p and "baseline_bandwidth" in s["values"]:
            key = selector("coalescing", p, ("pattern", "element_bytes"), ".summary")
            out[key + ".baseline_bandwidth"] = plain_value(s["values"], "baseline_bandwidth")
    return out


def ladder_rows(result):
    out = {}
    for r in result["rows"]:
        if r["params"].get("kernel") in ("copy", "padded"):
            key = selector("bank-conflicts", r["params"], ("kernel", "size"))
            out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    return out


def overlap_rows(result):
    """The staged pipeline's speed-up at the largest stream count of each memory and workload."""
    staged = [r for r in result["rows"] if r["params"].get("run") == "staged"]
    out = {}
    for group in {(r["params"]["memory"], r["params"]["workload"]) for r in staged}:
        rows = [r for r in staged if (r["params"]["memory"], r["params"]["workload"]) == group]
        most = max(r["params"]["streams"] for r in rows)
        for r in rows:
            if r["params"]["streams"] == most:
                key = selector("overlap", r["params"],
                               ("memory", "workload", "run", "order", "streams"))
                out[key + ".speedup"] = plain_value(r.get("derived", {}), "speedup")
    return out


def zerocopy_values(result):
    out = {}
    for s in result.get("summary", []):
        key = selector("zerocopy", s["params"],
                       ("direction", "memory", "stride", "element_bytes"), ".summary")
        for name in ("break_even_reuse", "copy_over_zerocopy_first", "copy_over_zerocopy_last"):
            if name in s["values"]:
                out[f"{key}.{name}"] = plain_value(s["values"], name)
    for f in result.get("findings", []):
        if f["id"] == "zerocopy_once_vs_memcpy":
            key = selector("zerocopy", f["params"],
                           ("direction", "memory", "element_bytes", "bytes"),
                           ".findings.zerocopy_once_vs_memcpy")
            out[key + ".ratio"] = plain_value(f["values"], "ratio")
    return out


def l2_persist_rows(result):
    """The window's gain where the hot region fits the set-aside (hitRatio 1), per workload."""
    out = {}
    for r in result["rows"]:
        p = r["params"]
        if (p.get("window", "none").startswith("none") or p.get("hit_ratio") != 1.0
                or not p.get("setaside_bytes") or p.get("hot_bytes", 0) > p["setaside_bytes"]):
            continue
        key = selector("l2-persist", p, ("workload", "setaside_pct", "hot_pct", "hit_ratio",
                                         "window"))
        out[key + ".speedup"] = plain_value(r.get("derived", {}), "speedup")
    return out


PAGE_STRIDE = 65536  # latency: strides from here chase pages (the TLB series), not cache levels


def latency_values(result):
    """The latency plateaus every healthy run has: per cache series (stride, carve-out) the
    chase at its smallest working set (L1) and at its largest (DRAM), and each trace's fast and
    slow clusters (near and far L2)."""
    out = {}
    chases = {}
    for r in result["rows"]:
        p = r["params"]
        if p.get("mode") == "chase" and p.get("stride", PAGE_STRIDE) < PAGE_STRIDE:
            chases.setdefault((p["stride"], p["carveout"]), []).append(r)
    for rows in chases.values():
        for r in (min(rows, key=lambda x: x["params"]["bytes"]),
                  max(rows, key=lambda x: x["params"]["bytes"])):
            key = selector("latency", r["params"], ("mode", "stride", "carveout", "bytes"))
            out[key + ".latency"] = metric_value(r, "latency")
    for r in result["rows"]:
        if r["params"].get("mode") == "trace":
            key = selector("latency", r["params"], ("mode", "stride", "carveout", "l2_pct"))
            for name in ("fast_cycles", "slow_cycles"):
                out[f"{key}.{name}"] = plain_value(r.get("derived", {}), name)
    return out


def cache_values(result):
    """Per scope and op the bandwidth at the smallest and the largest working set the run swept:
    rows every quick run has (the plateaus' names depend on where the data put the knees, so a
    healthy run can lack one). On an H100's quick sweep: shared memory; L1 and L2 per SM; L2 and
    DRAM across the GPU."""
    out = {}
    series = {}
    for r in result["rows"]:
        if metric_value(r, "bandwidth") is not None:
            series.setdefault((r["params"]["scope"], r["params"]["op"]), []).append(r)
    for rows in series.values():
        size = lambda x: x["params"]["working_set_bytes"]  # noqa: E731
        for r in (min(rows, key=size), max(rows, key=size)):
            key = selector("cache", r["params"], ("scope", "op", "working_set_bytes"))
            out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    return out


def local_values(result):
    """local's time per thread-step at the smallest carve-out swept, per kernel: unspilled (the
    compiler's own choice, cap 0) and at the smallest cap swept (the most spilled)."""
    out = {}
    carveouts = [r["params"]["carveout"] for r in result["rows"] if "carveout" in r["params"]]
    rows = [r for r in result["rows"] if carveouts and r["params"].get("carveout") == min(carveouts)]
    for kernel in sorted({r["params"]["kernel"] for r in rows}):
        mine = [r for r in rows if r["params"]["kernel"] == kernel]
        caps = [r["params"]["max_registers"] for r in mine if r["params"]["max_registers"] > 0]
        for r in mine:
            cap = r["params"]["max_registers"]
            if cap == 0 or (caps and cap == min(caps)):
                key = selector("local", r["params"], ("kernel", "carveout", "max_registers"))
                out[key + ".step_time"] = metric_value(r, "step_time")
    return out


def constant_values(result):
    """constant's headline: per path, bandwidth at the smallest table and narrowest width with one
    and with the most distinct addresses per warp, and the chase latency at the smallest and the
    largest table."""
    out = {}
    lookups = [r for r in result["rows"] if r["params"].get("mode") == "lookup"]
    if lookups:
        small = min(r["params"]["bytes"] for r in lookups)
        width = min(r["params"]["width"] for r in lookups)
        most = max(r["params"]["distinct"] for r in lookups)
        for r in lookups:
            p = r["params"]
            if p["bytes"] == small and p["width"] == width and p["distinct"] in (1, most):
                key = selector("constant", p, ("mode", "path", "width", "distinct", "bytes"))
                out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    chases = {}
    for r in result["rows"]:
        if r["params"].get("mode") == "chase":
            chases.setdefault(r["params"]["path"], []).append(r)
    for rows in chases.values():
        for r in (min(rows, key=lambda x: x["params"]["bytes"]),
                  max(rows, key=lambda x: x["params"]["bytes"])):
            key = selector("constant", r["params"], ("mode", "path", "bytes"))
            out[key + ".latency"] = metric_value(r, "latency")
    return out


def occupancy_values(result):
    """occupancy's bandwidth per op at the fewest and the most bytes in flight per SM (warps x 32
    x ilp x width; the first such row in the sweep's order)."""
    out = {}
    def in_flight(r):
        p = r["params"]
        return p["warps"] * 32 * p["ilp"] * p["width"]
    keys = ("op", "warps", "ilp", "width")
    ops = {}
    for r in result["rows"]:
        if all(k in r["params"] for k in keys) and r.get("metrics", {}).get("bandwidth"):
            ops.setdefault(r["params"]["op"], []).append(r)
    for rows in ops.values():
        for r in (min(rows, key=in_flight), max(rows, key=in_flight)):
            key = selector("occupancy", r["params"], keys)
            out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    return out


def partitions_values(result):
    """partitions' headline: per order the bandwidth at the smallest stride (aligned and padded),
    and every transpose's bandwidth."""
    out = {}
    strides = [r for r in result["rows"] if r["params"].get("mode") == "stride"]
    for order in sorted({r["params"]["order"] for r in strides}):
        mine = [r for r in strides if r["params"]["order"] == order]
        for pad in sorted({r["params"]["pad"] for r in mine}):
            rows = [r for r in mine if r["params"]["pad"] == pad]
            r = min(rows, key=lambda x: x["params"]["stride"])
            key = selector("partitions", r["params"], ("mode", "order", "pad", "stride"))
            out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    for r in result["rows"]:
        if r["params"].get("mode") == "transpose":
            key = selector("partitions", r["params"], ("mode", "order", "n"))
            out[key + ".bandwidth"] = metric_value(r, "bandwidth")
    return out


PROBES = (("transfer", transfer_rows), ("coalescing", coalescing_summary),
          ("bank-conflicts", ladder_rows), ("overlap", overlap_rows),
          ("zerocopy", zerocopy_values), ("l2-persist", l2_persist_rows),
          ("latency", latency_values), ("cache", cache_values), ("constant", constant_values),
          ("local", local_values), ("occupancy", occupancy_values),
          ("partitions", partitions_values))
GAINS = {"overlap", "l2-persist"}  # speed-ups over doing without: a bound <= 1 asserts nothing
UPPER = {"latency", "local"}  # lower is healthier: an upper bound from the highest value
UPPER_NAMES = {("constant", "latency")}  # the same for these (probe, quantity name) only


def constant(value, unit):
    """The bound as the expectation file writes it: GB/s and x as units, other units bare."""
    return f"{value:.4g}{unit if unit in ('GB/s', 'x') else ''}"


def bound_line(probe, quantity, values, unit, spreads):
    """values: per-run values; spreads: per-run spreads within the run (used with one run)."""
    low, high = min(values), max(values)
    shown = f" {unit}" if unit else ""
    if len(values) > 1:
        spread = (max(values) - min(values)) / statistics.median(values)
        margin = max(MIN_MARGIN, 2 * spread)
        how = (f"{len(values)} runs: {low:.4g}-{high:.4g}{shown}, spread {spread:.1%}, "
               f"margin {margin:.1%}")
    else:
        margin = max(MIN_MARGIN_ONE_RUN, 3 * spreads[0])
        how = (f"1 run: {low:.4g}{shown}, spread within the run {spreads[0]:.1%}, "
               f"margin {margin:.1%}")
    m = QUANTITY.match(quantity)
    upper = probe in UPPER or (m is not None and (probe, m["name"]) in UPPER_NAMES)
    bound = high * (1 + margin) if upper else low * (1 - margin)
    if margin > MAX_MARGIN:
        return f"# not gated: {quantity}: {how} is over {MAX_MARGIN:.0%} (too noisy to gate)\n"
    if probe in GAINS and bound <= 1:
        return (f"# not gated: {quantity}: {how}; the bound {bound:.3g} <= 1 could not tell the "
                f"gain from none\n")
    if upper:
        return f"# {how}; bound = highest x (1 + margin)\n{quantity} <= {constant(bound, unit)}\n"
    return f"# {how}\n{quantity} >= {constant(bound, unit)}\n"


# A quantity as probe_lines names it: probe[.summary|.findings.ID][selectors].name
QUANTITY = re.compile(r"^(?P<probe>[\w-]+)(?P<section>\.summary|\.findings\.\w+)?\[.*\]\."
                      r"(?P<name>\w+)$")


def null_values(paths, reports, probe):
    """{(section, name): where} for each summary or finding value of the probe's ok results that is
    null somewhere in these runs: the outcome it reports can leave it out of a healthy run."""
    out = {}
    for path, rep in zip(paths, reports):
        for r in results(rep, probe):
            parts = [(".summary", s) for s in r.get("summary", [])]
            parts += [(f".findings.{f['id']}", f) for f in r.get("findings", [])]
            for section, part in parts:
                for name, v in part.get("values", {}).items():
                    if isinstance(v, dict) and "value" in v and v["value"] is None:
                        where = selector(probe, part["params"], part["params"].keys(), section)
                        out.setdefault((section, name), f"null in {where} of {path}")
    return out


def outcome_reason(quantity, nulls):
    """Why a healthy run can lack this quantity, or None."""
    m = QUANTITY.match(quantity)
    if not m:
        return None
    name, section = m["name"], m["section"] or ""
    if name in OUTCOME_DEPENDENT:
        return OUTCOME_DEPENDENT[name]
    if (section, name) in nulls:
        return f"a healthy run can lack a {name}: {nulls[(section, name)]}"
    return None


def skip_reason(quantity, values, nulls, reports):
    """Why this quantity gets no bound, or None: NOT_GATED, a run lacks it, or a run could."""
    reason = next((why for pattern, why, applies in NOT_GATED
                   if re.search(pattern, quantity) and applies(reports)), None)
    if reason:
        return reason
    missing = sum(1 for v in values if v is None or v["value"] is None)
    if missing:
        return f"no value in {missing} of {len(values)} runs"
    return outcome_reason(quantity, nulls)


def probe_lines(paths, reports, probe, pick):
    """The lines for one probe's quantities, from the runs whose result of it is ok."""
    per_run = [dict(kv for r in results(rep, probe) for kv in pick(r).items()) for rep in reports]
    per_run = [run for rep, run in zip(reports, per_run) if results(rep, probe)]
    if not per_run:
        return []
    nulls = null_values(paths, reports, probe)
    out = []
    for quantity in per_run[0]:
        values = [run.get(quantity) for run in per_run]
        reason = skip_reason(quantity, values, nulls, reports)
        if reason:
            out.append(f"# not gated: {quantity}: {reason}\n")
        else:
            out.append(bound_line(probe, quantity, [v["value"] for v in values], values[0]["unit"],
                                  [v["spread"] for v in values]))
    return out


def file_name(device_name):
    """The reference file's name for a GPU, as gpuprobe's expectation_file_name makes it: lower
    case letters and digits, every other run of characters one '-', none at the ends."""
    name = re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
    return name + ".txt"


def make(paths):
    """The file's name and text."""
    reports = [load(p) for p in paths]
    names = {rep["devices"][0]["name"] for rep in reports}
    if len(names) != 1:
        sys.exit(f"make-expectations: the runs are of different GPUs: {sorted(names)}")
    builds = sorted({rep["tool"].get("git", "?") for rep in reports})
    device = names.pop()
    out = [f"# {device}: reference expectations for `gpuprobe check` (--expect-file auto).\n",
           f"# Made by scripts/make-expectations.py from {len(paths)} run(s), build(s) "
           f"{', '.join(builds)}:\n"]
    out += [f"#   {p}\n" for p in paths]
    out.append("# Bound = lowest value x (1 - margin); margin = max(5%, 2 x the runs' spread), "
               "or with one run max(10%, 3 x its spread within the run).\n"
               "# Not gated: margins over 30%, speed-ups whose bound would be <= 1, values some "
               "run lacks, and the script's NOT_GATED list.\n")
    for probe, pick in PROBES:
        lines = probe_lines(paths, reports, probe, pick)
        if lines:
            out.append(f"\n# -- {probe}\n")
            out += lines
    return file_name(device), "".join(out)


def main(args):
    out_dir = None
    if args[:1] == ["--out-dir"]:
        out_dir, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    name, text = make(args)
    lines = text.splitlines()
    bounds = sum(1 for line in lines if line and not line.startswith("#"))
    left_out = sum(1 for line in lines if line.startswith("# not gated: "))
    print(f"make-expectations: {name}: {bounds} bounds; {left_out} values left out, each on a "
          f"'# not gated' line saying why", file=sys.stderr)
    if out_dir is None:
        sys.stdout.write(text)
        return
    path = f"{out_dir}/{name}"
    with open(path, "w") as f:
        f.write(text)
    print(path)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") or sys.argv[1:] == ["--out-dir"]:
        sys.exit(__doc__)
    main(sys.argv[1:])
