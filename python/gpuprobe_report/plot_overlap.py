# overlap: staged time against the stream count beside the pipeline models, with the sequential
# time and the ideal (the slowest stage alone); and the timeline of one staged run.
import figures as fg
import runs as rd

PROBE = "overlap"
ORDERS = ["depth-first", "batched"]
STAGE_COLORS = {"h2d": 0, "kernel": 2, "d2h": 1}


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    pics = [_streams(shown)]
    for run, res in shown:
        tl = _timeline(run, res)
        if tl:
            pics.append(tl)
    return pics


def _workloads(shown):
    seen = []
    for _, res in shown:
        for r in rd.rows(res, run="staged"):
            key = (r["params"].get("memory"), r["params"].get("workload"))
            if key not in seen:
                seen.append(key)
    return seen


def _streams(shown):
    panels = _workloads(shown)
    ncols = min(3, len(panels))
    fig, axes = fg.new_figure(ncols=ncols, nrows=(len(panels) + ncols - 1) // ncols)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax, (memory, workload) in zip(axes, panels):
        for run, res in shown:
            for i, order in enumerate(ORDERS):
                rows = rd.rows(res, run="staged", memory=memory, workload=workload, order=order)
                xs = [r["params"]["streams"] for r in rows]
                label = f"staged, {order}" if run is shown[0][0] else None
                if fg.plot_series(ax, run, xs, rows, "time", fg.color(i), label, scale=1e3):
                    fg.plot_model(ax, xs, [_ms(rd.part_value(r, "model", "model_concurrent"))
                                           for r in rows], fg.color(i))
                    ax.scatter(xs, [_ms(rd.part_value(r, "model", "model_concurrent"))
                                    for r in rows], marker="x", color=fg.color(i), zorder=5)
            seq = rd.rows(res, run="sequential", memory=memory, workload=workload)
            if seq:
                ls, _ = fg.run_style(run)
                ax.axhline(rd.median(seq[0], "time") * 1e3, color="0.2", linestyle=ls,
                           linewidth=1, label="sequential" if run is shown[0][0] else None)
                ideal = rd.part_value(seq[0], "model", "model_ideal")
                if ideal:
                    ax.axhline(ideal * 1e3, color=fg.color(3), linestyle=ls, linewidth=1,
                               label="ideal: slowest stage alone" if run is shown[0][0] else None)
        fg.plain_log_axis(ax, "x")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.25)
        ax.set_xlabel("streams (= chunks)")
        ax.set_title(f"{memory}, {workload} workload", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        handles, _ = ax.get_legend_handles_labels()
        handles.append(fg.model_handle("model: pipeline at the concurrent copy rates"))
        ax.legend(handles=handles, fontsize=7, loc="best")
    for ax in axes[::ncols]:
        ax.set_ylabel("time for the whole buffer (ms)")
    fg.run_legend(axes[len(panels) - 1], [r for r, _ in shown], loc="lower right")
    caption = ("Time to copy the buffer in, transform it and copy it out, staged over n chunks "
               "on n streams, against n; dashed: the pipeline model fed by the stage times "
               "measured alone and the rates of both copy directions at once; lines: the "
               "sequential run and the ideal. " + rd.spread_kind([r for r, _ in shown]) + ".")
    return fg.Picture(PROBE, "overlap-streams", "overlap: time vs streams, with the model",
                      caption, fg.finish(fig, "overlap: staged time vs streams"))


def _ms(v):
    return None if v is None else v * 1e3


def _timeline(run, res):
    stages = [s for s in res.get("summary", []) if "stage" in s.get("params", {})]
    if not stages:
        return None
    fig, axes = fg.new_figure(ncols=1, width=9.0, height=2.8)
    ax = axes[0]
    for s in stages:
        p, v = s["params"], s["values"]
        start, end = v["start"]["value"] * 1e3, v["end"]["value"] * 1e3
        ax.broken_barh([(start, end - start)], (p["stream"] - 0.4, 0.8),
                       color=fg.color(STAGE_COLORS.get(p["stage"], 4)), edgecolor="white")
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=fg.color(c), label=n) for n, c in STAGE_COLORS.items()],
              fontsize=7, loc="lower right")
    ax.set_xlabel("time from the first copy's start (ms)")
    ax.set_ylabel("stream")
    ax.set_yticks(sorted({s["params"]["stream"] for s in stages}))
    ax.invert_yaxis()
    ax.grid(True, axis="x", alpha=0.3)
    p = stages[0]["params"]
    caption = (f"One untimed staged run ({p.get('memory')}, {p.get('workload')}, "
               f"{p.get('order')}, {p.get('streams')} streams) of {run.label}, an event before "
               "and after every stage: where the copies and kernels overlapped.")
    return fg.Picture(PROBE, f"overlap-timeline-{run.index + 1}", f"overlap: timeline, {run.gpu}",
                      caption, fg.finish(fig, f"overlap: timeline of one staged run ({run.gpu})"))
