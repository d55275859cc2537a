#!/usr/bin/env python3
"""Writes the hostile result files of the bad-files CLI tests into a folder (made at test time,
so that nothing big is committed). Usage: hostile_files.py OUT_DIR GOOD_RESULT.json

Each file is named for what is wrong with it; tests/CMakeLists.txt feeds them to compare, check
and fleet and expects exit 2 and one line naming the file and the reason.
"""
import gzip
import json
import os
import struct
import sys
import zlib

out, good_path = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
good_text = open(good_path, encoding="utf-8").read()
good = json.loads(good_text)


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


def variant(name, change):
    doc = json.loads(good_text)
    change(doc)
    write(name, json.dumps(doc, indent=1))


def row_metric(doc):
    return doc["results"][0]["rows"][0]["metrics"]["bandwidth"]


write("empty.json", b"")
write("binary.json", bytes(range(256)) * 4)
write("truncated.json", good_text[: len(good_text) // 2])
write("top_level_array.json", "[1, 2, 3]\n")
write("no_schema.json", '{"results": []}\n')
write("schema_99.json", '{"schema_version": 99, "results": []}\n')
write("schema_as_string.json", '{"schema_version": "3", "results": []}\n')
write("results_not_array.json", '{"schema_version": 3, "results": {"probe": "transfer"}}\n')
variant("median_as_string.json", lambda d: row_metric(d).update(median="50.0"))
variant("median_missing.json", lambda d: row_metric(d).pop("median"))
variant("rows_as_number.json", lambda d: d["results"][0].update(rows=7))
variant("sample_as_string.json", lambda d: row_metric(d).update(samples=[["49.8"]]))
variant("status_unknown.json", lambda d: d["results"][0].update(status="finished"))
variant("n_negative.json", lambda d: row_metric(d).update(n=-4))
variant("device_huge.json", lambda d: d["results"][0].update(device=2**40))
write("number_1e999.json", good_text.replace('"median": 50.0', '"median": 1e999', 1))
write("integer_huge.json",
      good_text.replace('"n": 12', '"n": 123456789012345678901234567890', 1))
write("nan.json", good_text.replace('"median": 50.0', '"median": NaN', 1))
write("trailing_garbage.json", good_text + "\n}}garbage")
write("deep_100k.json", "[" * 100000 + "]" * 100000)
write("deep_objects.json", '{"a":' * 100000 + "1" + "}" * 100000)
write("many_values.json", "[" + ",".join(["0"] * 5000000) + "]")
write("non_utf8.json", good_text.replace('"node17"', '"node\xff17"').encode("latin-1"))
write("lone_surrogate.json", good_text.replace('"node17"', '"node\\ud800"'))
write("raw_control_char.json", good_text.replace('"node17"', '"node\x0717"'))
# 65 MiB (a sparse file of NUL bytes): over the 64 MiB cap, without holding it in memory here.
with open(os.path.join(out, "huge.json"), "wb") as f:
    f.truncate(65 << 20)
# gzip (read as it is, by its first bytes): a bomb of 4 GiB of spaces in some 4 MiB (64 members
# of 64 MiB each: 1 MiB of spaces deflated after spaces, its byte-aligned blocks repeated, so no
# GiB is ever compressed here), a truncated stream and one whose CRC-32 is wrong.
spaces = b" " * (1 << 20)
deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
first = deflater.compress(spaces) + deflater.flush(zlib.Z_SYNC_FLUSH)
again = deflater.compress(spaces) + deflater.flush(zlib.Z_SYNC_FLUSH)
crc = 0
for _ in range(64):
    crc = zlib.crc32(spaces, crc)
member = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03" + first + again * 63 +
          deflater.flush(zlib.Z_FINISH) + struct.pack("<II", crc, (64 << 20) & 0xFFFFFFFF))
write("gz_bomb.json.gz", member * 64)
good_gz = gzip.compress(good_text.encode("utf-8"), mtime=0)
write("gz_truncated.json.gz", good_gz[: len(good_gz) // 2])
write("gz_bad_crc.json.gz", good_gz[:-8] + bytes([good_gz[-8] ^ 0x10]) + good_gz[-7:])
# Terminal escapes inside strings (valid JSON): ESC (colour, OSC title), NUL, BEL, C1 CSI.
escape = "\u001b[31mRED\u001b]0;pwned\u0007\u0000\u009b2J"
variant("escapes.json", lambda d: (d["host"].update(hostname="host" + escape),
                                   d["results"][0]["rows"][0]["params"].update(memory="pinned" + escape)))


# For `report` (issue 35 part 4): escapes in the GPU name, a failed probe's reason and a param; a
# run whose only probe failed (nothing to draw); a '$' that matplotlib would read as TeX.
def report_escapes(d):
    d["devices"][0]["name"] = "NVIDIA H100" + escape + " $\\frac{1"
    d["results"][0]["rows"][0]["params"]["memory"] = "pinned" + escape
    failed = json.loads(json.dumps(d["results"][0]))
    failed.update(probe="coalescing", status="failed", reason="out of memory" + escape, rows=[])
    d["results"].append(failed)


variant("report_escapes.json", report_escapes)
variant("report_failed.json", lambda d: d["results"][0].update(status="failed", rows=[],
                                                               reason="CUDA error: out of memory"))
print(f"hostile files written to {out}")
