#!/usr/bin/env python3
"""Sets gpuprobe's multi-GPU results beside nvbandwidth's and p2pBandwidthLatencyTest's, from the
files scripts/multi-gpu-check.sh leaves in one folder (rounds numbered 1..n), and prints Markdown
tables: 512 MiB bandwidth per path (gpuprobe / nvbandwidth per round), 4 KiB time per copy both
ways, the pointer chase against nvbandwidth's latency, the driver's P2P-off path against
p2pBandwidthLatencyTest, patterns and concurrent host copies against nvbandwidth.

Usage: scripts/multi_gpu_compare.py FOLDER   (reads *.json.gz as well as *.json)
"""
import gzip
import json
import re
import statistics
import sys
from pathlib import Path


def load_json(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return json.load(f)


def files(folder, stem):
    """Round-numbered files stem-1.json[.gz], stem-2..., in round order."""
    found = {}
    for p in folder.glob(f"{stem}-*.json*"):
        m = re.fullmatch(rf"{re.escape(stem)}-(\d+)\.json(\.gz)?", p.name)
        if m:
            found[int(m.group(1))] = p
    return [found[k] for k in sorted(found)]


def rows(path, probe):
    for result in load_json(path)["results"]:
        if result["probe"] == probe and result["status"] == "ok":
            for row in result["rows"]:
                yield row["params"], {k: v["median"] for k, v in row["metrics"].items()}


def nvbandwidth_matrices(path):
    """{testcase: [(description, {(row, col): value})]} from nvbandwidth's text output."""
    out, testcase, desc, header, cells = {}, None, None, None, None
    for line in Path(path).read_text().splitlines():
        m = re.match(r"Running (\S+)\.", line)
        if m:
            testcase = m.group(1)
            out[testcase] = []
            continue
        if testcase and re.search(r"\((GB/s|ns)\)\s*$", line):
            desc, header, cells = line.strip(), None, {}
            out[testcase].append((desc, cells))
            continue
        if desc is None:
            continue
        words = line.split()
        if header is None and words and all(w.isdigit() for w in words):
            header = [int(w) for w in words]
        elif header is not None and words and words[0].isdigit() and len(words) == len(header) + 1:
            for col, word in zip(header, words[1:]):
                if word != "N/A":
                    cells[(int(words[0]), col)] = float(word)
        elif header is not None:
            desc = None
    return out


def p2p_matrices(path):
    """{title: {(row, col): value}} from p2pBandwidthLatencyTest's output (GPU rows only)."""
    out, title = {}, None
    for line in Path(path).read_text().splitlines():
        if "Matrix" in line:
            title, out[line.strip()] = line.strip(), {}
            continue
        words = line.split()
        if title and words and words[0] in ("D\\D", "GPU"):
            continue
        if title and len(words) > 1 and words[0].isdigit():
            for col, word in enumerate(words[1:]):
                out[title][(int(words[0]), col)] = float(word)
        elif title and (not words or words[0] == "CPU"):
            title = None
    return out


def off_diagonal(cells):
    return [v for (r, c), v in cells.items() if r != c]


def nvb_value(matrices, testcase, which=None):
    """The median off-diagonal cell of a testcase's matrix (the one whose description holds
    `which`, else the first), or of its one row for host tests (all cells)."""
    for desc, cells in matrices.get(testcase, []):
        if which is None or which in desc:
            vals = off_diagonal(cells) if "GPU(row)" in desc else list(cells.values())
            return statistics.median(vals) if vals else None
    return None


BANDWIDTH = [  # (mode, direction, nvbandwidth testcase, matrix)
    ("ce", "uni", "device_to_device_memcpy_read_ce", None),
    ("ce-write", "uni", "device_to_device_memcpy_write_ce", None),
    ("ce", "bidir", "device_to_device_bidirectional_memcpy_read_ce", "Total"),
    ("sm-read", "uni", "device_to_device_memcpy_read_sm", None),
    ("sm-write", "uni", "device_to_device_memcpy_write_sm", None),
    ("sm-read", "bidir", "device_to_device_bidirectional_memcpy_read_sm", "Total"),
]


def fmt_ratio(values):
    return f"{min(values):.3f}–{max(values):.3f}" if values else "-"


def bandwidth_table(folder):
    bw, nvb = files(folder, "peer-bw"), sorted(folder.glob("nvbandwidth-*.txt"))
    if not bw or not nvb:
        return
    print("\n### 512 MiB, GB/s: gpuprobe (min–max over ordered pairs) and nvbandwidth (median cell), per round\n")
    print("| path | nvbandwidth testcase | " + " | ".join(f"round {i + 1}" for i in range(len(bw)))
          + " | gpuprobe / nvbandwidth, worst pair |")
    print("|---|---|" + "---|" * len(bw) + "---|")
    for mode, direction, testcase, which in BANDWIDTH:
        cells, ratios = [], []
        for b, n in zip(bw, nvb):
            ours = [m["bandwidth"] for p, m in rows(b, "peer")
                    if p["mode"] == mode and p["direction"] == direction]
            ref = nvb_value(nvbandwidth_matrices(n), testcase, which)
            if not ours or not ref:
                cells.append("-")
                continue
            cells.append(f"{min(ours):.1f}–{max(ours):.1f} / {ref:.1f}")
            ratios.append(min(ours) / ref)
        print(f"| {mode} {direction} | {testcase}{' ' + which if which else ''} | "
              + " | ".join(cells) + f" | {fmt_ratio(ratios)} |")
    p2p = sorted(folder.glob("p2p-*.txt"))
    for direction, title in (("uni", "Unidirectional P2P=Disabled Bandwidth"),
                             ("bidir", "Bidirectional P2P=Disabled Bandwidth")):
        cells, ratios = [], []
        for b, t in zip(bw, p2p):
            ours = [m["bandwidth"] for p, m in rows(b, "peer")
                    if p["mode"] == "ce-nop2p" and p["direction"] == direction]
            mats = p2p_matrices(t)
            ref_cells = next((c for k, c in mats.items() if k.startswith(title)), {})
            ref = statistics.median(off_diagonal(ref_cells)) if ref_cells else None
            if ours and ref:
                cells.append(f"{min(ours):.1f}–{max(ours):.1f} / {ref:.1f}")
                ratios.append(min(ours) / ref)
        print(f"| ce-nop2p {direction} | p2pBandwidthLatencyTest {title} | " + " | ".join(cells)
              + f" | {fmt_ratio(ratios)} |")


def small_table(folder):
    small = files(folder, "peer-small")
    if not small:
        return
    print("\n### Small copies, us per copy, each ordered pair, per round (median over the run's rounds)\n")
    p2p = sorted(folder.glob("p2p-*.txt"))
    refs = []
    for t in p2p:
        mats = p2p_matrices(t)
        cells = next((c for k, c in mats.items() if k.startswith("P2P=Enabled Latency")), {})
        refs += off_diagonal(cells)
    print(f"p2pBandwidthLatencyTest P2P=Enabled latency (P2P writes): "
          f"{min(refs):.2f}–{max(refs):.2f} us over pairs and rounds\n" if refs else "")
    print("| path | " + " | ".join(f"round {i + 1}" for i in range(len(small))) + " | worst a→b / b→a |")
    print("|---|" + "---|" * len(small) + "---|")
    paths = []
    for p, _ in rows(small[0], "peer"):
        if (p["mode"], p["bytes"]) not in paths:
            paths.append((p["mode"], p["bytes"]))
    for mode, size in paths:
        cells, worst = [], 1.0
        for s in small:
            t = {(p["src"], p["dst"]): m["time"] * 1e6 for p, m in rows(s, "peer")
                 if p["mode"] == mode and p["bytes"] == size}
            cells.append(" ".join(f"{a}→{b} {v:.2f}" for (a, b), v in sorted(t.items())))
            for (a, b), v in t.items():
                if (b, a) in t:
                    worst = max(worst, v / t[(b, a)])
        print(f"| {mode} {size} B | " + " | ".join(cells) + f" | {worst:.3f} |")


def chase_table(folder):
    chase, nvb = files(folder, "peer-chase"), sorted(folder.glob("nvbandwidth-*.txt"))
    if not chase:
        return
    refs = [nvb_value(nvbandwidth_matrices(n), "device_to_device_latency_sm") for n in nvb]
    refs = [r for r in refs if r]
    print("\n### Pointer chase over the link, ns per dependent load (min–max over ordered pairs)\n")
    if refs:
        print(f"nvbandwidth device_to_device_latency_sm: {min(refs):.1f}–{max(refs):.1f} ns "
              "(median cell per round)\n")
    print("| chain | " + " | ".join(f"round {i + 1}" for i in range(len(chase))) + " | ÷ nvbandwidth |")
    print("|---|" + "---|" * len(chase) + "---|")
    by_size = {}
    for i, c in enumerate(chase):
        for p, m in rows(c, "peer"):
            by_size.setdefault(p["bytes"], [[] for _ in chase])[i].append(m["access_latency"] * 1e9)
    for size, per_round in sorted(by_size.items()):
        cells = [f"{min(v):.0f}–{max(v):.0f}" if v else "-" for v in per_round]
        ratios = [statistics.median(v) / r for v, r in zip(per_round, refs) if v]
        print(f"| {size} B | " + " | ".join(cells) + f" | {fmt_ratio(ratios)} |")


def pattern_table(folder):
    pats, nvb = files(folder, "peer-patterns"), sorted(folder.glob("nvbandwidth-*.txt"))
    if not pats or not nvb:
        return
    print("\n### Patterns at 512 MiB per copy, GB/s per GPU (bandwidth_gpu) against nvbandwidth\n")
    print("| pattern | nvbandwidth testcase | per round: gpuprobe min–max / nvbandwidth min–max | worst ratio |")
    print("|---|---|---|---|")
    # nvbandwidth's all_to_one_read_ce has every peer pull from GPU j (data leaves j: gpuprobe's
    # one-to-all by ce, receivers pulling); one_to_all_write_ce has j push to every peer
    # (one-to-all by ce-write). Its per-GPU value is all bytes / (first start -> last end).
    for pattern, mode, testcase in (("one-to-all", "ce", "all_to_one_read_ce"),
                                    ("one-to-all", "ce-write", "one_to_all_write_ce"),
                                    ("all-to-one", "ce", "one_to_all_read_ce"),
                                    ("all-to-one", "ce-write", "all_to_one_write_ce")):
        cells, ratios = [], []
        for pf, n in zip(pats, nvb):
            ours = {p["gpu"]: m["bandwidth_gpu"] for p, m in rows(pf, "peer")
                    if p["pattern"] == pattern and p["mode"] == mode}
            ref_cells = next((c for _, c in nvbandwidth_matrices(n).get(testcase, [])), {})
            ref = {col: v for (r, col), v in ref_cells.items()}
            if not ours or not ref:
                continue
            cells.append(f"{min(ours.values()):.1f}–{max(ours.values()):.1f} / "
                         f"{min(ref.values()):.1f}–{max(ref.values()):.1f}")
            ratios += [ours[g] / ref[g] for g in ours if g in ref]
        print(f"| {pattern} {mode} | {testcase} | " + "; ".join(cells) + f" | {fmt_ratio(ratios)} |")


def host_table(folder):
    hl, nvb = files(folder, "host-links"), sorted(folder.glob("nvbandwidth-*.txt"))
    if not hl or not nvb:
        return
    print("\n### Host links at 512 MiB, GB/s per GPU: gpuprobe host-links against nvbandwidth\n")
    print("| direction | gpuprobe solo / nvbandwidth one GPU | gpuprobe concurrent / nvbandwidth all at once | worst concurrent ratio |")
    print("|---|---|---|---|")
    for direction, solo_t, all_t in (("h2d", "host_to_device_memcpy_ce", "host_to_all_memcpy_ce"),
                                     ("d2h", "device_to_host_memcpy_ce", "all_to_host_memcpy_ce")):
        solo_cells, conc_cells, ratios = [], [], []
        for h, n in zip(hl, nvb):
            mats = nvbandwidth_matrices(n)
            got = {(p["mode"], p["gpu"]): m["bandwidth"] for p, m in rows(h, "host-links")
                   if p.get("direction") == direction and isinstance(p.get("gpu"), int)}
            solo = {g: v for (mode, g), v in got.items() if mode == "solo"}
            conc = {g: v for (mode, g), v in got.items() if mode == "concurrent"}
            ref_solo = {c: v for (_, c), v in next((x for _, x in mats.get(solo_t, [])), {}).items()}
            ref_all = {c: v for (_, c), v in next((x for _, x in mats.get(all_t, [])), {}).items()}
            if not solo or not conc or not ref_all:
                continue
            solo_cells.append(f"{min(solo.values()):.1f}–{max(solo.values()):.1f} / "
                              f"{min(ref_solo.values(), default=0):.1f}–{max(ref_solo.values(), default=0):.1f}")
            conc_cells.append(f"{min(conc.values()):.1f}–{max(conc.values()):.1f} / "
                              f"{min(ref_all.values()):.1f}–{max(ref_all.values()):.1f}")
            ratios += [conc[g] / ref_all[g] for g in conc if g in ref_all]
        print(f"| {direction} | " + "; ".join(solo_cells) + " | " + "; ".join(conc_cells)
              + f" | {fmt_ratio(ratios)} |")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    for table in (bandwidth_table, small_table, chase_table, pattern_table, host_table):
        table(folder)


if __name__ == "__main__":
    main()
