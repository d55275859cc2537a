# l2-persist: the L2 window map — the hot data's speed-up with a persisting access-policy window
# per workload, hot size and hit ratio (its interval) — and the L2 hit share the counters saw
# beside the share the model expects.
import figures as fg
import runs as rd

PROBE = "l2-persist"


def pictures(runs):
    shown = [(run, res) for run in runs for res in run.results(PROBE)[:1]]
    if not shown:
        return []
    return [_window_map(shown)]


def _configs(res):
    out = []
    for r in res["rows"]:
        p = r["params"]
        if p.get("window") in ("stream", "none-after-sweep") and p.get("workload") != "stream-only":
            out.append(r)
    return out


def _label(p):
    if p.get("window") == "none-after-sweep":
        return f"{p['workload']}\nno window,\nafter the sweep"
    ratio = p.get("hit_ratio")
    return f"{p['workload']}\nhot {p.get('hot_pct')}%\nhit-ratio {ratio}"


def _window_map(shown):
    fig, axes = fg.new_figure(ncols=2, width=11.0, height=4.2)
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
        ax.set_xticklabels(labels, fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    caption = ("Each configuration's hot-data speed-up with a persisting L2 window over the "
               "set-aside (its 95% interval from the probe), and the share of the hot reads that "
               "hit in L2 (counters) beside the share the model expects to persist. phases: a "
               "hot pass after a streaming pass; bpg: hot and streaming reads interleaved. "
               "hot 200% over-commits the set-aside.")
    return fg.Picture(PROBE, "l2-persist-window-map", "l2-persist: the L2 window map", caption,
                      fg.finish(fig, "l2-persist: the L2 window map"))
