#!/usr/bin/env bash
# One entry point for a fresh Debian machine.
#   tools/dev.sh demo   install what is missing, build, run `lutmm demo`
#   tools/dev.sh test   install what is missing, build every configuration
#                       this machine supports, run every test suite, and print
#                       one line "N passed, M failed, S skipped"
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(meson ninja-build gcc clang pkg-config libopenblas-dev libomp-dev libclang-rt-14-dev valgrind)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  echo "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# configure DIR [meson options...]: set up once, then build.
configure() {
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
  meson compile -C "$dir" >/dev/null
}

have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }

PASSED=0 FAILED=0 SKIPPED=0
# run_suites DIR [meson test args...]: run, echo, and add Meson's own counts.
run_suites() {
  local dir=$1 log
  shift
  log=$(mktemp)
  echo "== meson test -C $dir $*"
  meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log" | grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass):' || true
  local ok fail skip timeout xpass
  ok=$(awk '/^Ok:/ {print $2}' "$log"); fail=$(awk '/^Fail:/ {print $2}' "$log")
  skip=$(awk '/^Skipped:/ {print $2}' "$log"); timeout=$(awk '/^Timeout:/ {print $2}' "$log")
  xpass=$(awk '/^Unexpected Pass:/ {print $3}' "$log")
  if [ -z "$ok" ]; then FAILED=$((FAILED + 1)); echo "meson test did not run in $dir"; return; fi
  PASSED=$((PASSED + ok)); FAILED=$((FAILED + fail + timeout + xpass)); SKIPPED=$((SKIPPED + skip))
  rm -f "$log"
}

case "${1:-}" in
  demo)
    install_missing
    if have_nvcc; then export PATH="$PATH:/usr/local/cuda/bin"; fi
    configure build
    ./build/tools/lutmm demo
    ;;
  test)
    install_missing
    configure build -Dcuda=disabled
    run_suites build
    if have_nvcc; then
      export PATH="$PATH:/usr/local/cuda/bin"
      configure build-cuda -Dcuda=enabled
      run_suites build-cuda
    fi
    if [ -f tools/sanitize.sh ]; then
      # shellcheck source=/dev/null
      . tools/sanitize.sh
    fi
    echo "${PASSED} passed, ${FAILED} failed, ${SKIPPED} skipped"
    [ "$FAILED" -eq 0 ]
    ;;
  *)
    echo "usage: tools/dev.sh demo|test" >&2
    exit 2
    ;;
esac
