#!/usr/bin/env bash
# device-compare.sh checks a change on a GPU machine and times it against a baseline in one run:
# it builds libcuzk.so for the current tree (with the test kernels) and, if its sources differ,
# for the baseline; runs the gpu package's tests; then runs BenchmarkProvePartitionGPU with the
# baseline's and the current test binaries alternately, each against its own library, and prints
# a side-by-side table of device time per partition last. Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu          # current tree
#                    git worktree add /tmp/base <commit> && (cd /tmp/base &&
#                      CGO_ENABLED=1 go test -c -o $OLDPWD/.gpu/gpu-before.test ./gpu)
#                    git archive <commit> csrc | tar -x -C .gpu/before          # baseline sources
#   (GPU machine)    scripts/device-compare.sh
#
# Environment: OUT (log folder, default /tmp/cuzk-device); BENCH (benchmark regexp, default
# BenchmarkProvePartitionGPU/porep-2^24); BENCHTIME (default 5x); ROUNDS (alternations, default 1);
# RUN (test regexp, default .; "none" skips the tests); CUZK_ARCH (nvcc -gencode flags, default
# sm_90).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/cuzk-device}
BENCH=${BENCH:-'BenchmarkProvePartitionGPU/porep-2\^24'}
BENCHTIME=${BENCHTIME:-5x}
ROUNDS=${ROUNDS:-1}
ARCH=${CUZK_ARCH:-"-gencode arch=compute_90,code=sm_90"}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"

build() { # build SRC_DIR BUILD_DIR
  make -C "$1" -j8 ARCH="$ARCH" TEST_KERNELS=1 BUILD="$2" >"$OUT/build-$(basename "$2").log" 2>&1 ||
    { tail -30 "$OUT/build-$(basename "$2").log"; echo "BUILD FAILED: $1"; exit 1; }
}
t0=$(date +%s)
build "$ROOT/csrc" "$ROOT/.gpu/lib-after" &
if diff -rq "$ROOT/csrc" "$ROOT/.gpu/before/csrc" >/dev/null 2>&1; then
  wait || exit 1
  BEFORE_LIB="$ROOT/.gpu/lib-after/libcuzk.so"
  echo "baseline csrc identical: one library"
else
  build "$ROOT/.gpu/before/csrc" "$ROOT/.gpu/lib-before" &
  wait || exit 1
  BEFORE_LIB="$ROOT/.gpu/lib-before/libcuzk.so"
fi
AFTER_LIB="$ROOT/.gpu/lib-after/libcuzk.so"
[ -f "$AFTER_LIB" ] && [ -f "$BEFORE_LIB" ] || { echo "BUILD FAILED (no library)"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"

status=0
cd "$ROOT/gpu" || exit 1
if [ "${RUN:-.}" != none ]; then
  t0=$(date +%s)
  CUZK_LIB="$AFTER_LIB" "$ROOT/.gpu/gpu.test" -test.v -test.run "${RUN:-.}" -test.timeout 20m >"$OUT/test.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  grep -E -- "^(\s*--- FAIL|FAIL|panic)|mismatch" "$OUT/test.log" | head -30
  echo "tests: $(grep -c -- '--- PASS' "$OUT/test.log") passed, $(grep -c -- '--- FAIL' "$OUT/test.log") failed, $(grep -c -- '--- SKIP' "$OUT/test.log") skipped (exit $rc, $(( $(date +%s) - t0 )) s)"
fi

for r in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    if [ $side = before ]; then bin="$ROOT/.gpu/gpu-before.test"; lib="$BEFORE_LIB"; else bin="$ROOT/.gpu/gpu.test"; lib="$AFTER_LIB"; fi
    CUZK_LIB="$lib" "$bin" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" -test.timeout 20m \
      >"$OUT/bench-$side-$r.log" 2>&1 || { status=1; grep -E "FAIL|panic" "$OUT/bench-$side-$r.log" | head; }
  done
done

echo
echo "| benchmark | side | round | ns/op (ms) | device-ms | upload-ms | ntt-ms | msmH-ms |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for f in "$OUT"/bench-*.log; do
  side=$(basename "$f" .log | cut -d- -f2); r=$(basename "$f" .log | cut -d- -f3)
  awk -v side="$side" -v r="$r" '/^Benchmark/ && /ns\/op/ {
      m["ns/op"]=""; for (i = 2; i <= NF; i++) m[$(i)] = $(i-1);
      printf "| %s | %s | %s | %.1f | %s | %s | %s | %s |\n", $1, side, r, m["ns/op"]/1e6, m["device-ms"], m["upload-ms"], m["ntt-ms"], m["msmH-ms"] }' "$f"
done
exit $status
