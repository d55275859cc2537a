# constant: the same table lookup four ways. Left, lookups/s against the distinct addresses per
# warp (log-log) for each path, at the smallest table and the narrowest width (the broadcast
# against divergence); right, the one-thread chase's cycles per lookup against the table size
# for each path, each level the probe found marked by its span and latency.

import runs as rd

PROBE = "constant"
PATHS = ("constant", "readonly", "texture", "global")


def lookup_series(result):
    """{path: lookup rows in distinct order} at the smallest table and narrowest width, and
    that (table, width)."""
    rows = rd.rows(result, mode="lookup")
    if not rows:
        return {}, None
    table = min(r["params"]["bytes"] for r in rows)
    width = min(r["params"]["width"] for r in rows)
    out = {}
    for p in PATHS:
        chosen = rd.rows(result, mode="lookup", path=p, bytes=table, width=width)
        if chosen:
            out[p] = sorted(chosen, key=lambda r: r["params"]["distinct"])
    return out, (table, width)


def chase_series(result):
    """{path: chase rows in table-size order}."""
    out = {}
    for p in PATHS:
        chosen = rd.rows(result, mode="chase", path=p)
        if chosen:
            out[p] = sorted(chosen, key=lambda r: r["params"]["bytes"])
    return out


def levels(result, path):
    """The chase levels the probe found for a path, fastest first: (first table, last table on
    the plateau, cycles)."""
    out = []
    for f in result.get("findings", []):
        p = f.get("params", {})
        if f.get("id") != "constant_latency_level" or p.get("path") != path:
            continue
        o, v = f.get("outcome", {}), f.get("values", {})
        cycles = (v.get("latency") or {}).get("value")
        if cycles is not None and o.get("from_bytes") is not None and o.get("size") is not None:
            out.append((p.get("level", 0), o["from_bytes"], o["size"], cycles))
    return [lv[1:] for lv in sorted(out)]


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    if not any(lookup_series(res)[0] or chase_series(res) for _, res in shown):
        return []
    fig, (left, right) = fg.new_figure(ncols=2, height=3.9)
    for run, res in shown:
        lookups, at = lookup_series(res)
        for i, (path, rows) in enumerate(lookups.items()):
            fg.plot_series(left, run, [r["params"]["distinct"] for r in rows], rows, "lookups",
                           fg.color(PATHS.index(path)), path if run is shown[0][0] else None)
        if at and run is shown[0][0]:
            left.set_title(f"{fg.size_label(at[0])} table, {at[1]}-byte elements", fontsize=9)
        for path, rows in chase_series(res).items():
            c = fg.color(PATHS.index(path))
            fg.plot_series(right, run, [r["params"]["bytes"] for r in rows], rows, "latency", c,
                           path if run is shown[0][0] else None)
            for lo, hi, cycles in levels(res, path) if run is shown[0][0] else []:
                right.hlines(cycles, lo, hi, color=c, linewidth=3, alpha=0.35)
    fg.plain_log_axis(left, "x")
    fg.plain_log_axis(left, "y", base=10)
    left.set_xlabel("distinct addresses per warp")
    left.set_ylabel("Glookup/s")
    fg.bytes_axis(right, "x")
    fg.plain_log_axis(right, "y")
    right.set_xlabel("table size")
    right.set_ylabel("cycles per chased lookup")
    right.set_title("latency (bars: the levels found)", fontsize=9)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    caption = ("Left: lookups per second of the whole GPU against the distinct addresses a warp "
               "reads at once, per path (__constant__, __ldg, texture object, plain loads). "
               "Right: cycles per dependent lookup of a one-thread chase against the table size, "
               "the levels the probe found drawn as bars. " + rd.spread_kind([r for r, _ in shown])
               + ".")
    return [fg.Picture(PROBE, "constant-paths", "constant: four paths to one table", caption,
                       fg.finish(fig, "constant: broadcast against divergence, and latency"))]
