# occupancy: bandwidth against the bytes in flight per SM, one panel per op, one line per route
# (the warps sweep at the smallest ILP and width; at each warp count of the grid, ILP swept at each
# width), Little's law at the unloaded latency as a dashed line: where each route reaches the
# plateau and where the model says it should.

import runs as rd

PROBE = "occupancy"


def in_flight(row):
    p = row["params"]
    return p["warps"] * 32 * p["ilp"] * p["width"]


def series(result):
    """{op: {route label: rows in bytes-in-flight order}}: per op the warps route (ILP and width
    at their smallest) first, then per warp count with other ILPs or widths one line per width
    across ILP; rows without the four params or a bandwidth are left out."""
    ops = {}
    for r in rd.rows(result):
        p = r["params"]
        if all(k in p for k in ("op", "warps", "ilp", "width")) and rd.median(r, "bandwidth"):
            ops.setdefault(p["op"], []).append(r)
    out = {}
    for op, rows in ops.items():
        ilp0 = min(r["params"]["ilp"] for r in rows)
        width0 = min(r["params"]["width"] for r in rows)
        lines = {}
        base = [r for r in rows if r["params"]["ilp"] == ilp0 and r["params"]["width"] == width0]
        if len(base) > 1:
            lines[f"warps (ILP {ilp0}, {width0} B)"] = base
        grid = sorted({r["params"]["warps"] for r in rows
                       if r["params"]["ilp"] != ilp0 or r["params"]["width"] != width0})
        for w in grid:
            for width in sorted({r["params"]["width"] for r in rows}):
                line = [r for r in rows
                        if r["params"]["warps"] == w and r["params"]["width"] == width]
                if len(line) > 1:
                    lines[f"{w} warps, {width} B: ILP"] = line
                elif line and width != width0:
                    lines.setdefault(f"{w} warps: width", []).extend(line)
        out[op] = {k: sorted(v, key=in_flight) for k, v in lines.items()}
    return out


def model_points(result, op):
    """(bytes in flight, Little's-law bandwidth) of the op's rows that have the model value."""
    pts = set()
    for r in rd.rows(result):
        p = r["params"]
        if p.get("op") == op and "warps" in p:
            y = rd.part_value(r, "model", "bandwidth")
            if y is not None:
                pts.add((in_flight(r), y))
    return sorted(pts)


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    ops = []
    for _, res in shown:
        for op in series(res):
            if op not in ops:
                ops.append(op)
    if not ops:
        return []
    fig, axes = fg.new_figure(ncols=len(ops), height=3.8)
    for ax, op in zip(axes, ops):
        _panel(fg, ax, shown, op)
    axes[0].set_ylabel("bandwidth (GB/s)")
    caption = ("Bandwidth of a persistent streaming kernel against the bytes in flight per SM "
               "(resident warps x 32 x independent accesses per thread x bytes per access), one "
               "line per route: the warps sweep at one access of the smallest width, and at each "
               "warp count of the grid the ILP swept per width; dashed: Little's law at the "
               "unloaded DRAM latency measured in the run. " + rd.spread_kind([r for r, _ in shown])
               + ".")
    return [fg.Picture(PROBE, "occupancy-in-flight", "occupancy: bytes in flight", caption,
                       fg.finish(fig, "occupancy: bandwidth against bytes in flight per SM"))]


def _panel(fg, ax, shown, op):
    i = 0
    for run, res in shown:
        for name, rows in series(res).get(op, {}).items():
            label = name + (f" {run.label}" if len(shown) > 1 else "")
            fg.plot_series(ax, run, [in_flight(r) for r in rows], rows, "bandwidth", fg.color(i),
                           label)
            i += 1
        pts = model_points(res, op)
        if pts and run is shown[0][0]:
            fg.plot_model(ax, [p[0] for p in pts], [p[1] for p in pts], label="Little's law")
    fg.bytes_axis(ax)
    ax.set_xlabel("bytes in flight per SM")
    ax.set_title(op, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
