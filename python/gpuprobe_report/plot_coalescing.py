# coalescing: the offset sawtooth and the stride collapse (bandwidth relative to the aligned,
# unit-stride copy) beside the sector model, and the counters' sectors per request beside it.
import figures as fg
import runs as rd

PROBE = "coalescing"
WIDTHS = [4, 8, 16]


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    pics = [_relative(shown)]
    ctr = _counters(shown)
    if ctr:
        pics.append(ctr)
    return pics


def _panel(ax, shown, pattern, key, base_value):
    for run, res in shown:
        for i, width in enumerate(WIDTHS):
            rows = rd.rows(res, pattern=pattern, element_bytes=width)
            base = [r for r in rows if r["params"].get(key) == base_value]
            if not rows or not base or not rd.median(base[0]):
                continue
            scale = 1.0 / rd.median(base[0])
            xs = [r["params"][key] for r in rows]
            label = f"{width} B elements" if run is shown[0][0] else None
            fg.plot_series(ax, run, xs, rows, "bandwidth", fg.color(i), label, scale=scale)
            if run is shown[0][0]:
                fg.plot_model(ax, xs, [rd.part_value(r, "model", "predicted_relative_bandwidth")
                                       for r in rows], fg.color(i))
                fg.plot_model(ax, xs, [rd.part_value(r, "model",
                                                     "predicted_relative_bandwidth_dram")
                                       for r in rows], fg.color(i), style=":")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_ylabel("bandwidth / aligned unit-stride copy (x)")


def _relative(shown):
    fig, axes = fg.new_figure(ncols=2, width=10.5, height=4.0)
    _panel(axes[0], shown, "offset", "offset", 0)
    axes[0].set_xscale("symlog", base=2, linthresh=1)
    axes[0].xaxis.set_major_formatter(fg.FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].autoscale(axis="y")
    axes[0].set_xlabel("offset of the first element (elements)")
    axes[0].set_title("offset sawtooth", fontsize=9)
    _panel(axes[1], shown, "stride", "stride", 1)
    fg.plain_log_axis(axes[1], "x")
    fg.plain_log_axis(axes[1], "y")
    axes[1].set_xlabel("stride between the threads' elements (elements)")
    axes[1].set_title("stride collapse", fontsize=9)
    # Both legends on the stride panel, in the corners its falling curves leave empty (on the
    # offset panel the sawtooth's dips reach every corner); the colours are the same on both.
    # Without stride rows they go on the offset panel.
    ax = axes[1] if axes[1].get_legend_handles_labels()[0] else axes[0]
    handles, _ = ax.get_legend_handles_labels()
    handles.append(fg.model_handle("model: sectors touched (L1/L2)", series_color="0.3"))
    handles.append(fg.model_handle("model: sectors reaching DRAM", ":", "0.3"))
    ax.legend(handles=handles, fontsize=7, loc="lower left")
    fg.run_legend(ax, [r for r, _ in shown], loc="upper right")
    caption = ("Copy bandwidth relative to the aligned, unit-stride copy of the same element "
               "width. Dashed: the first-principles sector models (bytes moved by the sectors "
               "a warp's request touches; and by the sectors reaching DRAM, whose 64 B fetch "
               "granularity hides small offsets; dotted). " + rd.spread_kind([r for r, _ in shown])
               + ", divided by the baseline's median.")
    return fg.Picture(PROBE, "coalescing-relative", "coalescing: offset sawtooth, stride collapse",
                      caption, fg.finish(fig, "coalescing: offset sawtooth and stride collapse"))


def _counters(shown):
    fig, axes = fg.new_figure(ncols=1, width=5.6, height=4.2)
    pairs = [("sectors_per_request_counter", "sectors_per_request", "L1 load sectors/request"),
             ("store_sectors_per_request_counter", "store_sectors_per_request",
              "L1 store sectors/request"),
             ("dram_bytes_per_useful_byte_counter", "dram_bytes_per_useful_byte",
              "DRAM bytes / useful byte")]
    if not fg.counter_vs_model(axes[0], [(run, res["rows"]) for run, res in shown], pairs,
                               "counters against the sector model, one marker per row"):
        return None
    caption = ("Each row's counter-measured value (CUPTI, one repetition) against the model's "
               "prediction: on the diagonal the counters agree with the model.")
    return fg.Picture(PROBE, "coalescing-counters", "coalescing: counters vs model", caption,
                      fg.finish(fig, "coalescing: counters vs model"))
