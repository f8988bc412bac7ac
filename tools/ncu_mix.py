#!/usr/bin/env python3
"""Where a kernel's instructions go, from an Nsight Compute source page
(`ncu --import R --page source --csv --print-source sass`, as
tools/gpu-check.sh --profile writes ncu-*.csv): the share of each opcode,
then the code grouped by how often it ran (a loop body's instructions all
run the same number of times), largest share first.

    tools/ncu_mix.py ncu-m8.csv [--groups N]
"""
import argparse
import collections
import csv


def read_instructions(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = next(i for i, row in enumerate(rows) if "Instructions Executed" in row)
    names = rows[header]
    executed, source = names.index("Instructions Executed"), names.index("Source")
    out = []
    for row in rows[header + 1:]:
        try:
            count = int(row[executed].replace(",", ""))
        except (ValueError, IndexError):
            continue
        words = row[source].split()
        if not words:
            continue
        opcode = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        out.append((opcode.split(".")[0], count))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--groups", type=int, default=10, help="execution counts to list")
    args = ap.parse_args()
    instructions = read_instructions(args.csv)
    total = sum(count for _, count in instructions)
    if total == 0:
        raise SystemExit(f"{args.csv}: no executed instructions")
    print(f"{total:,} warp instructions executed")
    by_opcode = collections.Counter()
    for opcode, count in instructions:
        by_opcode[opcode] += count
    for opcode, count in by_opcode.most_common(16):
        print(f"  {opcode:<10} {100 * count / total:5.1f} %")
    groups = collections.defaultdict(list)
    for opcode, count in instructions:
        if count:
            groups[count].append(opcode)
    print("by execution count (instructions, share, commonest opcodes):")
    for count, ops in sorted(groups.items(), key=lambda g: -g[0] * len(g[1]))[: args.groups]:
        common = ", ".join(f"{op} {n}" for op, n in collections.Counter(ops).most_common(6))
        print(f"  {count:>9,} times: {len(ops):4} instructions, {100 * count * len(ops) / total:5.1f} %  ({common})")


if __name__ == "__main__":
    main()
