#!/usr/bin/env python3
"""The repository's size budget: the tracked files must fit the GPU test machine's 64 MiB tree
with room to spare, and committed result files over 1 MiB must be gzipped.

Usage: tree_budget.py SOURCE_DIR [--max-mib 15] [--max-plain-mib 1]

The files are `git ls-files` in a git checkout; elsewhere (a source tarball) every file under
SOURCE_DIR except .git and build folders. A result file is a .json, .csv, .txt or .log file under
examples/results/ or tests/fixtures/; the report page (.html) is exempt: a browser must open it
as it is. Exit 0 within budget; 1 over it, with one line per offence and the largest files.
"""
import argparse
import os
import subprocess
import sys

RESULT_DIRS = ("examples/results/", "tests/fixtures/")
RESULT_SUFFIXES = (".json", ".csv", ".txt", ".log")
MIB = 1024 * 1024


def tracked_files(root):
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p]
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not d.startswith("build")]
        files += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--max-mib", type=float, default=15)
    ap.add_argument("--max-plain-mib", type=float, default=1)
    args = ap.parse_args()
    sizes = {}
    for path in tracked_files(args.root):
        full = os.path.join(args.root, path)
        if os.path.isfile(full) and not os.path.islink(full):
            sizes[path] = os.path.getsize(full)
    total = sum(sizes.values())
    bad = []
    if total > args.max_mib * MIB:
        bad.append(f"tracked files: {total / MIB:.2f} MiB, over the {args.max_mib:g} MiB budget")
    for path, size in sorted(sizes.items()):
        if (path.startswith(RESULT_DIRS) and path.endswith(RESULT_SUFFIXES)
                and size > args.max_plain_mib * MIB):
            bad.append(f"{path}: {size / MIB:.2f} MiB result file not gzipped "
                       f"(over {args.max_plain_mib:g} MiB: commit it as {os.path.basename(path)}.gz)")
    print(f"tree budget: {len(sizes)} files, {total / MIB:.2f} MiB of {args.max_mib:g} MiB")
    for line in bad:
        print(f"tree budget: {line}")
    if bad:
        for path, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:5]:
            print(f"  largest: {size / MIB:7.2f} MiB  {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
