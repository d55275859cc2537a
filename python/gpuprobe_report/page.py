# The HTML page: one self-contained file (inline SVG, inline CSS, no script, nothing fetched),
# well-formed XML so that tests can parse it; sections: comparison, probes, environment, tables.
import io
import re
from xml.sax import saxutils

import headline
import runs as rd

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1180px; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
td { white-space: nowrap; } td.t { white-space: normal; }
th { background: #f2f2f2; } td.t, th.t { text-align: left; }
tr.beyond td { background: #fff4d6; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption, .note { font-size: 0.85em; color: #444; }
.note { background: #f6f6f6; padding: 0.4em 0.8em; border-left: 3px solid #999; }
.scroll { overflow-x: auto; } details { margin: 0.3em 0; }
li.warning { color: #a04000; }
#failed, .failed { color: #a01010; }
"""


# C0 controls but tab and newline, DEL and C1 controls: shown as \x1b, \u009b, never obeyed (and
# never in the page: XML forbids most of them). gpuprobe escapes them in the result files it
# hands over already; this covers the names, notes and titles given on its command line.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(m):
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}"


def escape(text):
    """Text for the page: control characters shown escaped, then &, < and > as entities."""
    return saxutils.escape(_CONTROL.sub(_shown, str(text)))


def quoteattr(text):
    return saxutils.quoteattr(_CONTROL.sub(_shown, str(text)))


def fmt(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, float):
        text = f"{v:.4g}"
    else:
        text = str(v)
    return f"{text} {unit}".strip()


# Geometry attributes only (never a text node: a label's "4.6875 Glookup/s" keeps its digits).
_GEOMETRY = re.compile(r'( (?:d|x|y|x1|x2|y1|y2|cx|cy|r|width|height|transform|points)=")([^"]*)"')
_LONG_NUMBER = re.compile(r"\d+\.\d{3,}")
_FONTS = re.compile(r"font-family: [^;\"]*sans-serif")


def _rounded(m):
    return f"{float(m.group(0)):.2f}"


def trimmed_svg(text):
    """Geometry to 1/100 of a pixel (matplotlib writes 1/10^6) and fonts as the reader's sans
    font: a smaller page, the same picture, every text node as drawn."""
    text = _GEOMETRY.sub(lambda m: m.group(1) + _LONG_NUMBER.sub(_rounded, m.group(2)) + '"', text)
    return _FONTS.sub("font-family: sans-serif", text)


def svg_of(picture, index):
    """The figure as inline SVG, its ids prefixed so that several figures share one page."""
    buf = io.StringIO()
    picture.figure.savefig(buf, format="svg")
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = trimmed_svg(text)
    prefix = f"f{index}-"
    text = re.sub(r'id="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'url\(#([^)]+)\)', lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    return text


def comparison_section(runs, comparison, margin, note):
    out = ['<section id="comparison"><h2>Comparison: B against A</h2>']
    out.append(f'<p>A = {escape(runs[0].label)} (build {escape(runs[0].build)}), '
               f'B = {escape(runs[1].label)} (build {escape(runs[1].build)}). Ratios are B/A.</p>')
    if note:
        out.append(f'<p class="note">{escape(note)}</p>')
    out.append('<table id="headline"><tr><th class="t">headline figure</th><th>A</th><th>B</th>'
               '<th>B/A</th><th>95% interval of B/A</th><th class="t">beyond noise?</th>'
               '<th class="t">how decided</th></tr>')
    rows = headline.rows_for(runs, comparison, margin)
    for h in rows:
        cls = ' class="beyond"' if h["noise"].startswith("yes") else ""
        iv = h["interval"]
        interval = f"[{iv[0]:.3f}, {iv[1]:.3f}]" if None not in iv else "—"
        how = h["how"] + (f"; missing in {', '.join(h['missing'])}" if h["missing"] else "")
        out.append(f'<tr{cls} data-probe={quoteattr(h["probe"])}><td class="t">{escape(h["label"])}'
                   f'</td><td>{_side(h["a"], h["unit"])}</td><td>{_side(h["b"], h["unit"])}</td>'
                   f'<td>{fmt(h["ratio"] and round(h["ratio"], 3), "x")}</td><td>{interval}</td>'
                   f'<td class="t">{escape(h["noise"])}</td><td class="t">{escape(how)}</td></tr>')
    out.append("</table>")
    pic = headline.ratio_picture(rows, runs)
    if pic is not None:
        out.append(f'<figure data-plot="comparison-headline">{svg_of(pic, 999)}'
                   f"<figcaption>{escape(pic.caption)}</figcaption></figure>")
        import matplotlib.pyplot as plt
        plt.close(pic.figure)
    out.append(_compare_findings(comparison))
    out.append("</section>")
    return "\n".join(out)


def _side(v, unit):
    if v is None:
        return "—"
    text = fmt(v[0], unit)
    if v[1] is not None and v[2] is not None:
        text += f" [{v[1]:.4g}, {v[2]:.4g}]"
    return escape(text)


def _compare_findings(comparison):
    if comparison is None:
        return ""
    items = []
    for res in comparison.get("results", []):
        if res.get("probe") != "compare":
            continue
        for f in res.get("findings", []):
            items.append(f'<li class="{escape(f.get("kind", ""))}">{escape(f.get("text", ""))}</li>')
    if not items:
        return ""
    return ("<details><summary>compare's findings (counts, largest changes, notes)</summary><ul>"
            + "".join(items) + "</ul></details>")


def probe_section(probe, pictures, runs, first_index):
    out = [f'<section class="probe" id="probe-{escape(probe)}" data-probe={quoteattr(probe)}>'
           f"<h2>{escape(probe)}</h2>"]
    failed = [f"{r.label}: {why}" for r in runs for why in not_ok(r, probe)]
    missing = [r.label for r in runs if not r.results(probe) and not not_ok(r, probe)]
    if failed:
        out.append(f'<p class="note failed">{escape(probe)} did not run to the end in: '
                   f'{escape("; ".join(failed))}.</p>')
    if missing:
        out.append(f'<p class="note">No {escape(probe)} data in: {escape("; ".join(missing))}.</p>')
    for i, pic in enumerate(pictures):
        out.append(f'<figure data-probe={quoteattr(probe)} data-plot={quoteattr(pic.name)}>'
                   f"{svg_of(pic, first_index + i)}<figcaption>{escape(pic.caption)}"
                   "</figcaption></figure>")
    out.append(_findings(probe, runs))
    out.append("</section>")
    return "\n".join(out)


def not_ok(run, probe):
    """Each result of the probe in the run that is not ok: "failed: out of memory"."""
    return [f"{r.get('status')}: {r.get('reason') or 'no reason given'}"
            for r in run.all_results() if r.get("probe") == probe and r.get("status") != "ok"]


def failed_section(runs):
    """The probes that failed or were skipped, near the top: a failed run is never a quiet gap."""
    items = [f"<li>{escape(r.label)}: {escape(str(probe))} {escape(why)}</li>"
             for r in runs for probe in r.probes() for why in not_ok(r, probe)]
    if not items:
        return ""
    return (f'<section id="failed"><h2>Not measured: {len(items)} probe result(s) failed or were '
            f'skipped</h2><ul class="failed">{"".join(items)}</ul></section>')


def _findings(probe, runs):
    out = []
    for run in runs:
        items = []
        for res in run.all_results():
            if res.get("probe") != probe:
                continue
            if res.get("status") != "ok":
                items.append(f'<li class="warning">{escape(res.get("status", ""))}: '
                             f'{escape(str(res.get("reason")))}</li>')
            for f in res.get("findings", []):
                items.append(f'<li class="{escape(f.get("kind", ""))}">{escape(f.get("text", ""))}</li>')
            for line in (res.get("verdict") or []) + (res.get("notes") or []):  # schema 1
                items.append(f"<li>{escape(line)}</li>")
        if items:
            out.append(f"<details><summary>findings of {escape(run.label)}</summary><ul>"
                       + "".join(items) + "</ul></details>")
    return "\n".join(out)


def environment_section(runs):
    out = ['<section id="environment"><h2>Environment of each run</h2>']
    for run in runs:
        d = run.data
        tool, host = d.get("tool") or {}, d.get("host") or {}
        out.append(f"<h3>{escape(run.label)}</h3><p>file {escape(run.path)}; schema "
                   f"{escape(str(run.schema))}; gpuprobe {escape(str(tool.get('version')))} "
                   f"(build {escape(run.build)}); started {escape(str(d.get('started_at')))}; host "
                   f"{escape(str(host.get('hostname')))}, {escape(str(host.get('cpu')))}, driver "
                   f"{escape(str(host.get('driver_version')))}, runtime "
                   f"{escape(str(host.get('runtime_version')))}</p>")
        out.append(f"<p>command: <code>{escape(' '.join(d.get('command') or []))}</code></p>")
        devices = d.get("devices") or []
        if devices:
            keys = list(devices[0].keys())
            out.append(_table(["field"] + [f"GPU {dv.get('index')}" for dv in devices],
                              [[k] + [dv.get(k) for dv in devices] for k in keys]))
    out.append("</section>")
    return "\n".join(out)


def gpus_of(result):
    """What a result ran on: "GPU 0", or a host-scoped probe's (peer) "GPUs 0, 1"."""
    spanned = result.get("devices") or []
    if spanned:
        return "GPUs " + ", ".join(str(d) for d in spanned)
    return f"GPU {result.get('device')}"


def tables_section(runs):
    out = ['<section id="tables"><h2>Tables</h2>']
    for run in runs:
        for res in run.all_results():
            if not res.get("rows"):
                continue
            out.append(f"<details><summary>{escape(res['probe'])} on {gpus_of(res)} — "
                       f"{escape(run.label)} ({len(res['rows'])} rows)</summary>")
            out.append(f"<p>{escape(str(res.get('method') or ''))}</p>")
            out.append(_rows_table(res))
            cond = res.get("conditions") or {}
            if cond:
                out.append(_table(["condition", "value"],
                                  [[k, fmt(v.get("value"), v.get("unit", ""))]
                                   for k, v in cond.items() if isinstance(v, dict)]))
            out.append("</details>")
    out.append("</section>")
    return "\n".join(out)


def _rows_table(res):
    pkeys, mkeys, dkeys = [], [], []
    for row in res["rows"]:
        for k in row.get("params", {}):
            pkeys.append(k) if k not in pkeys else None
        for k, v in (row.get("metrics") or {}).items():
            mkeys.append((k, v.get("unit", ""))) if (k, v.get("unit", "")) not in mkeys else None
        for part in ("derived", "model"):
            for k, v in (row.get(part) or {}).items():
                key = (part, k, v.get("unit", ""))
                dkeys.append(key) if key not in dkeys else None
    header = pkeys + [f"{k} median [{u}]" for k, u in mkeys] + [f"{k} spread [{u}]" for k, u in mkeys]
    header += [f"{p}.{k} [{u}]" for p, k, u in dkeys] + ["flags"]
    body = []
    for row in res["rows"]:
        line = [row["params"].get(k) for k in pkeys]
        line += [rd.median(row, k) for k, _ in mkeys]
        line += [_spread_text(rd.spread(row, k)) for k, _ in mkeys]
        line += [rd.part_value(row, p, k) for p, k, _ in dkeys]
        line.append(",".join(row.get("flags") or []))
        body.append(line)
    return _table(header, body)


def _spread_text(s):
    return "—" if s is None else f"{s[0]:.4g} – {s[1]:.4g}"


def _table(header, body):
    out = ['<div class="scroll"><table><tr>']
    out += [f"<th>{escape(str(h))}</th>" for h in header]
    out.append("</tr>")
    for line in body:
        cells = [f"<td>{escape(fmt(v))}</td>" for v in line]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table></div>")
    return "".join(out)


def document(title, body_parts):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body_parts) + "\n</body></html>\n")
