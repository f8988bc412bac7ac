#!/usr/bin/env python3
"""Where a column-stream or wide launch's time goes, from the stamps that a
build with `-Dstamps=true` writes (`LUTMM_STAMPS_CSV=stamps.csv` for the
column-stream kernel, `LUTMM_WIDE_STAMPS_CSV=wide.csv` for the wide kernel,
`lutmm bench --backend cuda --csv ...`; src/cuda/stamps.h).

    python3 tools/stamp_table.py stamps.csv

One row a point (the last timed call of it): the timed call, the grid, and
for each event (the file's columns after "sm") the median and the latest
warp in µs after the launch's first entry. An event is taken over the
warps that passed it (adders in the column-stream kernel; the producer
or the MMA warps in the wide kernel). A development tool; standard library
only.
"""
import csv
import statistics
import sys
from collections import OrderedDict


def main(path):
    points = OrderedDict()
    with open(path, newline="") as f:
        reader = csv.DictReader(line for line in f if not line.startswith("#"))
        events = reader.fieldnames[reader.fieldnames.index("sm") + 1:]
        for row in reader:
            key = (row["k"], row["n"], row["m"], row["bits"], row["group"], row["dtype"])
            points.setdefault(key, []).append(row)
    print("| K × N | M | bits | group | dtype | timed µs | grid | " + " | ".join(events) + " |")
    print("|" + "---|" * (7 + len(events)))
    for key, rows in points.items():
        cells = []
        for event in events:
            values = [int(r[event]) / 1000.0 for r in rows if int(r[event]) >= 0]
            if not values:
                cells.append("—")
                continue
            cells.append(f"{statistics.median(values):.2f} / {max(values):.2f}")
        k, n, m, bits, group, dtype = key
        print(f"| {k} × {n} | {m} | {bits} | {group} | {dtype} | {float(rows[0]['lutmm_us']):.2f} | "
              f"{rows[0]['grid']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: stamp_table.py stamps.csv")
    main(sys.argv[1])
