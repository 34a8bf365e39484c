#!/usr/bin/env python3
"""Draws the plots of `gconv report --plots DIR` from DIR/report.json.

    python3 scripts/plot_report.py DIR

Every number comes from the C++ side (report.json); this script only draws:
  speedup_<baseline>.png   per-problem ratio baseline / gconv oracle, sorted (log scale)
  families_<baseline>.png  boxplot of the ratios per family / direction slice
  networks_<baseline>.png  per network: baseline vs gconv time, stacked by direction
  networks_gconv.png       per network: gconv oracle time, stacked by direction
Exit 3 when matplotlib is missing (gconv report then skips the plots).
"""
import json
import os
import sys

DIRECTIONS = ["fwd", "bwd_data", "bwd_weight"]
COLORS = {"fwd": "tab:blue", "bwd_data": "tab:orange", "bwd_weight": "tab:green"}


def safe(name):
    return name.replace(":", "_").replace("/", "_")


def speedup(plt, cmp, out):
    from matplotlib.patches import Patch
    pp = cmp["per_problem"]  # sorted by ratio
    fig, ax = plt.subplots(figsize=(max(6, len(pp) * 0.02 + 4), 4))
    xs = range(len(pp))
    ax.bar(xs, [p["ratio"] for p in pp], width=1.0, color=[COLORS.get(p["direction"], "gray") for p in pp])
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("problem (sorted)")
    ax.set_ylabel(f"{cmp['baseline']} / gconv (time ratio)")
    ax.set_title(f"gconv oracle vs {cmp['baseline']}: {len(pp)} problems (>1: gconv faster)")
    ax.legend(handles=[Patch(color=c, label=d) for d, c in COLORS.items()])
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def families(plt, cmp, out):
    groups = {}
    for p in cmp["per_problem"]:
        groups.setdefault(f"{p['family']}/{p['direction']}", []).append(p["ratio"])
        if p["ndim"] == 3:
            groups.setdefault(f"3d/{p['direction']}", []).append(p["ratio"])
    order = [f"{f}/{d}" for f in ("dense", "grouped", "depthwise", "3d") for d in DIRECTIONS]
    keys = [k for k in order if k in groups] + sorted(k for k in groups if k not in order)
    geo = {s["slice"]: s["geomean"] for s in cmp["slices"]}
    fig, ax = plt.subplots(figsize=(max(6, len(keys) * 0.8), 4))
    ax.boxplot([groups[k] for k in keys])
    ax.set_xticks(range(1, len(keys) + 1))
    ax.set_xticklabels([f"{k}\nn={len(groups[k])} g={geo.get(k, float('nan')):.2f}" for k in keys], rotation=45,
                       ha="right", fontsize=7)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel(f"{cmp['baseline']} / gconv")
    ax.set_title("ratio per family and direction (g = geomean)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def networks(plt, nets, out, with_baseline, title):
    names = sorted({n["network"] for n in nets})
    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.9), 4))
    width = 0.4 if with_baseline else 0.8
    sides = [("gconv_ms", 0.0 if not with_baseline else width / 2, "gconv")]
    if with_baseline:
        sides.insert(0, ("baseline_ms", -width / 2, "baseline"))
    for field, shift, label in sides:
        bottom = [0.0] * len(names)
        for d in DIRECTIONS:
            v = [sum(n[field] for n in nets if n["network"] == name and n["direction"] == d) for name in names]
            ax.bar([i + shift for i in range(len(names))], v, width, bottom=bottom, color=COLORS[d],
                   edgecolor="black", hatch="//" if field == "baseline_ms" else None,
                   label=f"{label} {d}")
            bottom = [b + x for b, x in zip(bottom, v)]
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("sum of ms")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_report.py: matplotlib is missing (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 3
    with open(os.path.join(d, "report.json")) as f:
        rep = json.load(f)
    written = []
    for cmp in rep["comparisons"]:
        if not cmp["per_problem"]:
            continue
        b = safe(cmp["baseline"])
        for fn, name in ((speedup, f"speedup_{b}.png"), (families, f"families_{b}.png")):
            fn(plt, cmp, os.path.join(d, name))
            written.append(name)
        name = f"networks_{b}.png"
        networks(plt, cmp["networks"], os.path.join(d, name), True,
                 f"per network: {cmp['baseline']} (hatched) vs gconv oracle")
        written.append(name)
    if rep["oracle_networks"]:
        networks(plt, rep["oracle_networks"], os.path.join(d, "networks_gconv.png"), False,
                 "per network: gconv oracle time")
        written.append("networks_gconv.png")
    print(f"plot_report.py: wrote {', '.join(written)} in {d}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
