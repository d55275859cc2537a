# local: time per thread-step against the bytes each thread spills (the compiled stack frame),
# one panel per kernel, one line per carve-out, each point labelled with its registers and
# resident blocks per SM: what the spill costs and what the occupancy bought.

import runs as rd

PROBE = "local"


def series(result):
    """{(kernel, carveout): rows in spill-bytes order (most registers first among equal
    spills)}, by kernel then carve-out; rows without local_bytes are left out."""
    out = {}
    for r in rd.rows(result):
        p = r["params"]
        if rd.part_value(r, "derived", "local_bytes") is None:
            continue
        out.setdefault((p["kernel"], p["carveout"]), []).append(r)

    def order(r):
        return (rd.part_value(r, "derived", "local_bytes"),
                -(rd.part_value(r, "derived", "registers") or 0))
    return {k: sorted(out[k], key=order) for k in sorted(out)}


def label(row):
    """'<registers>r <blocks>b' for a point."""
    regs = rd.part_value(row, "derived", "registers")
    blocks = rd.part_value(row, "derived", "blocks_per_sm")
    return " ".join(f"{v:.0f}{unit}" for v, unit in ((regs, "r"), (blocks, "b")) if v is not None)


def pictures(runs):
    import figures as fg

    shown = fg.shown(runs, PROBE)
    kernels = []
    for _, res in shown:
        for k, _ in series(res):
            if k not in kernels:
                kernels.append(k)
    if not kernels:
        return []
    fig, axes = fg.new_figure(ncols=len(kernels), height=3.6)
    for ax, kernel in zip(axes, kernels):
        _panel(fg, ax, shown, kernel)
    axes[0].set_ylabel("time per thread-step (ps)")
    caption = ("Time per thread-step (whole GPU) against the stack frame each thread spills, "
               "read from the compiled kernels, one line per shared-memory carve-out; each point "
               "is a register cap, labelled with its registers (r) and resident blocks per SM "
               "(b). " + rd.spread_kind([r for r, _ in shown]) + ".")
    return [fg.Picture(PROBE, "local-spills", "local: what a spill costs", caption,
                       fg.finish(fig, "local: time per step against spilled bytes"))]


def _panel(fg, ax, shown, kernel):
    i = 0
    for run, res in shown:
        for (k, carveout), rows in series(res).items():
            if k != kernel:
                continue
            xs = [rd.part_value(r, "derived", "local_bytes") for r in rows]
            name = f"carve-out {carveout}%" + (f" {run.label}" if len(shown) > 1 else "")
            fg.plot_series(ax, run, xs, rows, "step_time", fg.color(i), name)
            i += 1
            if i > 1:  # the labels once: every carve-out compiles to the same registers
                continue
            for x, r in zip(xs, rows):
                y = rd.median(r, "step_time")
                if y:
                    ax.annotate(label(r), (x, y), fontsize=6, xytext=(3, 3),
                                textcoords="offset points")
    ax.set_xlabel("spilled bytes per thread (stack frame)")
    ax.set_title(f"{kernel} kernel", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
