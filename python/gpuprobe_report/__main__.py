# gpuprobe report's drawing half: reads result files (and compare's output for two runs) and
# writes one self-contained HTML page, or one SVG/PNG file per plot. Run by `gpuprobe report`.
import argparse
import os
import signal
import sys

# Exit code that tells `gpuprobe report` matplotlib is missing (it then says what to install).
EXIT_NO_MATPLOTLIB = 20

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("gpuprobe report: matplotlib is not installed for " + sys.executable, file=sys.stderr)
    sys.exit(EXIT_NO_MATPLOTLIB)

import matplotlib.pyplot as plt  # noqa: E402

import headline  # noqa: E402
import page  # noqa: E402
import plot_bank_conflicts  # noqa: E402
import plot_coalescing  # noqa: E402
import plot_constant  # noqa: E402
import plot_generic  # noqa: E402
import plot_l2_persist  # noqa: E402
import plot_latency  # noqa: E402
import plot_cache  # noqa: E402
import plot_local  # noqa: E402
import plot_occupancy  # noqa: E402
import plot_overlap  # noqa: E402
import plot_partitions  # noqa: E402
import plot_peer  # noqa: E402
import plot_transfer  # noqa: E402
import plot_zerocopy  # noqa: E402
import runs as rd  # noqa: E402

PLOTTERS = {
    "transfer": plot_transfer.pictures,
    "coalescing": plot_coalescing.pictures,
    "bank-conflicts": plot_bank_conflicts.pictures,
    "overlap": plot_overlap.pictures,
    "zerocopy": plot_zerocopy.pictures,
    "l2-persist": plot_l2_persist.pictures,
    "peer": plot_peer.pictures,
    "latency": plot_latency.pictures,
    "cache": plot_cache.pictures,
    "constant": plot_constant.pictures,
    "local": plot_local.pictures,
    "occupancy": plot_occupancy.pictures,
    "partitions": plot_partitions.pictures,
}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="gpuprobe report")
    p.add_argument("files", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--format", choices=["html", "svg", "png"], default="html")
    p.add_argument("--compare", help="gpuprobe compare's JSON output for the first two files")
    p.add_argument("--margin", type=float, default=2.0, help="compare's 'same' margin, percent")
    p.add_argument("--note", default="", help="a note printed above the headline figures")
    p.add_argument("--title", default="")
    p.add_argument("--name", action="append", default=[],
                   help="the name shown for each file, in order (gpuprobe passes the paths given)")
    p.add_argument("--out-name", default="", help="the output's name in the closing line")
    p.add_argument("--error-file", default="",
                   help="where a failure's one line goes (gpuprobe prints it as its own error)")
    return p.parse_args(argv)


def all_probes(runs):
    order = [p for p in PLOTTERS]
    for run in runs:
        for probe in run.probes():
            if probe not in order:
                order.append(probe)
    return [p for p in order if any(run.results(p) for run in runs)]


def main(args):
    plt.rcParams.update({"svg.hashsalt": "gpuprobe", "font.size": 8, "figure.dpi": 100,
                         "svg.fonttype": "none"})
    if "text.parse_math" in plt.rcParams:
        plt.rcParams["text.parse_math"] = False  # a '$' in a GPU name or file is text, not TeX
    runs = rd.load_runs(args.files, args.name)
    shown_out = args.out_name or args.out
    comparison = None
    if args.compare:
        import json
        with open(args.compare, encoding="utf-8") as f:
            comparison = json.load(f)
    sections, count, written = [], 0, []
    for probe in all_probes(runs):
        pictures = PLOTTERS.get(probe, plot_generic.pictures_for(probe))(runs)
        if args.format == "html":
            sections.append(page.probe_section(probe, pictures, runs, count))
        else:
            for pic in pictures:
                path = os.path.join(args.out, f"{pic.name}.{args.format}")
                pic.figure.savefig(path, format=args.format, dpi=150)
                written.append(path)
        count += len(pictures)
        for pic in pictures:
            plt.close(pic.figure)
    if args.format != "html":
        if comparison is not None and len(args.files) == 2:
            pic = headline.ratio_picture(headline.rows_for(_pair(runs, args.files), comparison,
                                                           args.margin), _pair(runs, args.files))
            if pic is not None:
                path = os.path.join(args.out, f"{pic.name}.{args.format}")
                pic.figure.savefig(path, format=args.format, dpi=150)
                written.append(path)
        print(f"report: {len(written)} {args.format} file(s) in {shown_out}")
        return 0
    title = args.title or "gpuprobe report: " + " vs ".join(r.label for r in runs)
    parts = [f"<h1>{page.escape(title)}</h1>", _inputs(runs), page.failed_section(runs)]
    if comparison is not None and len(args.files) == 2:
        parts.append(page.comparison_section(_pair(runs, args.files), comparison, args.margin,
                                             args.note))
    elif args.note:
        parts.append(f'<p class="note">{page.escape(args.note)}</p>')
    parts += sections + [page.environment_section(runs), page.tables_section(runs)]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(page.document(title, parts))
    print(f"report: {shown_out}: {count} plot(s) of {len(sections)} probe(s) from {len(runs)} run(s)")
    return 0


def _pair(runs, files):
    """compare pairs GPU i with GPU i; the headline shows the first GPU of each file."""
    return [next(r for r in runs if r.source == path) for path in files]


def _inputs(runs):
    items = "".join(
        f"<li>{page.escape(r.label)}: {page.escape(r.path)} (schema {page.escape(str(r.schema))}, "
        f"build {page.escape(r.build)}; probes: {page.escape(', '.join(_probe_state(r)))})</li>"
        for r in runs)
    return (f"<p>{len(runs)} run(s); error bars show the spread of each point's rounds (lowest to "
            "highest round median; the samples' min to max in files without samples), dashed "
            f"lines the models.</p><ul>{items}</ul>")


def _probe_state(run):
    """Each probe of a run, with its status where it is not ok ("transfer (failed)")."""
    out = []
    for probe in run.probes():
        states = {r.get("status") for r in run.all_results() if r.get("probe") == probe}
        bad = sorted(str(s) for s in states if s != "ok")
        out.append(str(probe) + (f" ({', '.join(bad)})" if bad else ""))
    return out


def _fail(args, code, line):
    """One line for gpuprobe to print as its own error (its --error-file), and the exit code."""
    if args.error_file:
        with open(args.error_file, "w", encoding="utf-8") as f:
            f.write(line + "\n")
    else:
        print("gpuprobe: error: " + line, file=sys.stderr)
    return code


def run(argv):
    # Ctrl-C reaches the whole process group: end quietly (gpuprobe says it stopped), never with
    # a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    args = parse_args(argv)
    try:
        return main(args)
    except OSError as e:
        return _fail(args, 2, f"report: cannot write '{args.out_name or args.out}': "
                              f"{e.strerror or e}")
    except Exception as e:  # a bug or input the drawing did not expect: one line, no traceback
        return _fail(args, 1, f"report: could not draw the report: {type(e).__name__}: {e}")


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
