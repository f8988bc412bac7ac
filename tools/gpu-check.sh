#!/usr/bin/env bash
# The one script for a GPU machine: build with Meson, run the cuda test
# suite, the differential fuzzer for a fixed time, compute-sanitizer memcheck
# and racecheck, the SASS check for HMMA, and the benchmark; logs go to
# $OUT (default /tmp/gpu-check) and a summary table is printed last.
#   tools/gpu-check.sh [--steps LIST] [--fuzz-seconds S] [--bench "ARGS"] [--no-bench] [--profile]
#                      [--csv-shape KxN]
# --steps runs only the listed checks after the build (comma-separated, of
# suite, fuzz, cli-fuzz, memcheck, racecheck, hmma; default all): a machine
# that limits one command's time can take the checks in two runs.
# --profile adds Nsight Compute reports of the GEMM kernels on 8192x28672 and 8192x8192, NF4
# g128 fp16 (the kernel of each band of M: see profile()), with
# per-SASS-instruction counts and stall samples in $OUT/ncu-*.csv and
# where the instructions go in $OUT/ncu-*-mix.txt, and the durations of the
# wide kernel and its fixup at M = 128 (cut_launches). --csv-shape KxN writes the full benchmark of
# that shape (every M, bit width, group and dtype) to $OUT/bench-KxN.csv,
# the input of tools/plot_bench.py.
# --ab ENV=VALUE --ab-sets "ARGS;ARGS;..." [--ab-rounds N] times a change
# that an environment variable switches (LUTMM_CUDA_COLUMN_STREAM=0, say):
# each `lutmm bench --backend cuda --csv ARGS` set without it (variant a)
# and with it (b), in N rounds (default 2) whose order alternates, into
# $OUT/ab.csv (first column: variant and round), then each point's mean
# times and b/a into $OUT/ab-summary.txt.
# --pack FILE, on a machine with nvcc and no GPU, builds what the checks need
# and writes it to FILE (.tar.xz: the programs, the cuda suite's test list,
# the CUDA objects the SASS check reads, and the shared libraries outside
# glibc and the CUDA toolkit), then stops; --prebuilt FILE, on the GPU
# machine, unpacks that into $BUILD instead of building, so its time goes to
# the checks. Both machines must be x86-64 Linux.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

OUT=${OUT:-/tmp/gpu-check}
BUILD=${BUILD:-build-gpu}
FUZZ_SECONDS=120
STEPS=suite,fuzz,cli-fuzz,memcheck,racecheck,hmma
BENCH_ARGS="--quick"
RUN_BENCH=1
PROFILE=0
CSV_SHAPE=""
AB_ENV=""
AB_SETS=""
AB_ROUNDS=2
PACK=""
PREBUILT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
    --fuzz-seconds) FUZZ_SECONDS=$2; shift 2 ;;
    --bench) BENCH_ARGS=$2; shift 2 ;;
    --no-bench) RUN_BENCH=0; shift ;;
    --profile) PROFILE=1; shift ;;
    --csv-shape) CSV_SHAPE=$2; shift 2 ;;
    --ab) AB_ENV=$2; shift 2 ;;
    --ab-sets) AB_SETS=$2; shift 2 ;;
    --ab-rounds) AB_ROUNDS=$2; shift 2 ;;
    --pack) PACK=$2; shift 2 ;;
    --prebuilt) PREBUILT=$2; shift 2 ;;
    *) echo "usage: tools/gpu-check.sh [--steps LIST] [--fuzz-seconds S] [--bench \"ARGS\"] [--no-bench] [--profile]" \
      "[--csv-shape KxN] [--ab ENV=VALUE --ab-sets \"ARGS;ARGS\" [--ab-rounds N]] [--pack FILE | --prebuilt FILE]" >&2
      exit 2 ;;
  esac
done
for name in ${STEPS//,/ }; do
  case "$name" in
    suite | fuzz | cli-fuzz | memcheck | racecheck | hmma) ;;
    *) echo "gpu-check: no step named '$name' (suite, fuzz, cli-fuzz, memcheck, racecheck, hmma)" >&2; exit 2 ;;
  esac
