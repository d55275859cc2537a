# peer: a heat map of the peak bandwidth from each source GPU (row) to each destination GPU
# (column), one panel per path (mode x direction), one figure per run — the matrices of the
# table view, in colour.
import math

import matplotlib

import figures as fg
import pair_matrix as pm

PROBE = "peer"
COLUMNS = 4  # panels per line


def pictures(runs):
    out = []
    for j, (run, res) in enumerate(fg.shown(runs, PROBE)):
        matrices = pm.peak_matrices(res)
        if not matrices:
            continue
        suffix = "" if j == 0 else f"-run{j + 1}"
        out.append(_heatmaps(run, matrices, f"{PROBE}-bandwidth-matrix{suffix}"))
    return out


def _heatmaps(run, matrices, name):
    n_dev = len(matrices[0]["devices"])
    ncols = min(COLUMNS, len(matrices))
    nrows = math.ceil(len(matrices) / ncols)
    side = 1.2 + 0.45 * n_dev
    fig, axes = fg.new_figure(ncols=ncols, nrows=nrows, width=side * ncols + 1.2, height=side)
    fig.set_layout_engine("constrained")
    top = max(c for m in matrices for line in m["cells"] for c in line if c is not None)
    for ax in axes[len(matrices):]:
        fig.delaxes(ax)
    im = None
    for ax, m in zip(axes, matrices):
        im = _panel(ax, m, top)
    unit = matrices[0]["unit"] or "GB/s"
    fig.colorbar(im, ax=axes[:len(matrices)], label=f"peak bandwidth ({unit})", shrink=0.9)
    fig.suptitle(f"peer: peak bandwidth, source GPU (row) to destination GPU (column) — "
                 f"{run.label}", fontsize=10)
    caption = ("Each path's peak bandwidth (the most over copy sizes) from the row's GPU to the "
               "column's GPU, as in the table's src x dst matrices; one panel per mode and "
               "direction, one colour scale for all. Grey: not measured (the diagonal, unless "
               "measured).")
    return fg.Picture(PROBE, name, "peer: bandwidth matrix", caption, fig)


def _panel(ax, m, top):
    """One path's matrix: the cells coloured on [0, top], each labelled with its value."""
    devices = m["devices"]
    data = [[float("nan") if c is None else c for c in line] for line in m["cells"]]
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.85")
    im = ax.imshow(data, cmap=cmap, vmin=0, vmax=top, aspect="equal")
    for i, line in enumerate(m["cells"]):
        for k, c in enumerate(line):
            text = "-" if c is None else f"{c:.3g}"
            dark = c is not None and c < 0.6 * top
            ax.text(k, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    ax.set_xticks(range(len(devices)))
    ax.set_xticklabels([str(d) for d in devices])
    ax.set_yticks(range(len(devices)))
    ax.set_yticklabels([str(d) for d in devices])
    ax.set_xlabel("destination GPU")
    ax.set_ylabel("source GPU")
    ax.set_title(pm.path_label(m), fontsize=8)
    return im
