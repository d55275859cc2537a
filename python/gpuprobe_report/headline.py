# The comparison's first section: headline figures of both runs side by side, each with its B/A
# ratio and whether the difference is beyond noise, taken from `gpuprobe compare`'s output.
import runs as rd


class Item:
    """One headline figure: where it lives in a run (part: rows, summary, findings, or a row's
    derived value) and how it is found (params it must match)."""

    def __init__(self, label, probe, part, quantity, unit, want, finding_id=None, why=None):
        self.label = label
        self.probe = probe
        self.part = part
        self.quantity = quantity
        self.unit = unit
        self.want = want
        self.finding_id = finding_id
        self.why = why  # why compare cannot decide it, when it cannot


ITEMS = [
    Item("Pinned copy H2D, 64 MiB", "transfer", "rows", "bandwidth", "GB/s",
         {"memory": "pinned", "direction": "h2d", "bytes": 67108864}),
    Item("Pinned copy, both directions at once, 64 MiB", "transfer", "rows", "bandwidth", "GB/s",
         {"memory": "pinned", "direction": "bidir", "bytes": 67108864}),
    Item("HBM copy (aligned, 16 B elements)", "coalescing", "rows", "bandwidth", "GB/s",
         {"pattern": "offset", "offset": 0, "element_bytes": 16}),
    Item("Transpose ladder: padded transpose", "bank-conflicts", "rows", "bandwidth", "GB/s",
         {"kernel": "padded"}),
    Item("Transpose ladder: padded ÷ tiled", "bank-conflicts", "summary", "bandwidth_ratio", "x",
         {"comparison": "padded ÷ tiled"}),
    Item("Overlap speed-up (best stream count vs sequential)", "overlap", "findings", "speedup",
         "x", {"memory": "pinned", "workload": "balanced"}, finding_id="overlap_best_streams"),
    Item("Zero-copy break-even reuse (read, stride 32)", "zerocopy", "summary", "break_even_reuse",
         "", {"direction": "read", "stride": 32}),
    Item("L2 window gain (phases, hot = set-aside)", "l2-persist", "derived", "speedup", "x",
         {"workload": "phases", "hot_pct": 100, "hit_ratio": 1.0, "window": "stream"},
         why="per-side 95% intervals (rows name the hot size in bytes, which scales with each "
             "GPU's set-aside, so compare cannot pair them)"),
    Item("L2 window gain (bpg, hot = set-aside)", "l2-persist", "derived", "speedup", "x",
         {"workload": "bpg", "hot_pct": 100, "hit_ratio": 1.0, "window": "stream"},
         why="per-side 95% intervals (as above)"),
]


def side_value(run, item):
    """(value, low, high) of the item in one run; None when the run has no such item."""
    for res in run.results(item.probe):
        if item.part in ("rows", "derived"):
            found = rd.rows(res, **item.want)
            if not found:
                continue
            if item.part == "rows":
                v = rd.median(found[0], item.quantity)
                s = rd.spread(found[0], item.quantity) or (None, None)
                return (v, s[0], s[1]) if v is not None else None
            v = rd.part_value(found[0], "derived", item.quantity)
            lo = rd.part_value(found[0], "derived", item.quantity + "_low")
            hi = rd.part_value(found[0], "derived", item.quantity + "_high")
            return (v, lo, hi) if v is not None else None
        if item.part == "summary":
            v = rd.summary_value(res, item.quantity, **item.want)
            return (v, None, None) if v is not None else None
        f = rd.finding(res, item.finding_id, **item.want)
        if f and item.quantity in f.get("values", {}):
            return (f["values"][item.quantity].get("value"), None, None)
    return None