done
[ -n "$STEPS" ] || { echo "gpu-check: --steps needs a list" >&2; exit 2; }
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
if ! command -v meson >/dev/null && python3 -c 'import mesonbuild' 2>/dev/null; then
  meson() { python3 -m mesonbuild.mesonmain "$@"; }
fi

SUMMARY=()
# step NAME COMMAND...: runs with its output in $OUT/NAME.log, records the result.
step() {
  local name=$1 start rc
  shift
  start=$(date +%s)
  "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  SUMMARY+=("$(printf '%-14s %-5s %5ss  %s' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAIL:$rc)" \
    "$(($(date +%s) - start))" "$(tail -n 1 "$OUT/$name.log" | cut -c1-90)")")
  return $rc
}

# The CUDA objects older than the newest header: Meson does not track the
# headers of CUDA sources here (the wide kernels are a library of their own,
# built for sm_90a too).
remove_stale_cuda_objects() {
  local newest
  newest=$(find src include -name '*.h' -o -name '*.cuh' | xargs ls -t | head -n 1)
  find "$BUILD"/liblutmm.a.p "$BUILD"/src/cuda/liblutmm_wide.a.p -name '*.cu.o' ! -newer "$newest" -delete 2>/dev/null
  return 0
}

CHECK_TARGETS="liblutmm.a tests/cuda/test_cuda_format tests/cuda/test_cuda_gemm tests/cuda/test_cuda_graph tests/cuda/test_cuda_chain
  tests/cuda/cuda_fuzz tests/cuda/test_mma_numerics fuzz/replay_gemm_cuda tools/lutmm"

build() {
  command -v nvidia-smi >/dev/null && nvidia-smi -L
  command -v meson >/dev/null || type meson >/dev/null 2>&1 || { echo "meson missing"; return 1; }
  # werror off: another compiler version may warn in code this check is not
  # about; the CUDA sources keep -Werror=all-warnings from src/cuda/meson.build.
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" -Dcuda=enabled -Dopenblas=disabled -Dwerror=false || return 1
  fi
  remove_stale_cuda_objects
  # shellcheck disable=SC2086
  ninja -C "$BUILD" ${CHECK_TARGETS% tools/lutmm} || return 1
  ninja -C "$BUILD" tools/lutmm || echo "tools/lutmm did not build: no benchmark"
}

