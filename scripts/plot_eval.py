#!/usr/bin/env python3
"""Draws the plots of `gconv eval --plots DIR` from the CSVs it writes.

    python3 scripts/plot_eval.py --per-problem P.csv --rows R.csv --out DIR

Inputs (written by src/cli/cmd_eval.cpp):
  P.csv  spec,direction,kind,ndim,gflop,oracle_ms,picked_kernel,picked_ms,efficiency,top1
  R.csv  spec,kernel,measured_ms,predicted_ms,score   (predicted_ms is -1 for rank models)

Outputs in DIR:
  predicted_vs_measured.png  regression models: predicted vs measured ms (log-log, y = x line);
                             rank models (no predicted time): score vs measured ms
  efficiency_hist.png        per-problem efficiency (oracle ms / picked ms), with mean and P10 lines
  efficiency_vs_size.png     per-problem efficiency against problem GFLOP (log x)
Points are colored by direction. The numbers come from the C++ side; the only
ones formed here are the mean and P10 lines of the histogram, with the
definitions of heuristic::summarize (P10: the nearest rank below,
sorted[floor(0.1 * (n - 1))]), so they match `gconv eval`'s table.
Prints the written paths; exit 3 when matplotlib is missing (as
plot_report.py: gconv eval then skips the plots), 1 when an input cannot be
read.
"""
import argparse
import csv
import math
import os
import sys

DIRECTIONS = ["fwd", "bwd_data", "bwd_weight"]
COLORS = {"fwd": "tab:blue", "bwd_data": "tab:orange", "bwd_weight": "tab:green"}


def fail(msg, code=1):
    print(f"plot_eval.py: {msg}", file=sys.stderr)
    sys.exit(code)


def read_csv(path, columns):
    """Rows as dicts. The first column (spec) may hold commas (3D specs with
    per-axis strides: "s1,2,2_p0,3,3"); when a row has more fields than the
    header, the extra leading ones are joined back into it. No other column
    of these CSVs holds a comma, and a quoted spec reads as usual."""
    try:
        with open(path, newline="") as f:
            lines = list(csv.reader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if not lines:
        fail(f"{path}: empty (no header)")
    header, rows = lines[0], []
    missing = [c for c in columns if c not in header]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)}")
    for i, fields in enumerate(lines[1:], start=2):
        if not fields:
            continue
        extra = len(fields) - len(header)
        if extra < 0:
            fail(f"{path}: line {i}: {len(fields)} fields, the header has {len(header)}")
        if extra > 0:
            fields = [",".join(fields[:extra + 1])] + fields[extra + 1:]
        rows.append(dict(zip(header, fields)))
    return rows


def direction_of(spec):
    # A spec starts with its direction ("bwd_data_bf16_n8..."): the longest
    # matching prefix, so "bwd_data" is not read as some shorter name.
    for d in sorted(DIRECTIONS, key=len, reverse=True):
        if spec.startswith(d + "_"):
            return d
    return "other"


def legend(ax, present):
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], marker="o", linestyle="", color=COLORS.get(d, "gray"), label=d) for d in present]
    if handles:
        ax.legend(handles=handles, loc="best", fontsize=8)


def by_direction(points):
    """points: (direction, x, y) -> {direction: ([x], [y])} in DIRECTIONS order."""
    out = {}
    for d, x, y in points:
        xs, ys = out.setdefault(d, ([], []))
        xs.append(x)
        ys.append(y)
    order = [d for d in DIRECTIONS if d in out] + sorted(d for d in out if d not in DIRECTIONS)
    return [(d, out[d]) for d in order]


