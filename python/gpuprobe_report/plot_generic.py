# Any probe without a plotter of its own: each row's first metric as a bar, labelled by params.
import figures as fg
import runs as rd


def pictures_for(probe):
    def pictures(runs):
        shown = fg.shown(runs, probe)
        if not shown:
            return []
        fig, axes = fg.new_figure(ncols=1, width=9.0, height=3.8)
        ax = axes[0]
        width = 0.8 / len(shown)
        metric, unit = None, ""
        for j, (run, res) in enumerate(shown):
            rows = res["rows"]
            metric = metric or next(iter(rows[0].get("metrics") or {}), None)
            if metric is None:
                return []
            unit = rows[0]["metrics"][metric].get("unit", "")
            xs = [i + (j - (len(shown) - 1) / 2) * width for i in range(len(rows))]
            ys = [rd.median(r, metric) or 0 for r in rows]
            ax.bar(xs, ys, width=width * 0.95, color=fg.color(j), label=run.label)
        labels = [" ".join(f"{v}" for v in r["params"].values()) for r in shown[0][1]["rows"]]
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=6)
        ax.set_ylabel(f"{metric} median ({unit})")
        ax.legend(fontsize=7)
        caption = f"Each row's {metric} median (a generic plot: this report has no plotter for {probe})."
        return [fg.Picture(probe, f"{probe}-rows", f"{probe}: rows", caption,
                           fg.finish(fig, f"{probe}: {metric} per row"))]
    return pictures