# pack FILE: the build's programs and what they need on a machine that has
# the CUDA driver, runtime and cuBLAS but none of this build's other libraries.
pack() {
  local file=$1 stage lib
  stage=$(mktemp -d) || return 1
  build || return 1
  (cd "$BUILD" && cp --parents ${CHECK_TARGETS#liblutmm.a } "$stage"/ &&
    find . -name '*_f16.cu.o' -exec cp --parents {} "$stage"/ \;) || return 1
  meson introspect --tests "$BUILD" | python3 -c '
import json, os, sys
build = os.path.realpath(sys.argv[1])
for test in json.load(sys.stdin):
    if "lutmm:cuda" in test["suite"]:
        env = ";".join(k + "=" + v for k, v in test["env"].items()) or "-"
        cmd = [os.path.relpath(c, build) if c.startswith(build + "/") else c for c in test["cmd"]]
        print(test["name"], test["timeout"], env, " ".join(cmd), sep="\t")' "$BUILD" >"$stage/cuda-tests.tsv" || return 1
  mkdir -p "$stage/lib"
  for lib in $( (cd "$BUILD" && ldd ${CHECK_TARGETS#liblutmm.a }) | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcublas|libcublasLt)\.so'); do
    cp -L "$lib" "$stage/lib/"
  done
  # One stream with a window larger than a program: the programs share one
  # fatbinary, so each copy after the first costs almost nothing.
  tar -C "$stage" -cf - . | xz -T1 --lzma2=preset=6,dict=192MiB >"$file" || return 1
  rm -rf "$stage"
  ls -l "$file"
}

# unpack FILE: a pack into $BUILD, its libraries found first.
unpack() {
  nvidia-smi -L
  rm -rf "$BUILD" && mkdir -p "$BUILD" && xz -dc "$1" | tar -C "$BUILD" -xf - || return 1
  export LD_LIBRARY_PATH="$PWD/$BUILD/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  ! ldd "$BUILD/tools/lutmm" "$BUILD/tests/cuda/cuda_fuzz" | grep 'not found'
}

# A pack's cuda suite: the tests Meson lists, run as Meson runs them.
suite_from_list() {
  local name timeout env cmd rc passed=0 failed=0 skipped=0
  while IFS=$'\t' read -r name timeout env cmd; do
    # shellcheck disable=SC2086
    (cd "$BUILD" && if [ "$env" = - ]; then timeout "$timeout" $cmd; else env ${env//;/ } timeout "$timeout" $cmd; fi) \
      >"$OUT/suite-$name.log" 2>&1
    rc=$?
    case $rc in
      0) passed=$((passed + 1)); echo "ok   $name" ;;
      77) skipped=$((skipped + 1)); echo "SKIP $name" ;;
      *) failed=$((failed + 1)); echo "FAIL $name ($rc)"; tail -n 30 "$OUT/suite-$name.log" ;;
    esac
  done <"$BUILD/cuda-tests.tsv"
  echo "cuda suite: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# The cuda suite, then the gemm_cuda corpus (the fuzz-regression suite's
# GPU part, which a machine without a GPU skips).
suite() {
  local rc=0
  if [ -f "$BUILD/cuda-tests.tsv" ]; then suite_from_list || rc=1
  else meson test -C "$BUILD" --suite cuda --no-rebuild --print-errorlogs || rc=1; fi
  "$BUILD/fuzz/replay_gemm_cuda" fuzz/corpus/gemm_cuda || rc=1
  return $rc
}

fuzz() { "$BUILD/tests/cuda/cuda_fuzz" --seconds "$FUZZ_SECONDS" --seed "$(date +%s)"; }

# The shared fuzz runner, when it has landed (tools/cli_fuzz.c).
cli_fuzz() {
  if grep -q "not available in this build" tools/cli_fuzz.c; then echo "lutmm fuzz not available: skipped"; return 0; fi
  "$BUILD/tools/lutmm" fuzz --backend cuda --mode both --seconds 60
}

memcheck() {
  compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/cuda/cuda_fuzz" --cases 120 --seed 9 &&
    compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/cuda/test_cuda_format" &&
    compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/cuda/test_cuda_graph" &&
    compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/cuda/test_cuda_chain"
}

# racecheck (also with a 4 KiB lent workspace: one block per tile, so the
# wide kernel's blocks reuse their stages, and on the column-stream
# kernel's shapes: the warps' sums change hands by mbarriers at each column
# part's end), then synccheck (barrier use, mbarriers among it, on the
# shapes of all kernels).
racecheck() {
  compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 3 "$BUILD/tests/cuda/cuda_fuzz" \
    --cases 24 --seed 10 &&
    compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 3 "$BUILD/tests/cuda/cuda_fuzz" \
      --cases 16 --seed 10 --workspace 4096 &&
    compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 3 "$BUILD/tests/cuda/cuda_fuzz" \
      --cases 16 --seed 11 --shapes column &&
    compute-sanitizer --tool synccheck --error-exitcode 3 "$BUILD/tests/cuda/cuda_fuzz" --cases 24 --seed 12
}

# Tensor-core instructions in the kernels' SASS: mma.sync (HMMA) in the tiled
# and skinny kernels, warpgroup MMA (HGMMA) in the wide kernel's sm_90a code.
hmma() {
  local obj count skinny wide
  obj=$(find "$BUILD" -name '*gemm_f16.cu.o' | head -n 1)
  count=$(cuobjdump -sass "$obj" | grep -c HMMA)
  echo "HMMA instructions in $obj: $count"
  obj=$(find "$BUILD" -name '*skinny_f16.cu.o' | head -n 1)
  skinny=$(cuobjdump -sass "$obj" | grep -c HMMA)
  echo "HMMA instructions in $obj: $skinny"
  obj=$(find "$BUILD" -name '*wide_f16.cu.o' | head -n 1)
  wide=$(cuobjdump -sass "$obj" | grep -c HGMMA)
  echo "HGMMA instructions in $obj: $wide"
  [ "$count" -gt 0 ] && [ "$skinny" -gt 0 ] && [ "$wide" -gt 0 ]
}

# ncu_one NAME M REGEX: one Nsight Compute report of the first
# kernel whose demangled name matches REGEX (template arguments included)
# after 20 launches of the NF4 benchmark at that M (its first point: group
# 128, fp16) on 8192x28672; keeps the details page, the per-SASS counts
# and stall samples, and where the instructions go (tools/ncu_mix.py).
ncu_one() {
  local name=$1 m=$2 regex=$3 shape=${4:-8192x28672}
  ncu --kernel-name-base demangled --kernel-name "regex:$regex" --launch-skip 20 --launch-count 1 \
    --set full -o "$OUT/$name" -f "$PWD/$BUILD/tools/lutmm" bench --backend cuda --bits 4 --shape "$shape" \
    --m "$m" --reps 30 >/dev/null || return 1
  ncu --import "$OUT/$name.ncu-rep" --page details >"$OUT/$name.txt" || return 1
  ncu --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass >"$OUT/$name.csv" || return 1
  rm -f "$OUT/$name.ncu-rep"
  python3 tools/ncu_mix.py "$OUT/$name.csv" >"$OUT/$name-mix.txt"
}

# The kernel each band of M runs on the large shape, whichever the planner
# gives it on this device: at M = 1 and 4 the column-stream kernel, the
# skinny kernel at M = 8, 16 and 32, the wide kernel at M = 256. Then
# 8192x8192 at M = 1 and 8 (ncu-8192x8192-mM): a mid shape, where a warp
# runs few atoms and its set-up weighs most.
profile() {
  local rc=0 m gemm='(column|skinny|wide)_kernel<__half'
  for m in 1 4 8 16 32 256; do ncu_one "ncu-m$m" "$m" "$gemm" || rc=1; done
  for m in 1 8; do ncu_one "ncu-8192x8192-m$m" "$m" "$gemm" 8192x8192 || rc=1; done
  cut_launches || rc=1
  return $rc
}

# How a cut launch's time splits between the wide kernel and the fixup that
# adds its partials: durations (clocks left to the device; Nsight Compute
# still flushes the caches before each kernel, so the fixup reads its
# partials from DRAM) and DRAM and L2 bytes of three calls' launches on the
# shapes whose M = 128 tiles are cut, into $OUT/ncu-cut-launches.txt (as in
# docs/data/ncu-cuda-h200-2026-11-29-cut-launches.txt).
cut_launches() {
  local shape
  for shape in 4096x4096 8192x1024 8192x8192 14336x4096; do
    echo "== $shape M = 128"
    ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:(wide_kernel<__half|wide_fixup_kernel)" \
      --launch-skip 40 --launch-count 6 \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
      "$PWD/$BUILD/tools/lutmm" bench --backend cuda --bits 4 --shape "$shape" --m 128 --reps 30 |
      grep -E "wide_(fixup_)?kernel|gpu__time_duration|dram__|lts__" || return 1
  done >"$OUT/ncu-cut-launches.txt"
}

# With --csv, also where the run stands against the GPU targets
# (tools/bench_targets.py) in $OUT/targets.txt.
bench() {
  # shellcheck disable=SC2086
  "$BUILD/tools/lutmm" bench --backend cuda $BENCH_ARGS | tee "$OUT/bench.txt" || return 1
  if [[ " $BENCH_ARGS " == *" --csv "* ]]; then python3 tools/bench_targets.py "$OUT/bench.txt" | tee "$OUT/targets.txt"; fi
}

# Every code width (bench --shape alone runs 2..4 bits); one device line and
# one header, as tools/plot_bench.py reads them.
bench_csv() {
  local bits
  for bits in 1 2 3 4 5 6 7 8; do
    "$BUILD/tools/lutmm" bench --backend cuda --csv --shape "$CSV_SHAPE" --bits "$bits" || exit 1
  done | awk '/^# device,/ { if (device++) next } /^k,/ { if (header++) next } { print }' >"$OUT/bench-$CSV_SHAPE.csv"
}

# One benchmark set as CSV rows prefixed by `variant` (a or b, then the
# round): b runs with $AB_ENV in its environment.
ab_run() {
  local variant=$1 round=$2 args=$3
  # shellcheck disable=SC2086
  if [ "$variant" = b ]; then env "$AB_ENV" "$BUILD/tools/lutmm" bench --backend cuda --csv $args
  else "$BUILD/tools/lutmm" bench --backend cuda --csv $args; fi |
    awk -v v="$variant$round" '/^# device,/ { print; next } /^k,/ { print "variant," $0; next } { print v "," $0 }'
}

ab() {
  local round set sets order variant
  IFS=';' read -r -a sets <<<"$AB_SETS"
  for round in $(seq 1 "$AB_ROUNDS"); do
    order="a b"
    [ $((round % 2)) -eq 0 ] && order="b a"
    for set in "${sets[@]}"; do
      for variant in $order; do ab_run "$variant" "$round" "$set" || return 1; done
    done
  done | awk '/^# device,/ { if (device++) next } /^variant,/ { if (header++) next } { print }' >"$OUT/ab.csv"
  # mean µs of each point per variant, and b / a (columns: variant,k,n,m,bits,group,dtype,lutmm_us,...)
  awk -F, '!/^#/ && !/^variant,/ {
      key = $2 "x" $3 " M=" $4 " " $5 "-bit g" $6 " " $7; v = substr($1, 1, 1)
      sum[key, v] += $8; count[key, v]++; if (!(key in seen)) { seen[key] = 1; keys[++n] = key } }
    END {
      for (i = 1; i <= n; i++) {
        k = keys[i]; a = sum[k, "a"] / count[k, "a"]; b = sum[k, "b"] / count[k, "b"]
        printf "%-40s a %8.2f us  b %8.2f us  b/a %.3f\n", k, a, b, b / a; ratio[i] = b / a
      }
      for (i = 2; i <= n; i++) for (j = i; j > 1 && ratio[j - 1] > ratio[j]; j--) { t = ratio[j]; ratio[j] = ratio[j - 1]; ratio[j - 1] = t }
      printf "%d points, b/a median %.3f, min %.3f, max %.3f\n", n, ratio[int((n + 1) / 2)], ratio[1], ratio[n]
    }' "$OUT/ab.csv" | tee "$OUT/ab-summary.txt"
}

# wanted NAME: whether --steps lists NAME.
wanted() { [[ ",$STEPS," == *",$1,"* ]]; }

if [ -n "$PACK" ]; then
  pack "$PACK"
  exit
fi
if [ -n "$PREBUILT" ]; then build_step="unpack $PREBUILT"; else build_step=build; fi
# shellcheck disable=SC2086
if step build $build_step; then
  wanted suite && step suite suite
  wanted fuzz && step fuzz fuzz
  wanted cli-fuzz && step cli-fuzz cli_fuzz
  wanted memcheck && step memcheck memcheck
  wanted racecheck && step racecheck racecheck
  wanted hmma && step hmma hmma
  [ "$PROFILE" -eq 1 ] && [ -x "$BUILD/tools/lutmm" ] && step profile profile
  [ "$RUN_BENCH" -eq 1 ] && [ -x "$BUILD/tools/lutmm" ] && step bench bench
  [ -n "$CSV_SHAPE" ] && [ -x "$BUILD/tools/lutmm" ] && step bench-csv bench_csv
  [ -n "$AB_ENV" ] && [ -n "$AB_SETS" ] && [ -x "$BUILD/tools/lutmm" ] && step ab ab
fi

echo
echo "== gpu-check summary ($(date -u +%FT%TZ), logs in $OUT)"
printf '%s\n' "${SUMMARY[@]}"