def predicted_vs_measured(plt, rows, dir_of_spec, out):
    fig, ax = plt.subplots(figsize=(6, 5.5))
    regression = any(float(r["predicted_ms"]) > 0 for r in rows)
    points = []
    for r in rows:
        d = dir_of_spec.get(r["spec"]) or direction_of(r["spec"])
        measured = float(r["measured_ms"])
        if regression:
            predicted = float(r["predicted_ms"])
            if predicted <= 0 or measured <= 0:
                continue  # -1: no prediction for this row
            points.append((d, measured, predicted))
        else:
            points.append((d, measured, float(r["score"])))
    groups = by_direction(points)
    for d, (xs, ys) in groups:
        ax.scatter(xs, ys, s=6, alpha=0.5, color=COLORS.get(d, "gray"), linewidths=0)
    ax.set_xscale("log")
    ax.set_xlabel("measured ms")
    if regression:
        ax.set_yscale("log")
        ax.set_ylabel("predicted ms")
        if points:
            lo = min(min(p[1], p[2]) for p in points)
            hi = max(max(p[1], p[2]) for p in points)
            ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, label="y = x")
        ax.set_title(f"predicted vs measured time, {len(points)} (problem, kernel) rows")
    else:
        ax.set_ylabel("model score (higher = picked first)")
        ax.set_title(f"rank model: score vs measured time, {len(points)} rows")
    legend(ax, [d for d, _ in groups])
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def efficiency_hist(plt, problems, out):
    eff = sorted(float(p["efficiency"]) for p in problems)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    if eff:
        # From the worst pick (rounded down to 0.05) to 1: a good selector's
        # problems crowd near 1, and a fixed 0..1 axis would squash them.
        lo = min(0.95, math.floor(eff[0] * 20) / 20)
        ax.hist(eff, bins=40, range=(lo, 1.0), color="tab:blue", alpha=0.8)
        mean = sum(eff) / len(eff)
        p10 = eff[int(math.floor(0.1 * (len(eff) - 1)))]
        ax.axvline(mean, color="black", linestyle="-", linewidth=1.2, label=f"mean {mean:.4f}")
        ax.axvline(p10, color="tab:red", linestyle="--", linewidth=1.2, label=f"P10 {p10:.4f}")
        ax.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("efficiency (oracle ms / picked ms)")
    ax.set_ylabel("problems")
    ax.set_title(f"selector efficiency per problem ({len(eff)} problems)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def efficiency_vs_size(plt, problems, out):
    points = [(p["direction"], float(p["gflop"]), float(p["efficiency"])) for p in problems if float(p["gflop"]) > 0]
    groups = by_direction(points)
    fig, ax = plt.subplots(figsize=(7, 4))
    for d, (xs, ys) in groups:
        ax.scatter(xs, ys, s=14, alpha=0.7, color=COLORS.get(d, "gray"), linewidths=0)
    ax.set_xscale("log")
    ax.set_xlabel("problem GFLOP")
    ax.set_ylabel("efficiency (oracle ms / picked ms)")
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_title(f"efficiency vs problem size ({len(points)} problems)")
    legend(ax, [d for d, _ in groups])
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description="Plots of gconv eval's per-problem and per-row CSVs")
    ap.add_argument("--per-problem", required=True, help="gconv eval --per-problem CSV")
    ap.add_argument("--rows", required=True, help="gconv eval --rows CSV")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (apt-get install python3-matplotlib, or pip install matplotlib); "
             "the CSVs are written, only the plots are missing", code=3)

    problems = read_csv(a.per_problem, ["spec", "direction", "gflop", "efficiency"])
    rows = read_csv(a.rows, ["spec", "measured_ms", "predicted_ms", "score"])
    os.makedirs(a.out, exist_ok=True)
    dir_of_spec = {p["spec"]: p["direction"] for p in problems}
    written = []
    for name, draw in (("predicted_vs_measured.png", lambda o: predicted_vs_measured(plt, rows, dir_of_spec, o)),
                       ("efficiency_hist.png", lambda o: efficiency_hist(plt, problems, o)),
                       ("efficiency_vs_size.png", lambda o: efficiency_vs_size(plt, problems, o))):
        path = os.path.join(a.out, name)
        draw(path)
        written.append(path)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, KeyError) as e:
        fail(f"malformed CSV value: {e}")
