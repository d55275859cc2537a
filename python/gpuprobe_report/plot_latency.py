# latency: cycles per dependent load against the working set (log x), one panel per cache
# series (stride, carve-out) and one for the page strides, each level the probe found marked by
# its plateau's span and latency, and the near and far L2 of the traces beside them.

import runs as rd

PROBE = "latency"
PAGE_STRIDE = 65536  # strides from here chase pages (the TLB series)


def series(result):
    """{(stride, carveout): chase rows in working-set order}, cache series first (by stride,
    carve-out), then the page series."""
    out = {}
    for r in rd.rows(result, mode="chase"):
        p = r["params"]
        out.setdefault((p["stride"], p["carveout"]), []).append(r)
    keys = sorted(out, key=lambda k: (k[0] >= PAGE_STRIDE, k[0], k[1]))
    return {k: sorted(out[k], key=lambda r: r["params"]["bytes"]) for k in keys}


def levels(result, stride, carveout):
    """The levels the probe found in one series, fastest first: (first working set, last
    working set on the plateau, latency in cycles, what served it)."""
    out = []
    for f in result.get("findings", []):
        p = f.get("params", {})
        if f.get("id") != "latency_level" or not rd.matches(p, {"stride": stride,
                                                                  "carveout": carveout}):
            continue
        o, v = f.get("outcome", {}), f.get("values", {})
        latency = (v.get("latency") or {}).get("value")
        if latency is None or o.get("from_bytes") is None or o.get("size") is None:
            continue
        out.append((p.get("level", 0), o["from_bytes"], o["size"], latency,
                    o.get("served_by", "")))
    return [lv[1:] for lv in sorted(out)]


def traces(result):
    """(working set, near L2 cycles, far L2 cycles, two clusters?) per trace row."""
    out = []
    for r in rd.rows(result, mode="trace"):
        near = rd.part_value(r, "derived", "fast_cycles")
        far = rd.part_value(r, "derived", "slow_cycles")
        if near is None or far is None or "bytes" not in r["params"]:
            continue
        f = rd.finding(result, "latency_far_l2", l2_pct=r["params"].get("l2_pct"))
        two = bool(f) and f.get("outcome", {}).get("clusters", "").startswith("two")
        out.append((r["params"]["bytes"], near, far, two))
    return out


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    keys = []
    for _, res in shown:
        keys += [k for k in series(res) if k not in keys]
    if not keys:
        return []
    keys.sort(key=lambda k: (k[0] >= PAGE_STRIDE, k[0], k[1]))
    fig, axes = fg.new_figure(ncols=min(len(keys), 2), nrows=(len(keys) + 1) // 2, width=None,
                              height=3.9, sharey=True)
    for ax, key in zip(axes, keys):
        _panel(fg, ax, shown, key)
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    axes[0].set_ylabel("latency (cycles per load)")
    caption = ("Cycles per dependent load of a one-thread pointer chase against the working set "
               "(log x). The shaded spans are the levels the probe found (change points; each "
               "labelled with its latency and the level the counters say served it); dashed "
               "marks are the per-access traces' near and far L2 clusters. "
               + rd.spread_kind([r for r, _ in shown]) + ".")
    return [fg.Picture(PROBE, "latency-working-set", "latency: against the working set", caption,
                       fg.finish(fig, "latency: cycles per load against the working set"))]


def _panel(fg, ax, shown, key):
    stride, carveout = key
    for run, res in shown:
        rows = series(res).get(key, [])
        if not rows:
            continue
        xs = [r["params"]["bytes"] for r in rows]
        fg.plot_series(ax, run, xs, rows, "latency", fg.color(0),
                       run.label if len(shown) > 1 else None)
        if run is not shown[0][0]:
            continue
        for i, (lo, hi, cycles, served) in enumerate(levels(res, stride, carveout)):
            ax.axvspan(lo, hi, color=fg.color(1 + i % 6), alpha=0.12, linewidth=0)
            ax.hlines(cycles, lo, hi, color=fg.color(1 + i % 6), linewidth=2.2)
            ax.annotate(f"{cycles:.0f}" + (f" {served}" if served else ""), ((lo * hi) ** 0.5,
                        cycles), ha="center", va="bottom", fontsize=7, xytext=(0, 3),
                        textcoords="offset points")
        if stride < PAGE_STRIDE:
            for size, near, far, two in traces(res):
                for cycles, name in ((near, "near L2"), (far, "far L2")):
                    if name == "far L2" and not two:
                        continue
                    ax.plot([size], [cycles], marker="_", markersize=14, color="black")
                    ax.annotate(f"{name} {cycles:.0f}", (size, cycles), fontsize=6,
                                xytext=(5, -3), textcoords="offset points")
    fg.bytes_axis(ax, "x")
    fg.plain_log_axis(ax, "y")
    ax.set_xlabel("working set" if stride < PAGE_STRIDE else "span of the page chase")
    ax.set_title(f"stride {fg.size_label(stride)}, carve-out {carveout}%", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
