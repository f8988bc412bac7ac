#!/usr/bin/env bash
# Planted faults: proves the exact-mode oracle can fail (docs/TESTING.md).
#
#   tests/fault/run_planted.sh [FAULT...]
#
# For each fault (default: all four, then `none`), configures
# build-fault-<fault> with -Dfault_injection=<fault> -Dcuda=disabled, builds
# only the lutmm CLI, and runs
#   lutmm fuzz --backend cpu --mode exact --cases N --seed S
# (with LUTMM_CPU_SPLIT_K=2 for dropped_partial, so the reduction the fault
# sits in runs). A planted fault must give at least one mismatch within its
# stated budget of cases; the clean build (`none`) must give none, with and
# without forced split-K. The gemm_exact fuzz target's corpus replay must
# abort in every fault build too (the fuzz-regression suite would catch the
# fault). Prints one line per check and a table
#   fault | mode | cases to detection | mismatches
# Exit status: 0 all passed, 1 some check failed, 77 the CPU backend is
# unavailable (every check skipped).
set -uo pipefail
cd "$(dirname "$0")/../.."

SEED=${FAULT_SEED:-20261121}
# Stated budgets: the fault must show within this many exact-mode cases.
declare -A BUDGET=([wrong_code]=40 [wrong_scale]=40 [layout_off_by_one]=40 [dropped_partial]=40 [none]=200)
FAULTS=("$@")
[ ${#FAULTS[@]} -eq 0 ] && FAULTS=(wrong_code wrong_scale layout_off_by_one dropped_partial none)

build() {
  local fault=$1 dir=build-fault-$1
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" -Dcuda=disabled -Dfault_injection="$fault" >"$dir.setup.log" 2>&1 || {
      cat "$dir.setup.log"
      return 1
    }
    rm -f "$dir.setup.log"
  fi
  ninja -C "$dir" tools/lutmm fuzz/replay_gemm_exact >/dev/null
}

# The checked-in gemm_exact corpus, replayed in a fault build, must fail.
check_replay() {
  local fault=$1 rc
  shift
  # The outer redirection also silences the shell's own "Aborted" notice.
  { env "$@" "build-fault-$fault/fuzz/replay_gemm_exact" fuzz/corpus/gemm_exact >/dev/null 2>&1; } 2>/dev/null
  rc=$?
  if [ $rc -eq 77 ]; then
    echo "SKIP $fault replay: CPU backend unavailable in this build"
    SKIPPED_CHECKS=$((SKIPPED_CHECKS + 1))
  elif [ $rc -ne 0 ]; then
    echo "PASS $fault replay: fuzz/corpus/gemm_exact replay fails (exit $rc)"
    PASSED_CHECKS=$((PASSED_CHECKS + 1))
  else
    echo "FAIL $fault replay: fuzz/corpus/gemm_exact replay passed with the fault planted"
    FAILED_CHECKS=$((FAILED_CHECKS + 1))
  fi
}

# run_fuzz FAULT [VAR=VALUE...]: prints the runner's output, returns its status.
run_fuzz() {
  local fault=$1
  shift
  env "$@" "build-fault-$fault/tools/lutmm" fuzz --backend cpu --mode exact --cases "${BUDGET[$fault]}" --seed "$SEED"
}

# First mismatching case index (from the reproducer line), or nothing.
first_case() { grep -m1 '^mismatch:' | sed -n 's/.*--case \([0-9]*\).*/\1/p'; }
mismatch_count() { sed -n 's/^[0-9]* cases, \([0-9]*\) mismatches$/\1/p'; }

TABLE=() FAILED_CHECKS=0 PASSED_CHECKS=0 SKIPPED_CHECKS=0

check() {
  local fault=$1 label=$2 out rc
  shift 2
  out=$(run_fuzz "$fault" "$@")
  rc=$?
  if [ $rc -eq 77 ]; then
    echo "SKIP $label: CPU backend unavailable in this build"
    SKIPPED_CHECKS=$((SKIPPED_CHECKS + 1))
    return
  fi
  local first count
  first=$(printf '%s\n' "$out" | first_case)
  count=$(printf '%s\n' "$out" | mismatch_count)
  if [ "$fault" = none ]; then
    if [ $rc -eq 0 ] && [ "$count" = 0 ]; then
      echo "PASS $label: 0 mismatches in ${BUDGET[$fault]} cases"
      PASSED_CHECKS=$((PASSED_CHECKS + 1))
    else
      echo "FAIL $label: clean build reported mismatches (exit $rc)"
      printf '%s\n' "$out" | head -5
      FAILED_CHECKS=$((FAILED_CHECKS + 1))
    fi
    TABLE+=("$label | exact | - | ${count:-?}/${BUDGET[$fault]}")
    return
  fi
  if [ $rc -eq 1 ] && [ -n "$first" ]; then
    echo "PASS $label: detected at case $((first + 1)) of ${BUDGET[$fault]} ($count mismatches)"
    PASSED_CHECKS=$((PASSED_CHECKS + 1))
    TABLE+=("$label | exact | $((first + 1)) | $count/${BUDGET[$fault]}")
  else
    echo "FAIL $label: not detected within ${BUDGET[$fault]} cases (exit $rc)"
    printf '%s\n' "$out" | tail -3
    FAILED_CHECKS=$((FAILED_CHECKS + 1))
    TABLE+=("$label | exact | not detected | ${count:-?}/${BUDGET[$fault]}")
  fi
}

for fault in "${FAULTS[@]}"; do
  if [ -z "${BUDGET[$fault]+x}" ]; then
    echo "unknown fault '$fault'" >&2
    exit 2
  fi
  if ! build "$fault"; then
    echo "FAIL $fault: build-fault-$fault did not build"
    FAILED_CHECKS=$((FAILED_CHECKS + 1))
    continue
  fi
  case $fault in
    dropped_partial)
      check "$fault" "$fault" LUTMM_CPU_SPLIT_K=2
      check_replay "$fault" LUTMM_CPU_SPLIT_K=2
      ;;
    none)
      check none "none"
      check none "none (split-K 2)" LUTMM_CPU_SPLIT_K=2
      ;;
    *)
      check "$fault" "$fault"
      check_replay "$fault"
      ;;
  esac
done

echo "fault | mode | cases to detection | mismatches/cases"
printf '%s\n' "${TABLE[@]}"
echo "planted faults: $PASSED_CHECKS passed, $FAILED_CHECKS failed, $SKIPPED_CHECKS skipped"
[ $FAILED_CHECKS -gt 0 ] && exit 1
[ $PASSED_CHECKS -eq 0 ] && exit 77
exit 0
