#!/usr/bin/env python3
"""`gpuprobe report` at the edges (issue 35 part 4): control characters from a result file (GPU
name, a failed probe's reason, a param) shown escaped in a well-formed page; a failed probe shown
as failed; a named pipe read once; Ctrl-C at the terminal (SIGINT to the whole group) and
SIGTERM to gpuprobe alone stop it with 130 / 143 and one line, no traceback, no page.
Usage: check_report_edges.py GPUPROBE HOSTILE_DIR GOOD.json BIG_RUN.json.gz
Exit 77 (a CTest skip) when matplotlib is missing, after saying so."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

gpuprobe, hostile, good, big = sys.argv[1:5]
failures = []


def report(args, **kw):
    return subprocess.run([gpuprobe, "report"] + args, capture_output=True, text=True, **kw)


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    page = os.path.join(tmp, "esc.html")
    p = report([os.path.join(hostile, "report_escapes.json"), good, "-o", page])
    if p.returncode == 3 and "matplotlib" in p.stderr:
        print("SKIP: gpuprobe report needs matplotlib, which is not installed here")
        sys.exit(77)
    check(p.returncode == 0, f"a file with escapes is drawn (exit {p.returncode}: {p.stderr})")
    text = open(page, encoding="utf-8").read() if os.path.exists(page) else ""
    check(not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), "no raw control character")
    check("x1b[31mRED" in text, "the escape is shown, escaped")
    try:
        ET.fromstring(text[text.index("<html"):])
        check(True, "the page is well-formed")
    except (ValueError, ET.ParseError) as e:
        check(False, f"the page is well-formed ({e})")
    check(re.search(r'<section id="failed">.*coalescing failed: out of memory', text) is not None,
          "the failed probe is shown as failed")

    fifo = os.path.join(tmp, "pipe")
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f'cat "{good}" > "{fifo}"'])
    p = report([fifo, "-o", os.path.join(tmp, "pipe.html")], timeout=60)
    writer.wait(timeout=10)
    check(p.returncode == 0, f"a named pipe is read once and drawn (exit {p.returncode})")

    for sig, code, group in ((signal.SIGINT, 130, True), (signal.SIGTERM, 143, False)):
        out = os.path.join(tmp, f"sig{code}.html")
        proc = subprocess.Popen([gpuprobe, "report", big, "-o", out], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(2.5)  # into the drawing (Python started, matplotlib imported)
        start = time.monotonic()
        if group:
            os.killpg(proc.pid, sig)  # as Ctrl-C at a terminal: gpuprobe and its Python
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
        name = signal.Signals(sig).name
        check(proc.returncode == code, f"{name}: exit {proc.returncode}, wanted {code}: {err}")
        check(took < 2, f"{name}: stopped in {took:.2f} s (at most 2)")
        check("Traceback" not in err, f"{name}: no Python traceback")
        said = [line for line in err.splitlines() if line.strip()]
        check(len(said) == 1 and f"stopped by {name}" in said[0], f"{name}: one line saying so: {err!r}")
        check(not os.path.exists(out), f"{name}: no page written")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