def compared(comparison, item):
    """compare's row for the item: {a, b, ratio, ci_low, ci_high, change, method}, or None."""
    if comparison is None or item.part == "derived":
        return None
    for res in comparison.get("results", []):
        p = res.get("params", {})
        if res.get("probe") != "compare " + item.probe or p.get("compared") != item.part:
            continue
        if item.part == "rows" and p.get("metric") != item.quantity:
            continue
        for row in res.get("rows", []):
            rp = row.get("params", {})
            if item.part != "rows" and rp.get("value") != item.quantity:
                continue
            if item.finding_id and rp.get("finding") != item.finding_id:
                continue
            if rd.matches(rp, item.want):
                out = {k: v.get("value") for k, v in (row.get("derived") or {}).items()}
                out.update(change=rp.get("change"), method=rp.get("method"))
                return out
    return None


def verdict(item, a, b, cmp, margin):
    """Words for 'beyond noise?' and the method behind them."""
    if a is None or b is None:
        return "—", "not in both runs"
    if cmp is not None and cmp.get("method") != "bootstrap" and item.part in ("summary",
                                                                              "findings"):
        # compare's band for values without samples assumes no noise: it cannot say "beyond".
        return "unknown: no samples", "a value derived from rows carries no samples of its own"
    if cmp is not None:
        change = cmp.get("change")
        how = ("bootstrap 95% interval of B/A" if cmp.get("method") == "bootstrap"
               else "noise band (a side has no samples: an older file)")
        if change in ("faster", "slower", "higher", "lower"):
            return f"yes: {change}", how
        if change == "same":
            return f"no: within ±{margin:g}%", how
        return change or "?", how
    if item.part == "derived" and None not in (a[1], a[2], b[1], b[2]):
        apart = a[2] < b[1] or b[2] < a[1]
        return ("yes: intervals apart" if apart else "no: intervals overlap"), item.why
    return "not decided", "compare did not pair this item"


def rows_for(runs, comparison, margin):
    """One dict per headline item for the HTML table (A is runs[0], B is runs[1])."""
    out = []
    for item in ITEMS:
        a, b = side_value(runs[0], item), side_value(runs[1], item)
        cmp = compared(comparison, item)
        ratio = cmp.get("ratio") if cmp else None
        if ratio is None and a and b and a[0]:
            ratio = b[0] / a[0]
        interval = (cmp.get("ci_low"), cmp.get("ci_high")) if cmp else (None, None)
        noise, how = verdict(item, a, b, cmp, margin)
        out.append(dict(label=item.label, probe=item.probe, unit=item.unit, a=a, b=b,
                        ratio=ratio, interval=interval, noise=noise, how=how,
                        missing=[r.label for r, v in ((runs[0], a), (runs[1], b)) if v is None]))
    return out


def ratio_picture(rows, runs):
    """The headline table at a glance: B/A per figure both runs hold (1 = the same), its
    95% interval where compare has one; orange beyond noise, grey within."""
    import figures as fg
    shown = [h for h in rows if h["ratio"] is not None]
    if not shown:
        return None
    fig, axes = fg.new_figure(ncols=1, width=8.0, height=0.45 * len(shown) + 1.2)
    ax = axes[0]
    for i, h in enumerate(shown):
        beyond = h["noise"].startswith("yes")
        lo, hi = h["interval"]
        err = None if None in (lo, hi) else [[h["ratio"] - lo], [hi - h["ratio"]]]
        ax.errorbar([h["ratio"]], [i], xerr=err, fmt="o", capsize=3,
                    color=fg.color(1) if beyond else "0.55")
        ax.annotate(f"{h['ratio']:.3g}x", (h["ratio"], i), xytext=(6, 4),
                    textcoords="offset points", fontsize=7)
    ax.axvline(1.0, color="0.3", linewidth=1)
    values = [h["ratio"] for h in shown] + [v for h in shown for v in h["interval"] if v]
    ax.set_xlim(min(0.9, min(values) * 0.95), max(1.1, max(values) * 1.08))
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([h["label"] for h in shown], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"B/A ({runs[1].gpu} / {runs[0].gpu}); orange: beyond noise")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    caption = ("The headline figures both runs hold, as B/A (1: the same); "
               "orange where compare calls the difference beyond noise, grey where not.")
    return fg.Picture("comparison", "comparison-headline", "headline B/A", caption,
                      fg.finish(fig, "Headline figures: B/A"))
