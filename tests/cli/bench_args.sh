#!/bin/sh
# `lutmm bench` against bad arguments, numbers among them (each must be
# whole and in range): each must stop with exit status 2 and the usage line
# before touching a device, and a valid set must get past the parser (exit
# 0 where a GPU runs it, or 1 with "setup failed" where none is). Exit 77
# in a build without CUDA. Usage: bench_args.sh PATH/TO/lutmm
lutmm=$1
failures=0
cases=0
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

"$lutmm" bench --backend cuda --bits 0 >/dev/null 2>"$err"
if grep -q "built without CUDA" "$err"; then
  echo "built without CUDA: skipped"
  exit 77
fi

# expect_usage ARGS...: exit status 2 and a usage line on stderr.
expect_usage() {
  cases=$((cases + 1))
  "$lutmm" bench "$@" >/dev/null 2>"$err"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -Eq "usage|--backend must be" "$err"; then
    echo "FAIL bench $*: exit $rc, stderr: $(head -c 200 "$err")"
    failures=$((failures + 1))
  fi
}

expect_usage --backend gpu
expect_usage --backend cuda --unknown
expect_usage --backend cuda --warmup-ms -1
expect_usage --backend cuda --warmup-ms 10001
expect_usage --backend cuda --warmup-ms 5ms
expect_usage --backend cuda --warmup-ms
expect_usage --backend cuda --bits 0
expect_usage --backend cuda --bits 9
expect_usage --backend cuda --bits 4x
expect_usage --backend cuda --reps 0
expect_usage --backend cuda --reps 5x
expect_usage --backend cuda --reps 1001
expect_usage --backend cuda --m -1
expect_usage --backend cuda --m 0
expect_usage --backend cuda --m two
expect_usage --backend cuda --m 1025
expect_usage --backend cuda --shape 100x128
expect_usage --backend cuda --shape 128x0
expect_usage --backend cuda --shape 28800x128
expect_usage --backend cuda --shape 128x128x1

# A valid set: the smallest point, no warm-up.
cases=$((cases + 1))
"$lutmm" bench --backend cuda --csv --shape 128x64 --m 1 --bits 1 --reps 1 --warmup-ms 0 >/dev/null 2>"$err"
rc=$?
if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && grep -q "setup failed" "$err"; }; then
  echo "FAIL bench with valid arguments: exit $rc, stderr: $(head -c 200 "$err")"
  failures=$((failures + 1))
fi

echo "$cases cases, $failures failures"
[ "$failures" -eq 0 ]
