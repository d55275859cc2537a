# zerocopy: kernel time against reuse for zero-copy (mapped host memory, read over PCIe on every
# use) and copy-then-compute, per direction and stride, with the break-even reuse marked; and the
# counters' PCIe bytes per payload byte beside the model.
import figures as fg
import runs as rd

PROBE = "zerocopy"
SERIES = [("zerocopy", 1), ("copy", 1), ("zerocopy", 32), ("copy", 32)]


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    pics = [_reuse(shown)]
    ctr = _counters(shown)
    if ctr:
        pics.append(ctr)
    return pics


def _focus(res):
    """The memory kind and element width drawn: the first memory, the widest element (other
    kinds and widths are in the tables)."""
    rows = [r["params"] for r in res["rows"] if "element_bytes" in r["params"]]
    memory = rows[0].get("memory") if rows else None
    width = max((p["element_bytes"] for p in rows), default=None)
    return memory, width


def _sweep_rows(res, **want):
    memory, width = _focus(res)
    return [r for r in rd.rows(res, memory=memory, element_bytes=width, **want)
            if "blocks" not in r["params"]]


def _reuse(shown):
    fig, axes = fg.new_figure(ncols=2, width=10.5, height=4.0)
    for ax, direction in zip(axes, ["read", "write"]):
        for run, res in shown:
            for i, (mode, stride) in enumerate(SERIES):
                rows = _sweep_rows(res, mode=mode, direction=direction, stride=stride)
                xs = [r["params"]["reuse"] for r in rows]
                label = (f"{mode}, stride {stride}" if run is shown[0][0] else None)
                fg.plot_series(ax, run, xs, rows, "time", fg.color(i), label, scale=1e3)
            for i, stride in ((0, 1), (2, 32)):
                memory, width = _focus(res)
                be = rd.summary_value(res, "break_even_reuse", direction=direction, stride=stride,
                                      memory=memory, element_bytes=width)
                if be:
                    ax.axvline(be, color=fg.color(i), linestyle=fg.run_style(run)[0],
                               linewidth=0.9, alpha=0.7)
                    ax.annotate(f"break-even {be:.2g}", (be, 0.02), xycoords=("data", "axes fraction"),
                                fontsize=7, color=fg.color(i), rotation=90, ha="right")
        fg.plain_log_axis(ax, "x")
        ax.set_yscale("log")
        ax.set_xlabel("reuse: passes of the kernel over the data")
        memory, width = _focus(shown[0][1])
        ax.set_title(f"kernel {direction}s host data ({memory}, {width} B elements)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("time (ms)")
    fg.run_legend(axes[1], [r for r, _ in shown])
    caption = ("Time to use the host buffer `reuse` times: zero-copy reads (or writes) it over "
               "PCIe on every pass, copy moves it once with cudaMemcpy and then works in device "
               "memory. Vertical lines: the break-even reuse interpolated from the two curves "
               "(beyond it, copying first wins); stride 32 touches one 16 B word per 512 B. "
               + rd.spread_kind([r for r, _ in shown]) + ".")
    return fg.Picture(PROBE, "zerocopy-break-even", "zerocopy: break-even reuse", caption,
                      fg.finish(fig, "zerocopy: zero-copy vs copy-then-compute"))


def _counters(shown):
    fig, axes = fg.new_figure(ncols=1, width=5.6, height=4.2)
    pairs = [("link_bytes_per_payload_counter", "link_bytes_per_payload",
              "PCIe bytes / payload byte")]
    if not fg.counter_vs_model(axes[0], [(run, res["rows"]) for run, res in shown], pairs,
                               "counters against the PCIe model, one marker per row"):
        return None
    caption = ("PCIe bytes per payload byte from the counters (pcie__read_bytes, "
               "pcie__write_bytes) against the model (TLP headers, 64 B fetch granularity, "
               "reuse): on the diagonal they agree.")
    return fg.Picture(PROBE, "zerocopy-counters", "zerocopy: counters vs model", caption,
                      fg.finish(fig, "zerocopy: counters vs model"))
