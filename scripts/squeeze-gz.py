#!/usr/bin/env python3
"""Recompresses gzip files with zopfli (pip install zopfli): the same bytes inside, a standard
gzip stream 10-15 % smaller than gzip -9, so the 15 MiB tree holds more evidence.

Usage: scripts/squeeze-gz.py [FILE.gz ...]   (no files: every tracked *.gz)

A file is rewritten only when the new stream decompresses to exactly its old content and is
smaller; each file's line says its old and new size.
"""
import gzip
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import zopfli.gzip


def squeeze(path):
    old = os.path.getsize(path)
    try:
        with gzip.open(path) as f:
            content = f.read()
    except (OSError, EOFError) as e:
        return path, old, old, f"not rewritten: {e}"
    stream = zopfli.gzip.compress(content, numiterations=15)
    if gzip.decompress(stream) != content:
        return path, old, old, "not rewritten: the new stream does not give the same content"
    if len(stream) >= old:
        return path, old, old, "kept"
    # A new file beside the old, then renamed over it: an interrupted run leaves the old intact.
    partial = path + ".squeeze"
    with open(partial, "wb") as f:
        f.write(stream)
    os.replace(partial, path)
    return path, old, len(stream), "squeezed"


def main(paths):
    if not paths:
        listed = subprocess.run(["git", "ls-files", "-z", "*.gz"], capture_output=True, text=True,
                                check=True).stdout
        paths = [p for p in listed.split("\0") if p]
    before = after = 0
    with ProcessPoolExecutor() as pool:
        for path, old, new, what in pool.map(squeeze, paths):
            before, after = before + old, after + new
            print(f"{path}: {old} -> {new} B, {what}", flush=True)
    print(f"{len(paths)} files: {before} -> {after} B")


if __name__ == "__main__":
    main(sys.argv[1:])
