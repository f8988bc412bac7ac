# Sourced by `tools/dev.sh test` after the normal builds (not run on its own):
# uses dev.sh's configure, run_suites and PASSED/FAILED/SKIPPED counters.
#
#  1. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer, suites unit,
#     badinput, diff and fuzz-regression; any report fails the test.
#  2. valgrind memcheck over a subset of the unit tests and the bad-input
#     catalogue in the plain build: no errors, no definite leaks.
#  3. the planted faults (tests/fault/run_planted.sh): each fault must be
#     caught by exact mode, the clean build must report nothing.
# docs/TESTING.md describes each step. Directories can be overridden for
# trying this out without touching CI's builds.

SANITIZE_ASAN_DIR=${SANITIZE_ASAN_DIR:-build-asan}
SANITIZE_PLAIN_DIR=${SANITIZE_PLAIN_DIR:-build}

# Make UBSan findings fatal (by default it prints and carries on) and keep
# LeakSanitizer on; SIZE_MAX requests must fail like plain malloc.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=0

echo "== sanitizers: $SANITIZE_ASAN_DIR (address,undefined)"
configure "$SANITIZE_ASAN_DIR" -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false
for suite in unit badinput diff fuzz-regression; do
  run_suites "$SANITIZE_ASAN_DIR" --suite "$suite" --timeout-multiplier 4
done

# memcheck subset, chosen from the build's own test list so renamed unit
# tests never break it: the first two cases of every unit program (every API
# area: tables, quantize, pack/unpack, layout, GEMM, threads, serialization,
# error paths), every area of the bad-input catalogue, where leaks on
# error paths would hide, and the AVX2 diff run (the CPU backend's kernels,
# row kernel and large-M panels; a skip on CPUs without AVX2).
VALGRIND_TESTS=()
while IFS= read -r name; do VALGRIND_TESTS+=("$name"); done < <(
  meson test -C "$SANITIZE_PLAIN_DIR" --list --suite unit --suite badinput --suite diff 2>/dev/null |
    sed -n 's|^[^ ]* / ||p' |
    awk -F/ '(NF == 2 && ($1 == "badinput" || seen[$1]++ < 2)) || $0 == "diff_gemm_avx2"')
if command -v valgrind >/dev/null 2>&1 && [ ${#VALGRIND_TESTS[@]} -gt 0 ]; then
  echo "== valgrind memcheck: ${#VALGRIND_TESTS[@]} tests in $SANITIZE_PLAIN_DIR"
  # Passive OpenMP waits: spinning threads make memcheck crawl.
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 run_suites "$SANITIZE_PLAIN_DIR" \
    --wrapper 'valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --quiet' \
    --timeout-multiplier 10 "${VALGRIND_TESTS[@]}"
else
  echo "valgrind not installed (or no tests listed): memcheck step skipped"
  SKIPPED=$((SKIPPED + 1))
fi

echo "== planted faults (tests/fault/run_planted.sh)"
planted_log=$(mktemp)
# dev.sh runs under `set -euo pipefail`: a failing check is counted, not fatal.
tests/fault/run_planted.sh 2>&1 | tee "$planted_log" || true
PASSED=$((PASSED + $(grep -c '^PASS ' "$planted_log" || true)))
FAILED=$((FAILED + $(grep -c '^FAIL ' "$planted_log" || true)))
SKIPPED=$((SKIPPED + $(grep -c '^SKIP ' "$planted_log" || true)))
rm -f "$planted_log"
