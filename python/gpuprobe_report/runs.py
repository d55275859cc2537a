# Reading gpuprobe result files (schema 1, 2 and 3) for the report: runs, rows, values, spreads.
import gzip
import json
import math
import os


class Run:
    """One GPU of one result file: its path, a short label (GPU and file) and the parsed JSON.
    A file of several GPUs (--device all) gives one Run per GPU; a host-scoped result (peer,
    "devices": [0, 1]) belongs to the run of its first GPU, its "device"."""

    def __init__(self, path, data, index, device=None, name=None):
        self.source = path  # the file read (gpuprobe's copy of the input)
        self.path = name or path  # the name shown: the path the user gave
        self.data = data
        self.index = index
        self.device = device  # None: the file has one GPU (or none), every result is this run's
        devices = data.get("devices") or []
        info = next((d for d in devices if d.get("index") == device), devices[0] if devices else {})
        self.gpu = short_gpu(info.get("name", "no GPU"))
        self.file = short_path(self.path)
        where = "" if device is None else f" (GPU {device})"
        self.label = f"{self.gpu}{where} · {self.file}"
        self.schema = data.get("schema_version")
        tool = data.get("tool") or {}
        self.build = tool.get("git") or "?"

    def all_results(self):
        return [r for r in self.data.get("results", [])
                if self.device is None or r.get("device") == self.device]

    def results(self, probe):
        """The results of one probe that carry rows (status ok)."""
        return [r for r in self.all_results()
                if r.get("probe") == probe and r.get("status") == "ok" and r.get("rows")]

    def probes(self):
        seen = []
        for r in self.all_results():
            if r.get("probe") not in seen:
                seen.append(r.get("probe"))
        return seen


def short_gpu(name):
    return name.replace("NVIDIA ", "")


def short_path(path):
    """The file's last two path parts (h100/all.json), enough to tell runs apart."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[-2:])


# The most bytes a result file is read as (gpuprobe's kMaxResultFileBytes): for a gzipped file,
# inflated bytes, so that no file inflates beyond it here either.
MAX_RESULT_BYTES = 64 << 20


def read_result(path):
    """A result file's JSON; a gzip stream (told by its first two bytes, not by the name) is
    inflated as it is read, to at most MAX_RESULT_BYTES."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as f:
        raw = f.read(MAX_RESULT_BYTES + 1)
    if len(raw) > MAX_RESULT_BYTES:
        raise ValueError(f"{path}: more than {MAX_RESULT_BYTES >> 20} MiB")
    return json.loads(raw.decode("utf-8"))


def load_runs(paths, names=()):
    """One Run per file, or per GPU of a file that holds results of several GPUs; names[i], where
    given, is the name shown for paths[i]."""
    runs = []
    for i, path in enumerate(paths):
        name = names[i] if i < len(names) else None
        data = read_result(path)
        devices = sorted({r.get("device") for r in data.get("results", [])
                          if r.get("device") is not None})
        for device in (devices if len(devices) > 1 else [None]):
            runs.append(Run(path, data, len(runs), device, name))
    return runs


def matches(params, want):
    """True when every key of want is in params with an equal value (64 == 64.0)."""
    for key, value in want.items():
        if key not in params:
            return False
        have = params[key]
        if isinstance(value, (int, float)) and isinstance(have, (int, float)):
            if float(value) != float(have):
                return False
        elif have != value:
            return False
    return True


def rows(result, **want):
    return [r for r in result.get("rows", []) if matches(r.get("params", {}), want)]


def median(row, metric="bandwidth"):
    m = (row.get("metrics") or {}).get(metric)
    return None if m is None else m.get("median")


def part_value(row, part, name):
    """A {unit, value} entry of a row's derived or model part (None when absent)."""
    entry = (row.get(part) or {}).get(name)
    return None if entry is None else entry.get("value")


def counter(row, name):
    entry = (row.get("counters") or {}).get(name)
    return None if entry is None else entry.get("value")


def summary_value(result, name, **want):
    for s in result.get("summary", []):
        if matches(s.get("params", {}), want) and name in s.get("values", {}):
            return s["values"][name].get("value")
    return None


def finding(result, fid, **want):
    for f in result.get("findings", []):
        if f.get("id") == fid and matches(f.get("params", {}), want):
            return f
    return None


def spread(row, metric="bandwidth"):
    """(low, high) around the median: the lowest and highest round median when the row has
    several rounds of samples (schema 3), else the median's 95% order-statistic interval over
    one round's samples, else min and max (files without samples). None when nothing is known."""
    m = (row.get("metrics") or {}).get(metric)
    if m is None or m.get("median") is None:
        return None
    rounds = [r for r in (m.get("samples") or []) if r]
    if len(rounds) >= 2:
        meds = [_median(r) for r in rounds]
        return min(meds), max(meds)
    if len(rounds) == 1 and len(rounds[0]) >= 6:
        return _median_interval(rounds[0])
    if m.get("min") is not None and m.get("max") is not None:
        return m["min"], m["max"]
    return None


def spread_kind(runs):
    """Words for the error bars of these runs' rows."""
    schemas = {r.schema for r in runs}
    words = "error bars: lowest to highest round median"
    if schemas & {1, 2}:
        words += " (files without samples, schema 1 or 2: the samples' min to max)"
    return words


def _median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def _median_interval(values):
    v = sorted(values)
    n = len(v)
    half = 1.96 * math.sqrt(n) / 2
    lo = max(0, int(math.floor(n / 2 - half)))
    hi = min(n - 1, int(math.ceil(n / 2 + half)))
    return v[lo], v[hi]
