# transfer: bandwidth against copy size per memory kind and direction, the fit beside it, and
# the PCIe bytes per payload byte the counters measured.
import figures as fg
import runs as rd

PROBE = "transfer"
DIRECTIONS = ["h2d", "d2h", "bidir"]
MEMORIES = ["pageable", "pinned", "wc", "registered"]


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    pics = [_bandwidth(runs, shown)]
    link = _link_bytes(shown)
    if link:
        pics.append(link)
    return pics


def _bandwidth(runs, shown):
    fig, axes = fg.new_figure(ncols=3, sharey=True)
    for ax, direction in zip(axes, DIRECTIONS):
        for run, res in shown:
            for i, memory in enumerate(MEMORIES):
                rows = rd.rows(res, memory=memory, direction=direction)
                xs = [r["params"]["bytes"] for r in rows]
                label = memory if run is shown[0][0] else None
                if fg.plot_series(ax, run, xs, rows, "bandwidth", fg.color(i), label):
                    fg.plot_model(ax, xs, [rd.part_value(r, "model", "fit_bandwidth") for r in rows],
                                  fg.color(i))
        fg.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_title(direction, fontsize=9)
        ax.set_xlabel("copy size")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("bandwidth (GB/s)")
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(fg.model_handle("fit: size / (latency + size / bandwidth)"))
    axes[0].legend(handles=handles, fontsize=7, loc="lower right")
    fg.run_legend(axes[2], [r for r, _ in shown])
    caption = ("Copy bandwidth against size, one panel per direction (bidir: both directions at "
               "once, bytes of both counted); dashed: the latency-bandwidth fit of each curve. "
               + rd.spread_kind([r for r, _ in shown]) + ".")
    return fg.Picture(PROBE, "transfer-bandwidth", "transfer: bandwidth vs copy size",
                      caption, fg.finish(fig, "transfer: bandwidth vs copy size"))


def _link_bytes(shown):
    have = [(run, res) for run, res in shown
            if any(rd.part_value(r, "derived", "link_bytes_per_payload") is not None
                   for r in res["rows"])]
    if not have:
        return None
    fig, axes = fg.new_figure(ncols=2, width=9.5)
    for ax, (name, words) in zip(axes, [("link_bytes_per_payload", "same direction"),
                                        ("reverse_link_bytes_per_payload", "reverse direction")]):
        for run, res in have:
            for i, direction in enumerate(DIRECTIONS):
                rows = rd.rows(res, memory="pinned", direction=direction)
                pts = sorted((r["params"]["bytes"], rd.part_value(r, "derived", name)) for r in rows)
                pts = [p for p in pts if p[1] is not None]
                if pts:
                    ls, marker = fg.run_style(run)
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=ls, marker=marker,
                            markersize=4, color=fg.color(i),
                            label=direction if run is have[0][0] else None)
        fg.bytes_axis(ax)
        ax.set_xlabel("copy size")
        ax.set_ylabel("PCIe bytes / payload byte (x)")
        ax.set_title(f"pinned, counters: {words}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fg.run_legend(axes[1], [r for r, _ in have])
    caption = ("PCIe traffic per payload byte measured by the counters (pcie__read_bytes, "
               "pcie__write_bytes) for pinned copies: the protocol overhead on the data's way "
               "(left) and the acknowledgements and requests the other way (right).")
    return fg.Picture(PROBE, "transfer-link-bytes", "transfer: PCIe bytes per payload byte",
                      caption, fg.finish(fig, "transfer: PCIe bytes per payload byte (counters)"))
