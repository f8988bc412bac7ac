#!/usr/bin/env python3
"""Speedup over cuBLAS against M, one line per (bits, group, dtype), for one
shape of a `lutmm bench --backend cuda --csv` run.

    python3 tools/plot_bench.py bench.csv --shape 8192x28672 -o docs/speedup.png

Needs matplotlib (pip install matplotlib); a development tool, not part of
the library or its tests. The byte-count ideal of each bit width at group 128
with fp16 scales is drawn dotted, so the distance to the roofline shows.
"""
import argparse
import csv
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)


def read_points(path):
    """Rows of the CSV as dicts, and the device line (# device,NAME,copy_tbps,X)."""
    device, rows = "", []
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip()]
    for line in lines:
        if line.startswith("# device,"):
            device = line.split(",")[1]
    body = [line for line in lines if not line.startswith("#")]
    for row in csv.DictReader(body):
        rows.append(row)
    return device, rows


def ideal_speedup(bits, group):
    """fp16 weight bytes over packed codes + fp16 scales, at M = 1."""
    return 16.0 / (bits + 16.0 / group)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--shape", default="8192x28672", help="KxN to plot")
    ap.add_argument("-o", "--output", default="speedup.png")
    ap.add_argument("--title", default="")
    ap.add_argument("--groups", default="", help="comma-separated group sizes to plot (default: all)")
    args = ap.parse_args()
    k, n = args.shape.lower().split("x")
    device, rows = read_points(args.csv)
    rows = [r for r in rows if r["k"] == k and r["n"] == n]
    if args.groups:
        rows = [r for r in rows if r["group"] in args.groups.split(",")]
    if not rows:
        sys.exit(f"no points for {args.shape} in {args.csv}")

    lines = {}
    for r in rows:
        key = (int(r["bits"]), int(r["group"]), r["dtype"])
        lines.setdefault(key, []).append((int(r["m"]), float(r["speedup"])))
    colors = {8: "tab:brown", 7: "tab:pink", 6: "tab:olive", 5: "tab:purple", 4: "tab:blue", 3: "tab:orange",
              2: "tab:green", 1: "tab:red"}
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for (bits, group, dtype), pts in sorted(lines.items(), reverse=True):
        pts.sort()
        style = "-" if dtype == "fp16" else "--"
        marker = {128: "o", 64: "s", 32: "^"}.get(group, "x")
        name = f"NF{bits}" if 2 <= bits <= 4 else f"{bits}-bit"
        ax.plot([m for m, _ in pts], [s for _, s in pts], style, marker=marker, color=colors.get(bits, "gray"),
                label=f"{name} g{group} {dtype}")
    for bits in sorted({b for b, _, _ in lines}):
        ax.axhline(ideal_speedup(bits, 128), linestyle=":", color=colors.get(bits, "gray"), linewidth=1)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("M (rows of X)")
    ax.set_ylabel("speedup over cuBLAS fp16/bf16 (same run)")
    title = args.title or f"lutmm_gemm vs cuBLAS, K×N = {k}×{n}, {device} (dotted: byte ideal, g128)"
    ax.set_title(textwrap.fill(title, 70), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    # Beside the axes, so that no line hides behind it.
    ax.legend(fontsize=7, ncol=2 if len(lines) > 24 else 1, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
