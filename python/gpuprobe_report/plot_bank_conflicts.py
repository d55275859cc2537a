# bank-conflicts: the transpose ladder (naive, tiled, padded, swizzled against a plain copy), the
# slowdown per shared-memory stride beside the conflict-ways model, and the counters beside it.

import figures as fg
import runs as rd

PROBE = "bank-conflicts"
LADDER = ["copy", "naive", "tiled", "padded", "swizzled"]
WIDTHS = [4, 8, 16]


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    pics = []
    for make in (_ladder, _strides, _counters):
        pic = make(shown)
        if pic:
            pics.append(pic)
    return pics


def _ladder(shown):
    have = [(run, res) for run, res in shown if any("kernel" in r["params"] for r in res["rows"])]
    if not have:
        return None
    fig, axes = fg.new_figure(ncols=1, width=7.0, height=3.8)
    ax = axes[0]
    width = 0.8 / len(have)
    for j, (run, res) in enumerate(have):
        xs, ys, lo, hi = [], [], [], []
        for i, kernel in enumerate(LADDER):
            found = rd.rows(res, kernel=kernel)
            if not found or rd.median(found[0]) is None:
                continue
            y = rd.median(found[0])
            s = rd.spread(found[0]) or (y, y)
            xs.append(i + (j - (len(have) - 1) / 2) * width)
            ys.append(y)
            lo.append(y - s[0])
            hi.append(s[1] - y)
        ax.bar(xs, ys, width=width * 0.95, yerr=[lo, hi], capsize=3, color=fg.color(j),
               label=run.label, alpha=0.85)
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.0f}", (x, y), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(LADDER)))
    ax.set_xticklabels(["copy (no transpose)", "naive", "tiled (smem)", "padded (+1 column)",
                        "swizzled (XOR)"], fontsize=8)
    size = have[0][1]["params"].get("size", "")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_title(f"{size} x {size} float matrix transpose", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    caption = ("The transpose ladder: bandwidth (bytes read + written per second) of each "
               "kernel; tiled transposes through shared memory with 32-way conflicts on the "
               "column reads, padded and swizzled remove them. "
               + rd.spread_kind([r for r, _ in have]) + ".")
    return fg.Picture(PROBE, "bank-conflicts-ladder", "bank-conflicts: transpose ladder", caption,
                      fg.finish(fig, "bank-conflicts: the transpose ladder"))


def _strides(shown):
    have = [(run, res) for run, res in shown if rd.rows(res, op="load")]
    if not have:
        return None
    strides = sorted({r["params"]["stride"] for _, res in have for r in res["rows"]
                      if "stride" in r["params"]})
    pos = {s: i for i, s in enumerate(strides)}
    fig, axes = fg.new_figure(ncols=2, width=10.5, height=4.0, sharey=True)
    for ax, op in zip(axes, ["load", "store"]):
        for run, res in have:
            for i, width in enumerate(WIDTHS):
                rows = rd.rows(res, op=op, element_bytes=width)
                base = [r for r in rows if r["params"]["stride"] == 1]
                if not rows or not base:
                    continue
                # slowdown: stride 1's bandwidth over the row's (the same work per row)
                base_bw = rd.median(base[0])
                if not base_bw:
                    continue
                xs = [pos[r["params"]["stride"]] for r in rows]
                label = f"{width} B words" if run is have[0][0] else None
                fg.plot_series(ax, run, xs, rows, "bandwidth", fg.color(i), label, scale=base_bw,
                               invert=True)
                if run is have[0][0]:
                    fg.plot_model(ax, xs, [rd.part_value(r, "model", "conflict_ways")
                                           for r in rows])
        ax.set_xticks(range(len(strides)))
        named = {0, 1, 2, 4, 8, 16, 32, 64}  # a dense sweep labels these only
        ax.set_xticklabels([str(s) if len(strides) <= 12 or s in named else "" for s in strides])
        fg.plain_log_axis(ax, "y")
        ax.set_xlabel("stride between the threads' words (words; 0 = all the same word)")
        ax.set_title(f"shared-memory {op}s", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        handles, _ = ax.get_legend_handles_labels()
        handles.append(fg.model_handle("model: conflict ways"))
        ax.legend(handles=handles, fontsize=7, loc="upper left")
    axes[0].set_ylabel("slowdown: stride-1 bandwidth / bandwidth (x)")
    fg.run_legend(axes[1], [r for r, _ in have])
    caption = ("Slowdown of a warp's shared-memory accesses per stride (stride 1's bandwidth over "
               "the stride's), beside "
               "the model's conflict ways (how many passes the 32 banks need). "
               + rd.spread_kind([r for r, _ in have]) + ", taken through the same ratio.")
    return fg.Picture(PROBE, "bank-conflicts-strides", "bank-conflicts: slowdown per stride",
                      caption, fg.finish(fig, "bank-conflicts: slowdown per stride"))


def _counters(shown):
    fig, axes = fg.new_figure(ncols=1, width=5.6, height=4.2)
    pairs = [("load_wavefronts_per_request_counter", "load_wavefronts_per_request",
              "load wavefronts/request"),
             ("store_wavefronts_per_request_counter", "store_wavefronts_per_request",
              "store wavefronts/request")]
    if not fg.counter_vs_model(axes[0], [(run, res["rows"]) for run, res in shown], pairs,
                               "counters against the bank model, one marker per row"):
        return None
    caption = ("Shared-memory wavefronts per request from the counters (l1tex__data_pipe_lsu_"
               "wavefronts_mem_shared) against the model: on the diagonal they agree.")
    return fg.Picture(PROBE, "bank-conflicts-counters", "bank-conflicts: counters vs model",
                      caption, fg.finish(fig, "bank-conflicts: counters vs model"))


