# l2-persist: the L2 window map — the hot data's speed-up with a persisting access-policy window
# per workload, hot size and hit ratio (its interval) — and the L2 hit share the counters saw
# beside the share the model expects.
import figures as fg
import runs as rd

PROBE = "l2-persist"


def pictures(runs):
    shown = fg.shown(runs, PROBE)
    if not shown:
        return []
    return [_heatmap(shown), _bars(shown)]


def _full_setaside(res):
    return max((r["params"].get("setaside_pct", 0) for r in res["rows"]), default=0)


def _configs(res):
    """Rows with a stream window over the whole set-aside (every hot size and hit ratio), and
    the no-window row taken after the sweep."""
    full = _full_setaside(res)
    out = []
    for r in res["rows"]:
        p = r["params"]
        if p.get("workload") == "stream-only":
            continue
        if (p.get("window") == "stream" and p.get("setaside_pct") == full) or \
                p.get("window") == "none-after-sweep":
            out.append(r)
    return out


def _label(p):
    if p.get("window") == "none-after-sweep":
        return f"{p['workload']}, no window, after the sweep"
    return f"{p['workload']}, hot {p.get('hot_pct')}%, hit-ratio {p.get('hit_ratio')}"


def _heatmap(shown):
    """The window map: speed-up per set-aside size (rows) and hot size (columns), one panel
    per run and workload; window on the stream, hit ratio 1."""
    from matplotlib.colors import TwoSlopeNorm
    workloads = ["phases", "bpg"]
    n_sets = max(len({r["params"].get("setaside_pct") for r in res["rows"]}) for _, res in shown)
    fig, axes = fg.new_figure(ncols=2, nrows=len(shown), width=10.5, height=1.4 + 0.45 * n_sets)
    fig.set_layout_engine("constrained")
    norm = TwoSlopeNorm(vcenter=1.0, vmin=0.5, vmax=1.8)
    for j, (run, res) in enumerate(shown):
        for k, workload in enumerate(workloads):
            ax = axes[j * 2 + k]
            rows = [r for r in rd.rows(res, workload=workload, window="stream", hit_ratio=1.0)]
            sets = sorted({r["params"]["setaside_pct"] for r in rows})
            hots = sorted({r["params"]["hot_pct"] for r in rows})
            grid = [[None] * len(hots) for _ in sets]
            for r in rows:
                v = rd.part_value(r, "derived", "speedup")
                grid[sets.index(r["params"]["setaside_pct"])][hots.index(r["params"]["hot_pct"])] = v
            data = [[float("nan") if v is None else v for v in line] for line in grid]
            im = ax.imshow(data, cmap="RdBu", norm=norm, origin="lower", aspect="auto")
            for y, line in enumerate(grid):
                for x, v in enumerate(line):
                    if v is not None:
                        ax.text(x, y, f"{v:.2f}x", ha="center", va="center", fontsize=7)
            ax.set_xticks(range(len(hots)))
            ax.set_xticklabels([f"{h}%" for h in hots])
            ax.set_yticks(range(len(sets)))
            ax.set_yticklabels([f"{s_}%" for s_ in sets])
            ax.set_xlabel("hot data (% of the largest set-aside)")
            ax.set_ylabel("set-aside (% of the largest)")
            ax.set_title(f"{workload} — {run.label}", fontsize=8)
    fig.colorbar(im, ax=axes, label="hot data's speed-up with the window (x)", shrink=0.9)
    caption = ("The L2 window map: the hot data's speed-up with a persisting access-policy window "
               "on the stream (hit ratio 1), per set-aside size and hot size, against no window "
               "(blue: faster, red: slower, white: no gain). phases: a hot pass after a "
               "streaming pass; bpg: hot and streaming reads interleaved.")
    fig.suptitle("l2-persist: the L2 window map", fontsize=11)
    return fg.Picture(PROBE, "l2-persist-window-map", "l2-persist: the L2 window map", caption,
                      fig)


def _bars(shown):
    fig, axes = fg.new_figure(ncols=2, width=11.0, height=5.0)
    labels = []
    for _, res in shown:
        for r in _configs(res):
            if _label(r["params"]) not in labels:
                labels.append(_label(r["params"]))
    width = 0.8 / len(shown)
    for j, (run, res) in enumerate(shown):
        for ax, what in zip(axes, ["speedup", "hit"]):
            xs, ys, err, model = [], [], [[], []], []
            for r in _configs(res):
                x = labels.index(_label(r["params"])) + (j - (len(shown) - 1) / 2) * width
                if what == "speedup":
                    y = rd.part_value(r, "derived", "speedup")
                    lo = rd.part_value(r, "derived", "speedup_low") or y
                    hi = rd.part_value(r, "derived", "speedup_high") or y
                else:
                    y = (rd.part_value(r, "derived", "hot_l2_hit_share")
                         if rd.part_value(r, "derived", "hot_l2_hit_share") is not None
                         else rd.part_value(r, "derived", "l2_hit_share"))
                    lo = hi = y
                    model.append((x, rd.part_value(r, "model", "hot_hit_share")))
                if y is None:
                    continue
                xs.append(x)
                ys.append(y)
                err[0].append(max(0.0, y - lo))
                err[1].append(max(0.0, hi - y))
            ax.bar(xs, ys, width=width * 0.95, yerr=err, capsize=3, color=fg.color(j), alpha=0.85,
                   label=run.label)
            if model:
                ax.scatter([m[0] for m in model], [m[1] for m in model], marker="_", s=300,
                           color="black", zorder=3,
                           label="model: hot share held in L2" if j == 0 else None)
    axes[0].axhline(1.0, color="0.3", linewidth=1)
    axes[0].set_ylabel("hot data's speed-up with the window (x)")
    axes[0].set_title("speed-up against no window (1 = no gain); bars: 95% interval", fontsize=9)
    axes[1].set_ylabel("L2 hit share of the hot reads (counters)")
    axes[1].set_title("hit share the counters saw, and the model's", fontsize=9)
    for ax in axes:
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=6, rotation=55, ha="right")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    caption = ("Each configuration's hot-data speed-up with a persisting L2 window over the "
               "whole set-aside (its 95% interval from the probe), and the share of the hot reads that "
               "hit in L2 (counters) beside the share the model expects to persist. phases: a "
               "hot pass after a streaming pass; bpg: hot and streaming reads interleaved. "
               "hot 200% over-commits the set-aside.")
    return fg.Picture(PROBE, "l2-persist-hits", "l2-persist: speed-up and hit share", caption,
                      fg.finish(fig, "l2-persist: speed-up and L2 hit share, whole set-aside"))
