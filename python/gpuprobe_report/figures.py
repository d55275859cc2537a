# Shared drawing helpers: one Figure per picture, runs told apart by line style, error bars.
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

import runs as rd  # noqa: E402

# Runs differ by line style and marker; series (memory kind, width, ...) by colour.
RUN_STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1)), "v")]
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


class Picture:
    """One plot of a probe: a name (file stem), a title, a caption and the matplotlib Figure."""

    def __init__(self, probe, name, title, caption, figure):
        self.probe = probe
        self.name = name
        self.title = title
        self.caption = caption
        self.figure = figure


def new_figure(ncols=1, nrows=1, width=None, height=3.6, sharey=False):
    width = width or (4.6 * ncols + 0.6)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height * nrows), squeeze=False,
                             sharey=sharey)
    return fig, [ax for row in axes for ax in row]


def shown(runs, probe):
    """(run, result) for the runs with data of the probe (the first such result of each), each
    run given the line style of its place among them (solid for the first)."""
    out = []
    for run in runs:
        for res in run.results(probe)[:1]:
            run.style = len(out)
            out.append((run, res))
    return out


def run_style(run):
    return RUN_STYLES[getattr(run, "style", run.index) % len(RUN_STYLES)]


def color(i):
    return COLORS[i % len(COLORS)]


def plot_series(ax, run, xs, rows, metric, series_color, label, scale=1.0, invert=False):
    """Medians of rows (one per x) with error bars from the rows' spread (runs.spread), times
    scale; invert: scale / value instead (a slowdown from a bandwidth)."""
    def f(v):
        return scale / v if invert else v * scale

    points = sorted(((x, r) for x, r in zip(xs, rows) if rd.median(r, metric)),
                    key=lambda p: p[0])
    if not points:
        return False
    x = [p[0] for p in points]
    y = [f(rd.median(p[1], metric)) for p in points]
    lo, hi = [], []
    for (_, r), yi in zip(points, y):
        s = rd.spread(r, metric)
        ends = sorted((f(s[0]), f(s[1]))) if s and s[0] and s[1] else (yi, yi)
        lo.append(max(0.0, yi - ends[0]))
        hi.append(max(0.0, ends[1] - yi))
    ls, marker = run_style(run)
    ax.errorbar(x, y, yerr=[lo, hi], linestyle=ls, marker=marker, markersize=4, capsize=2.5,
                color=series_color, label=label, linewidth=1.4, elinewidth=1)
    return True


def plot_model(ax, xs, ys, series_color="black", label=None, style=(0, (3, 2))):
    """A model's values as a thin dashed line drawn over the measurements (visible where they
    coincide)."""
    pts = sorted((x, y) for x, y in zip(xs, ys) if y is not None)
    if pts:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=style, color=series_color,
                linewidth=1.1, alpha=0.85, label=label, zorder=5)


def plain_log_axis(ax, axis="x", base=2):
    """Log axis labelled with plain numbers (1, 2, 4, 0.5) rather than powers."""
    getattr(ax, f"set_{axis}scale")("log", base=base)
    getattr(ax, f"{axis}axis").set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def bytes_axis(ax, axis="x"):
    """Log-2 axis of byte sizes labelled 4 KiB, 1 MiB, ..."""
    getattr(ax, f"set_{axis}scale")("log", base=2)
    fmt = FuncFormatter(lambda v, _: size_label(v))
    getattr(ax, f"{axis}axis").set_major_formatter(fmt)


def size_label(v):
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if v >= div:
            q = v / div
            return f"{q:.0f} {unit}" if q == int(q) else f"{q:.3g} {unit}"
    return f"{v:.0f} B"


def run_legend(ax, runs_shown, loc="lower right"):
    """A second legend naming each run by its line style (only when several runs are drawn)."""
    if len(runs_shown) < 2:
        return
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color="0.25", linestyle=run_style(r)[0], marker=run_style(r)[1],
                      markersize=4, label=r.label) for r in runs_shown]
    first = ax.get_legend()
    ax.legend(handles=handles, loc=loc, fontsize=7, title="run", title_fontsize=7)
    if first is not None:
        ax.add_artist(first)


def finish(fig, title):
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def model_handle(label="model", style=(0, (3, 2)), series_color="black"):
    from matplotlib.lines import Line2D
    return Line2D([], [], color=series_color, linestyle=style, label=label)


def counter_vs_model(ax, runs_rows, pairs, title):
    """Scatter of counter-measured values (y) against the model's (x), one marker per row, with
    the y = x line: points on it mean the counters agree with the model."""
    lo, hi = None, None
    for run, rows in runs_rows:
        ls, marker = run_style(run)
        for i, (ctr, mdl, label) in enumerate(pairs):
            pts = [(rd.part_value(r, "model", mdl), rd.part_value(r, "derived", ctr)) for r in rows]
            pts = [p for p in pts if p[0] is not None and p[1] is not None and p[0] > 0 and p[1] > 0]
            if not pts:
                continue
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=22,
                       color=color(i), alpha=0.8,
                       label=f"{label} — {run.gpu}" if len(runs_rows) > 1 else label)
            vals = [v for p in pts for v in p]
            lo = min(vals) if lo is None else min(lo, *vals)
            hi = max(vals) if hi is None else max(hi, *vals)
    if lo is None:
        return False
    ax.plot([lo * 0.8, hi * 1.25], [lo * 0.8, hi * 1.25], color="0.5", linewidth=1,
            linestyle=(0, (2, 2)), label="counter = model")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("model")
    ax.set_ylabel("counter (measured by CUPTI)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    return True
