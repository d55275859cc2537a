# Source x destination matrices of a result whose rows carry integer `src` and `dst` params (the
# peer probe's GPU pairs), as gpuprobe's tables derive them (src/core/pair_matrix.cpp): one per
# path, each cell the peak of a rate metric over sizes. Data only, no matplotlib.


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def pair_rows(result):
    """The rows with integer src and dst params; the others are left out."""
    return [r for r in result.get("rows") or []
            if _is_int((r.get("params") or {}).get("src"))
            and _is_int((r.get("params") or {}).get("dst"))]


def _value(row, key):
    params = row.get("params") or {}
    return ("=", repr(params[key])) if key in params else ("",)


def _determined(rows, given, key):
    """True when rows that agree on their pair and on `given` always agree on `key`."""
    seen = {}
    for r in rows:
        p = r["params"]
        k = (p["src"], p["dst"], tuple(_value(r, g) for g in given))
        v = _value(r, key)
        if seen.setdefault(k, v) != v:
            return False
    return True


def path_keys(result, rows):
    """The params that tell one pair's rows apart, sizes (unit B) aside, less those that follow
    from the pair and the others (checked from the last back: peer's `link` goes, `mode` stays)."""
    units = result.get("param_units") or {}
    keys = []
    for r in rows:
        for k in r["params"]:
            if k in ("src", "dst") or units.get(k) == "B" or k in keys:
                continue
            keys.append(k)
    keys = [k for k in keys if not _determined(rows, [], k)]
    for i in range(len(keys) - 1, -1, -1):
        if _determined(rows, keys[:i] + keys[i + 1:], keys[i]):
            del keys[i]
    return keys


def peak_matrices(result, metric="bandwidth"):
    """One dict per path with a value: "path" [(key, value)], "devices" (ascending), "unit", and
    "cells"[i][j] = the most of the metric's medians from devices[i] to devices[j] over sizes,
    None where no row has one (the diagonal, unless measured)."""
    rows = pair_rows(result)
    devices = sorted({r["params"]["src"] for r in rows} | {r["params"]["dst"] for r in rows})
    keys = path_keys(result, rows)
    out = []
    for r in rows:
        path = [(k, r["params"][k]) for k in keys if k in r["params"]]
        ident = [_value(r, k) for k in keys]
        m = next((m for m in out if m["id"] == ident), None)
        if m is None:
            m = {"id": ident, "path": path, "devices": devices, "unit": "",
                 "cells": [[None] * len(devices) for _ in devices]}
            out.append(m)
        entry = (r.get("metrics") or {}).get(metric) or {}
        v = entry.get("median")
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            continue
        m["unit"] = m["unit"] or entry.get("unit", "")
        i, j = devices.index(r["params"]["src"]), devices.index(r["params"]["dst"])
        cell = m["cells"][i][j]
        m["cells"][i][j] = v if cell is None else max(cell, v)
    return [m for m in out if any(c is not None for line in m["cells"] for c in line)]


def path_label(matrix):
    """"mode ce · direction uni", or "all rows" for a matrix without a path."""
    return " · ".join(f"{k} {v}" for k, v in matrix["path"]) or "all rows"
