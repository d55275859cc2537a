#!/usr/bin/env python3
# CTest check of `gpuprobe report`: renders committed result files and checks the page — it
# parses as XML (well-formed), it loads nothing (no external src/href/url/import, no script),
# every probe with data in some input has a figure with data drawn in it, the probes one input
# lacks are named, and with two inputs the headline table decides what both runs hold.
# Exit 77 (a CTest skip) when the optional matplotlib is missing, after saying so.
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "gpuprobe_report"))
import headline  # noqa: E402  (the report's own list of headline figures, read only for its probes)

SVG = "{http://www.w3.org/2000/svg}"
LOADING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "audio", "video", "source"}
DATA_GROUP = re.compile(r"^f\d+-(line2d|PathCollection|LineCollection|PolyCollection|"
                        r"BrokenBarHCollection|patch)_\d+$")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def render(gpuprobe, files, out, fmt="html"):
    proc = subprocess.run([gpuprobe, "report", *files, "-o", out, "--format", fmt],
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode == 3 and "matplotlib" in proc.stderr:
        print("SKIP: gpuprobe report needs matplotlib, which is not installed here")
        sys.exit(77)
    if proc.returncode != 0:
        fail(f"gpuprobe report exited {proc.returncode}")


def check_no_loading(text, root):
    for el in root.iter():
        tag = el.tag.split("}")[-1]
        if tag in LOADING_TAGS:
            fail(f"<{tag}> element: the page would load something")
        for name, value in el.attrib.items():
            local = name.split("}")[-1]
            inline = value.startswith("#") or value.startswith("data:")  # in the page itself
            if local in ("src", "href", "data", "poster", "action") and not inline:
                fail(f"{local}={value!r}: the page would load something")
    for m in re.finditer(r"url\(([^)]*)\)", text):
        if not m.group(1).strip("'\"").startswith("#"):
            fail(f"url({m.group(1)}) loads something")
    if "@import" in text:
        fail("@import in the page")


def _has_marks(group):
    """True when the group draws something: a path with points or a placed marker."""
    for el in group.iter():
        tag = el.tag.split("}")[-1]
        if (tag == "path" and len(el.get("d", "").split()) > 2) or tag == "use":
            return True
    return False


def drawn_per_axes(figure):
    """Per axes of the figure: the groups of drawn data directly inside it (lines, markers,
    bars, error bars), not counting its background and four spines (patches)."""
    counts = []
    for axes in figure.iter(SVG + "g"):
        if not re.match(r"^f\d+-axes_\d+$", axes.get("id", "")):
            continue
        kids = [g.get("id", "") for g in axes.findall(SVG + "g") if _has_marks(g)]
        drawn = [k for k in kids if DATA_GROUP.match(k)]
        patches = [k for k in drawn if "-patch_" in k]
        images = list(axes.iter(SVG + "image"))  # a heatmap (imshow), inline PNG
        counts.append(len(drawn) - len(patches) + max(0, len(patches) - 5) + len(images))
    return counts


def probes_with_data(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":  # gzipped, as gpuprobe reads it
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    return [r["probe"] for r in data.get("results", []) if r.get("status") == "ok" and r.get("rows")]


def check_figures(root, files):
    wanted = {p: [f for f in files if p in probes_with_data(f)] for f in files
              for p in probes_with_data(f)}
    sections = {s.get("data-probe"): s for s in root.iter("section") if s.get("class") == "probe"}
    for probe, having in wanted.items():
        if probe not in sections:
            fail(f"no section for probe {probe}")
        figures = [f for f in sections[probe].iter("figure")]
        if not figures:
            fail(f"probe {probe}: no figure")
        for fig in figures:
            counts = drawn_per_axes(fig)
            if not counts or min(counts) < 1:
                fail(f"probe {probe}: figure {fig.get('data-plot')} has a plot with no data "
                     f"drawn (data groups per plot: {counts})")
        if len(having) < len(files):
            text = "".join(sections[probe].itertext())
            if "No " + probe + " data in" not in text:
                fail(f"probe {probe}: the inputs without it are not named")
        print(f"ok: {probe}: {len(figures)} figure(s), in {len(having)} of {len(files)} input(s)")


def check_headline(root, files):
    table = [t for t in root.iter("table") if t.get("id") == "headline"]
    if len(files) != 2:
        if table:
            fail("a headline table without two inputs")
        return
    if not table:
        fail("two inputs but no headline table")
    both = set(probes_with_data(files[0])) & set(probes_with_data(files[1]))
    decided = 0
    decided_probes = set()
    for tr in table[0].iter("tr"):
        cells = ["".join(td.itertext()) for td in tr.findall("td")]
        if not cells:
            continue
        if tr.get("data-probe") in both:
            if cells[3] == "—" or not re.match(r"^(yes:|no:|inconclusive|unknown: no samples)", cells[5]):
                fail(f"headline {cells[0]!r}: in both runs but no ratio or verdict: {cells}")
            decided += 1
            decided_probes.add(tr.get("data-probe"))
        elif cells[5] != "—":
            fail(f"headline {cells[0]!r}: decided although a run lacks its probe")
    # every probe both runs hold that has headline figures shows at least one of them, decided
    for probe in sorted(both & {item.probe for item in headline.ITEMS}):
        if probe not in decided_probes:
            fail(f"headline: {probe} is in both runs and has headline figures, but none is shown")
    print(f"ok: headline table, {decided} figure(s) decided")


def check_svg_files(gpuprobe, files):
    """--format svg: one well-formed SVG per plot, each with data drawn in every plot, and
    at least one per probe with data."""
    with tempfile.TemporaryDirectory() as tmp:
        render(gpuprobe, files, tmp + "/plots", "svg")
        names = sorted(os.listdir(tmp + "/plots"))
        for name in names:
            root = ET.parse(os.path.join(tmp, "plots", name)).getroot()
            for el in root.iter():  # the same id prefix as the page's, for drawn_per_axes
                if el.get("id"):
                    el.set("id", "f0-" + el.get("id"))
            counts = drawn_per_axes(root)
            if not counts or min(counts) < 1:
                fail(f"{name}: a plot with no data drawn ({counts})")
    probes = {p for f in files for p in probes_with_data(f)}
    for probe in probes:
        if not any(n.startswith(probe + "-") for n in names):
            fail(f"no SVG file for probe {probe}: {names}")
    print(f"ok: {len(names)} SVG file(s) for {len(probes)} probe(s)")


def check_in_browser(path, figures):
    """Where Chromium is installed: load the page headless with every host name unresolvable
    and check that the DOM it built holds every figure and SVG."""
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(b)), None)
    if browser is None:
        print("note: no Chromium here; the page was not loaded in a browser")
        return
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom",
                           "file://" + os.path.abspath(path)],
                          capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    if dom.count("<figure") != figures or dom.count("<svg") < figures:
        fail(f"{browser} built {dom.count('<figure')} figure(s), {dom.count('<svg')} svg(s); "
             f"the page has {figures} figure(s)")
    print(f"ok: {browser} loaded the page: {figures} figure(s) in its DOM")


def main():
    if sys.argv[1] == "--svg":
        check_svg_files(sys.argv[2], sys.argv[3:])
        return
    gpuprobe, files = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        out = tmp + "/report.html"
        render(gpuprobe, files, out)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        check_in_browser(out, text.count("<figure"))
    try:
        root = ET.fromstring(text.replace("<!DOCTYPE html>", "", 1))
    except ET.ParseError as e:
        fail(f"not well-formed: {e}")
    check_no_loading(text, root)
    check_figures(root, files)
    check_headline(root, files)
    print("report ok")


if __name__ == "__main__":
    main()
