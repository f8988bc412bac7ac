#!/usr/bin/env python3
"""Where one `lutmm bench --backend cuda --csv` run stands against the GPU
performance targets (the speedups over cuBLAS in the same dtype that
docs/PERF.md's target tables track, on the five large shapes unless
named): for each target, how many of its points meet it and the range of
what they reach. Rows with scales of another dtype (`--fp16-scales`) are
left out.

    python3 tools/bench_targets.py bench.csv [more.csv ...]

The last line counts the points whose cuBLAS time stands more than 3 %
above that of the same call in the run's other series (bit widths and
groups), a baseline that moved rather than lutmm.

Several files are read as one run (for example the whole protocol and a
`--bits 5` run); a point measured twice keeps its last measurement. A
development tool, not part of the library or its tests; standard library
only.
"""
import csv
import statistics
import sys

LARGE = {(8192, 28672), (28672, 8192), (8192, 8192), (4096, 14336), (14336, 4096)}
SMALL = {(4096, 4096), (8192, 1024)}


def read_rows(paths):
    """The protocol's rows of the files, as dicts of the CSV's columns."""
    for path in paths:
        with open(path, newline="") as f:
            body = [line for line in f if line.strip() and not line.startswith("#")]
        for r in csv.DictReader(body):
            if r["scale_dtype"] == r["dtype"]:  # --fp16-scales runs: not the protocol's points
                yield r


def read_points(paths):
    """{(k, n, m, bits, group, dtype): (lutmm µs, cuBLAS µs)} over all files."""
    points = {}
    for r in read_rows(paths):
        key = (int(r["k"]), int(r["n"]), int(r["m"]), int(r["bits"]), int(r["group"]), r["dtype"])
        points[key] = (float(r["lutmm_us"]), float(r["cublas_us"]))
    return points


def byte_ideal(bits, group):
    """fp16 weight bytes over packed codes + fp16 scales: the speedup at M = 1 if only weights moved."""
    return 16.0 / (bits + 16.0 / group)


def report(name, values, goal):
    """One line: how many of `values` (speedups, or fractions of an ideal) reach `goal`, and their range."""
    if not values:
        print(f"{name}: no points")
        return
    met = sum(v >= goal for v in values)
    print(f"{name}: {met} of {len(values)} >= {goal:g}; "
          f"min {min(values):.2f}, median {statistics.median(values):.2f}, max {max(values):.2f}")


def speedups(points, shapes, ms, bits, groups, dtypes=("fp16",)):
    return [b / t for (k, n, m, bi, g, d), (t, b) in points.items()
            if (k, n) in shapes and m in ms and bi in bits and g in groups and d in dtypes]


def main(paths):
    points = read_points(paths)
    few = range(1, 17)
    report("NF4 g128 fp16, M = 1..16, >= 3.4x", speedups(points, LARGE, few, {4}, {128}), 3.4)
    report("NF4 g128 fp16, M = 32, >= 3.0x", speedups(points, LARGE, {32}, {4}, {128}), 3.0)
    report("NF4 g128 fp16, M = 64, >= 2.2x", speedups(points, LARGE, {64}, {4}, {128}), 2.2)
    report("NF3 g128 fp16, M = 1..16, >= 4.4x", speedups(points, LARGE, few, {3}, {128}), 4.4)
    report("NF2 g128 fp16, M = 1..16, >= 6.0x", speedups(points, LARGE, few, {2}, {128}), 6.0)
    report("NF4 g128 fp16, 4096x4096 and 8192x1024, M = 1, >= 2.0x", speedups(points, SMALL, {1}, {4}, {128}), 2.0)
    for group in (64, 32):
        for bits in (2, 3, 4):
            fractions = [s / byte_ideal(bits, group)
                         for s in speedups(points, LARGE, few, {bits}, {group}, ("fp16", "bf16"))]
            report(f"{bits}-bit g{group}, M = 1..16, fraction of byte ideal >= 0.9", fractions, 0.9)
    for bits in range(5, 9):
        fractions = [s / byte_ideal(bits, group) for group in (128, 64, 32)
                     for s in speedups(points, LARGE, few, {bits}, {group}, ("fp16", "bf16"))]
        report(f"{bits}-bit, M = 1..16, fraction of byte ideal >= 0.85", fractions, 0.85)
    for name, bits in (("1..4-bit", {1, 2, 3, 4}), ("5..8-bit", {5, 6, 7, 8})):
        report(f"{name}, M >= 128, >= 0.95x",
               speedups(points, LARGE, {128, 256}, bits, {128, 64, 32}, ("fp16", "bf16")), 0.95)
    ratios = [t_half / points[(k, n, m, bi, g, "bf16")][0]
              for (k, n, m, bi, g, d), (t_half, _) in points.items()
              if d == "fp16" and (k, n, m, bi, g, "bf16") in points]
    report("bf16 time within 5 % of fp16 (fp16 time / bf16 time >= 0.952)", ratios, 1 / 1.05)
    baseline_spread(points)


def baseline_spread(points):
    """How far cuBLAS strayed within the run: every point's cuBLAS time runs
    the same call for each (bits, group) series of a shape, M and dtype, so
    one series far above the others' median moved the baseline, not lutmm
    (it happened: docs/PERF.md, "the whole table on the code of changes 71
    and 72")."""
    calls = {}
    for (k, n, m, bits, group, dtype), (_, blas) in points.items():
        calls.setdefault((k, n, m, dtype), []).append((blas, bits, group))
    above, worst = 0, (0.0, None)
    for (k, n, m, dtype), runs in calls.items():
        if len(runs) < 3:
            continue
        median = statistics.median(blas for blas, _, _ in runs)
        for blas, bits, group in runs:
            excess = blas / median - 1
            above += excess > 0.03
            if excess > worst[0]:
                worst = (excess, f"{k}x{n} M = {m} {bits}-bit g{group} {dtype}")
    total = sum(len(runs) for runs in calls.values() if len(runs) >= 3)
    where = f"; worst +{100 * worst[0]:.1f} % ({worst[1]})" if worst[1] else ""
    print(f"cuBLAS more than 3 % above its median over the series of the same shape, M and dtype: "
          f"{above} of {total} points{where}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
