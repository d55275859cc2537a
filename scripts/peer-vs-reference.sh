#!/usr/bin/env bash
# Runs gpuprobe peer for the rows that nvbandwidth and p2pBandwidthLatencyTest also measure (512 MiB
# bandwidth, 4 KiB time per copy, the pointer chase) and prints one short table to set beside the
# reference tools' output (built and run separately).
# Usage: scripts/peer-vs-reference.sh [GPU list, default: every GPU]   (BIN=build/gpuprobe,
# OUT=/tmp/peer-vs-reference: the .json/.txt/.err of each run are kept there)
set -euo pipefail
BIN=${BIN:-./build/gpuprobe}
OUT=${OUT:-/tmp/peer-vs-reference}
DEVICES=${1:+--device $1}
mkdir -p "$OUT"
run() {  # run NAME ARGS...: gpuprobe peer ARGS, kept as NAME.json/.txt/.err
  local name=$1; shift
  # shellcheck disable=SC2086
  "$BIN" --no-color peer $DEVICES "$@" --json "$OUT/$name.json" >"$OUT/$name.txt" 2>"$OUT/$name.err" ||
    { echo "gpuprobe peer $* failed (exit $?): $(tail -1 "$OUT/$name.err")" >&2; exit 1; }
}
run bandwidth --mode ce,ce-write,sm-read,sm-write,ce-nop2p --direction uni,bidir --sizes 512MiB
run patterns --pattern all-to-one,one-to-all,all-to-all --mode ce,ce-write --sizes 512MiB
run small --mode ce,ce-write,sm-read,sm-write,sm-latency --direction uni --sizes 4KiB
python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
REF = {  # (mode, direction) -> the reference tool's row
    ("ce", "uni"): "nvbandwidth device_to_device_memcpy_read_ce",
    ("ce-write", "uni"): "nvbandwidth device_to_device_memcpy_write_ce",
    ("ce", "bidir"): "nvbandwidth device_to_device_bidirectional_memcpy_read_ce",
    ("ce-write", "bidir"): "nvbandwidth device_to_device_bidirectional_memcpy_write_ce",
    ("sm-read", "uni"): "nvbandwidth device_to_device_memcpy_read_sm",
    ("sm-write", "uni"): "nvbandwidth device_to_device_memcpy_write_sm",
    ("sm-read", "bidir"): "nvbandwidth device_to_device_bidirectional_memcpy_read_sm",
    ("sm-write", "bidir"): "nvbandwidth device_to_device_bidirectional_memcpy_write_sm",
    ("ce-nop2p", "uni"): "p2pBandwidthLatencyTest P2P=Disabled unidirectional",
    ("ce-nop2p", "bidir"): "p2pBandwidthLatencyTest P2P=Disabled bidirectional",
}
def rows(name):
    with open(f"{out}/{name}.json") as f:
        doc = json.load(f)
    for result in doc["results"]:
        if result["status"] != "ok":
            sys.exit(f"{name}: peer {result['status']}: {result.get('reason')}")
        for row in result["rows"]:
            yield row["params"], {k: v["median"] for k, v in row["metrics"].items()}
def spread(values, fmt):
    return " ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))
groups = {}
for p, m in rows("bandwidth"):
    groups.setdefault((p["mode"], p["direction"]), []).append(m["bandwidth"])
print("512 MiB, GB/s over every ordered pair (min median max); bidir counts both directions")
for key, values in groups.items():
    print(f"  {key[0]:9} {key[1]:5}  {spread(values, '{:7.1f}')}   vs {REF.get(key, '-')}")
shapes = {}
for p, m in rows("patterns"):
    shapes.setdefault((p["pattern"], p["mode"]), []).append(m["bandwidth_gpu"])
PATTERN_REF = {("all-to-one", "ce"): "nvbandwidth all_to_one_read_ce",
               ("all-to-one", "ce-write"): "nvbandwidth all_to_one_write_ce",
               ("one-to-all", "ce"): "nvbandwidth one_to_all_read_ce",
               ("one-to-all", "ce-write"): "nvbandwidth one_to_all_write_ce"}
print("patterns at 512 MiB per copy, GB/s per GPU (bandwidth_gpu; min median max over GPUs)")
for key, values in shapes.items():
    print(f"  {key[0]:10} {key[1]:8}  {spread(values, '{:7.1f}')}   vs {PATTERN_REF.get(key, '-')}")
times = {}
for p, m in rows("small"):
    value = m.get("access_latency", m["time"]) * 1e9
    times.setdefault(p["mode"], {})[(p["src"], p["dst"])] = value
print("4 KiB, ns per copy (sm-latency: ns per dependent load) over every ordered pair (min "
      "median max); worst a->b / b->a")
for mode, by_pair in times.items():
    worst = max(v / by_pair[(b, a)] for (a, b), v in by_pair.items() if (b, a) in by_pair)
    ref = ("nvbandwidth device_to_device_latency_sm" if mode == "sm-latency"
           else "p2pBandwidthLatencyTest P2P=Enabled latency")
    print(f"  {mode:10}  {spread(list(by_pair.values()), '{:8.0f}')}   asym {worst:4.2f}   vs {ref}")
PY
