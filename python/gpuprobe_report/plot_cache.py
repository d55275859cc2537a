# cache: bandwidth against the working set (log x), one panel per scope (shared memory per block,
# per SM, across the GPU), one line per op, each plateau the probe found marked by its span and
# median, and the model's peaks beside them.

import runs as rd

PROBE = "cache"
SCOPES = ("shared", "sm", "device")
OPS = ("read", "write", "copy")
SCOPE_TITLES = {"shared": "shared memory per block", "sm": "per SM (L1, then L2)",
                "device": "across the GPU (L2, then DRAM)"}


def series(result):
    """{(scope, op): measured rows in working-set order}, scopes and ops in the probe's order."""
    out = {}
    for r in result.get("rows", []):
        p = r["params"]
        if rd.median(r) and {"working_set_bytes", "scope", "op"} <= p.keys():
            out.setdefault((p["scope"], p["op"]), []).append(r)
    keys = sorted(out, key=lambda k: (_rank(SCOPES, k[0]), _rank(OPS, k[1])))
    return {k: sorted(out[k], key=lambda r: r["params"]["working_set_bytes"]) for k in keys}


def plateaus(result, scope, op):
    """The plateaus the probe found in one series, smallest working set first: (first working
    set, last working set, median GB/s, level, model peak GB/s or None)."""
    out = []
    for f in result.get("findings", []):
        if f.get("id") != "cache_plateau" or not rd.matches(f.get("params", {}),
                                                            {"scope": scope, "op": op}):
            continue
        v = f.get("values", {})
        lo, hi, gbps = (_value(v, n) for n in ("from_bytes", "to_bytes", "plateau"))
        if lo is None or hi is None or gbps is None:
            continue
        out.append((lo, hi, gbps, f["params"].get("level", ""), _value(v, "model_peak")))
    return sorted(out)


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    scopes = [s for s in SCOPES if any(k[0] == s for _, res in shown for k in series(res))]
    if not scopes:
        return []
    fig, axes = fg.new_figure(ncols=len(scopes), height=3.9)
    for ax, scope in zip(axes, scopes):
        _panel(fg, ax, shown, scope)
    axes[0].set_ylabel("bandwidth (GB/s)")
    fg.run_legend(axes[-1], [run for run, _ in shown], loc="lower left")
    caption = ("Bandwidth of a ring of 16-byte loads and stores against the working set (log x): "
               "shared memory per block, one working set per SM, one across the GPU. Shaded "
               "spans are the plateaus the probe found from the data (each labelled with its "
               "median and the level it is named), dotted lines the model's peaks. "
               + rd.spread_kind([r for r, _ in shown]) + ".")
    return [fg.Picture(PROBE, "cache-working-set", "cache: bandwidth against the working set",
                       caption, fg.finish(fig, "cache: bandwidth against the working set"))]


def _panel(fg, ax, shown, scope):
    for run, res in shown:
        for key, rows in series(res).items():
            if key[0] != scope:
                continue
            c = fg.color(_rank(OPS, key[1]))
            xs = [r["params"]["working_set_bytes"] for r in rows]
            fg.plot_series(ax, run, xs, rows, "bandwidth", c, key[1] if run is shown[0][0]
                           else None)
            if run is not shown[0][0]:
                continue
            for lo, hi, gbps, level, peak in plateaus(res, scope, key[1]):
                ax.axvspan(lo, hi, color=c, alpha=0.08, linewidth=0)
                ax.annotate(f"{level} {gbps:.0f}", ((lo * hi) ** 0.5, gbps), ha="center",
                            va="bottom", fontsize=6, xytext=(0, 3), textcoords="offset points")
                if peak:
                    ax.axhline(peak, color=c, linestyle=":", linewidth=0.9)
    fg.bytes_axis(ax, "x")
    ax.set_xlabel("working set")
    ax.set_title(SCOPE_TITLES.get(scope, scope), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")


def _value(values, name):
    entry = values.get(name)
    return entry.get("value") if isinstance(entry, dict) else None


def _rank(order, name):
    return order.index(name) if name in order else len(order)
