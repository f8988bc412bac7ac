#!/usr/bin/env python3
"""Markdown tables of one `lutmm bench --backend cuda --csv` run, as
docs/PERF.md's "Full table" sections show them: one table per shape, a row
per code width, group and dtype, lutmm's time and share of the copy rate at
M = 1, then the speedup over cuBLAS at every M.

    tools/bench_table.py bench.csv > table.md
"""
import sys

from bench_targets import read_rows

NAMES = {4: "NF4", 3: "NF3", 2: "NF2"}
SHAPES = ["8192x28672", "28672x8192", "8192x8192", "4096x14336", "14336x4096", "4096x4096", "8192x1024"]


def read_points(path):
    """{(KxN, bits, group, dtype, m): (lutmm µs, speedup, % of copy)}"""
    return {(f"{r['k']}x{r['n']}", int(r["bits"]), int(r["group"]), r["dtype"], int(r["m"])):
            (float(r["lutmm_us"]), float(r["speedup"]), float(r["pct_copy"])) for r in read_rows([path])}


def shape_table(points, shape):
    ms = sorted({key[4] for key in points if key[0] == shape})
    codes = sorted({key[1:4] for key in points if key[0] == shape}, key=lambda c: (-c[0], -c[1], c[2] != "fp16"))
    lines = [f"**{shape.replace('x', ' × ')}**", "",
             "| codes | lutmm at M = 1 | " + " | ".join(f"M = {m}" if i == 0 else str(m) for i, m in enumerate(ms)) + " |",
             "|---" * (len(ms) + 2) + "|"]
    for bits, group, dtype in codes:
        name = NAMES.get(bits, f"{bits}-bit")
        first = points.get((shape, bits, group, dtype, ms[0]))
        head = f"{first[0]:.1f} µs, {first[2]:.0f} %" if first else "—"
        cells = []
        for m in ms:
            p = points.get((shape, bits, group, dtype, m))
            cells.append(f"{p[1]:.2f}" if p else "—")
        lines.append(f"| {name} g{group} {dtype} | {head} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    points = read_points(sys.argv[1])
    shapes = [s for s in SHAPES if any(key[0] == s for key in points)]
    shapes += sorted({key[0] for key in points} - set(shapes))
    print("\n\n".join(shape_table(points, s) for s in shapes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
