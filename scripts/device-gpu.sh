#!/usr/bin/env bash
# device-gpu.sh builds libcuzk.so with nvcc on a GPU machine and runs the gpu
# package's tests and benchmarks from a test binary built elsewhere, printing
# a short table last. The tests run against the test build of the library
# (make TEST_KERNELS=1, csrc/build/test/libcuzk.so, which adds the test entry
# point cuzk_debug_field), the benchmarks against the production build
# (csrc/build/libcuzk.so); both are built at once. Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu
#   (GPU machine)    scripts/device-gpu.sh [.gpu/gpu.test]
#
# Environment: OUT (log folder, default /tmp/cuzk-device), CUZK_ARCH (nvcc
# -gencode flags, default sm_90), RUN (test regexp, default .; "none" skips
# tests), BENCH (benchmark regexp, default .; "none" skips), BENCHTIME
# (default 3x), CUZK_BENCH_MAXLOG (bounds benchmark sizes), SKIP_BUILD=1
# (use the existing csrc/build/test/libcuzk.so and csrc/build/libcuzk.so).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/.gpu/gpu.test}")
OUT=${OUT:-/tmp/cuzk-device}
mkdir -p "$OUT"
ARCH=${CUZK_ARCH:-"-gencode arch=compute_90,code=sm_90"}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
nvcc --version | tail -2

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  t0=$(date +%s)
  pids=()
  if [ "${RUN:-.}" != none ]; then
    make -C "$ROOT/csrc" -j4 TEST_KERNELS=1 ARCH="$ARCH" >"$OUT/build-test.log" 2>&1 &
    pids+=($!)
  fi
  if [ "${BENCH:-.}" != none ]; then
    make -C "$ROOT/csrc" -j4 TEST_KERNELS=0 ARCH="$ARCH" >"$OUT/build.log" 2>&1 &
    pids+=($!)
  fi
  failed=0
  for p in ${pids[@]+"${pids[@]}"}; do wait "$p" || failed=1; done
  if [ $failed != 0 ]; then
    tail -40 "$OUT"/build*.log
    echo "BUILD FAILED"
    exit 1
  fi
  echo "built libcuzk.so in $(( $(date +%s) - t0 )) s"
fi
TEST_LIB="$ROOT/csrc/build/test/libcuzk.so"
BENCH_LIB="$ROOT/csrc/build/libcuzk.so"
cd "$ROOT/gpu" || exit 1

status=0
if [ "${RUN:-.}" != none ]; then
  CUZK_LIB="$TEST_LIB" "$BIN" -test.v -test.run "${RUN:-.}" -test.timeout 30m >"$OUT/test.log" 2>&1
  status=$?
  grep -E -- "^(--- FAIL|FAIL|panic)|mismatch|seed" "$OUT/test.log" | head -40
  echo "tests: $(grep -c -- '--- PASS' "$OUT/test.log") passed, $(grep -c -- '--- FAIL' "$OUT/test.log") failed, $(grep -c -- '--- SKIP' "$OUT/test.log") skipped (exit $status)"
fi

if [ "${BENCH:-.}" != none ]; then
  CUZK_LIB="$BENCH_LIB" "$BIN" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime "${BENCHTIME:-3x}" -test.timeout 30m >"$OUT/bench.log" 2>&1 || status=1
  grep -E "FAIL|panic|Error" "$OUT/bench.log" | head -20
  echo
  echo "| benchmark | ms/op |"
  echo "| --- | ---: |"
  awk '/^Benchmark/ && /ns\/op/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") printf "| %s | %.2f |\n", $1, $i / 1e6 }' "$OUT/bench.log"
fi
exit $status
