# partitions: bandwidth against the stride between the regions read at once (log x), one line per
# block order and pad (aligned solid, padded by one GT200 partition dashed), with what the GT200
# model would have predicted (the order's smallest-stride bandwidth / the model's slowdown,
# dotted grey); beside it the transpose's bandwidth in row and diagonal block order, as bars.

import runs as rd

PROBE = "partitions"


def series(result):
    """{(order, pad): stride rows in stride order}; rows without a stride left out."""
    out = {}
    for r in rd.rows(result, mode="stride"):
        p = r["params"]
        if "stride" not in p or rd.median(r) is None:
            continue
        out.setdefault((p["order"], p.get("pad", 0)), []).append(r)
    return {k: sorted(out[k], key=lambda r: r["params"]["stride"]) for k in sorted(out)}


def gt200_line(rows):
    """(strides, GB/s) the GT200 model predicts for aligned rows: the smallest stride's
    bandwidth / each row's gt200_slowdown; empty without the model column."""
    if not rows:
        return [], []
    base = rd.median(rows[0])
    xs, ys = [], []
    for r in rows:
        slow = rd.part_value(r, "model", "gt200_slowdown")
        if slow:
            xs.append(r["params"]["stride"])
            ys.append(base / slow)
    return xs, ys


def transposes(result):
    """{n: {order: row}} of the transpose rows."""
    out = {}
    for r in rd.rows(result, mode="transpose"):
        if "n" in r["params"] and rd.median(r) is not None:
            out.setdefault(r["params"]["n"], {})[r["params"]["order"]] = r
    return dict(sorted(out.items()))


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    have = [(run, res) for run, res in shown if series(res) or transposes(res)]
    if not have:
        return []
    fig, axes = fg.new_figure(ncols=2, width=11.0, height=3.8)
    _strides(fg, axes[0], have)
    _transposes(fg, axes[1], have)
    caption = ("Left: bandwidth of streams read a stride apart, every stream resident at once and "
               "every point moving the same bytes; solid aligned strides, dashed the same padded by "
               "256 B (the seeds' fix); dotted grey what the GT200 model (8 partitions of 256 B) "
               "would have predicted from the smallest stride's bandwidth. Right: the tiled "
               "transpose in row and diagonal block order. " + rd.spread_kind([r for r, _ in have])
               + ".")
    return [fg.Picture(PROBE, "partitions-strides", "partitions: bandwidth against the stride",
                       caption, fg.finish(fig, "partitions: is there partition camping?"))]


def _strides(fg, ax, have):
    i = 0
    for run, res in have:
        for (order, pad), rows in series(res).items():
            xs = [r["params"]["stride"] for r in rows]
            name = f"{order}, pad {pad} B" + (f" {run.label}" if len(have) > 1 else "")
            fg.plot_series(ax, run, xs, rows, "bandwidth", fg.color(i), name)
            if pad:
                ax.lines[-1].set_linestyle("--")
            i += 1
            if pad == 0 and order == "row" and run is have[0][0]:
                gx, gy = gt200_line(rows)
                if gx:
                    ax.plot(gx, gy, ":", color="grey", label="GT200 model (row, aligned)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("stride between concurrent regions (B)")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.grid(True, alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=7)


def _transposes(fg, ax, have):
    width = 0.8 / len(have)
    sides = []
    for j, (run, res) in enumerate(have):
        for n, by_order in transposes(res).items():
            if n not in sides:
                sides.append(n)
            for k, order in enumerate(("row", "diagonal")):
                r = by_order.get(order)
                if r is None:
                    continue
                x = sides.index(n) * 2 + k + (j - (len(have) - 1) / 2) * width
                y = rd.median(r)
                ax.bar([x], [y], width=width * 0.95, color=fg.color(k), alpha=0.85,
                       label=f"{order}" if j == 0 and sides.index(n) == 0 else None)
                ax.annotate(f"{y:.0f}", (x, y), ha="center", va="bottom", fontsize=7,
                            xytext=(0, 2), textcoords="offset points")
    ax.set_xticks([i * 2 + 0.5 for i in range(len(sides))])
    ax.set_xticklabels([f"{n} x {n}" for n in sides], fontsize=8)
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_title("transpose: row against diagonal block order", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    if sides:
        ax.legend(fontsize=7)
