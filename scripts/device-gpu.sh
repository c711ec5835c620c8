#!/usr/bin/env bash
# device-gpu.sh builds libcuzk.so with nvcc on a GPU machine and runs the gpu
# package's tests and benchmarks from a test binary built elsewhere, printing
# a short table last. Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu
#   (GPU machine)    scripts/device-gpu.sh [.gpu/gpu.test]
#
# Environment: OUT (log folder, default /tmp/cuzk-device), CUZK_ARCH (nvcc
# -gencode flags, default sm_90), RUN (test regexp, default .; "none" skips
# tests), BENCH (benchmark regexp, default .; "none" skips), BENCHTIME
# (default 3x), CUZK_BENCH_MAXLOG (bounds benchmark sizes), SKIP_BUILD=1
# (use an existing csrc/build/libcuzk.so).
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
  if ! make -C "$ROOT/csrc" -j4 ARCH="$ARCH" >"$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"
    echo "BUILD FAILED"
    exit 1
  fi
  echo "built libcuzk.so in $(( $(date +%s) - t0 )) s"
fi
export CUZK_LIB="$ROOT/csrc/build/libcuzk.so"
cd "$ROOT/gpu" || exit 1

status=0
if [ "${RUN:-.}" != none ]; then
  "$BIN" -test.v -test.run "${RUN:-.}" -test.timeout 30m >"$OUT/test.log" 2>&1
  status=$?
  grep -E -- "^(--- FAIL|FAIL|panic)|mismatch|seed" "$OUT/test.log" | head -40
  echo "tests: $(grep -c -- '--- PASS' "$OUT/test.log") passed, $(grep -c -- '--- FAIL' "$OUT/test.log") failed, $(grep -c -- '--- SKIP' "$OUT/test.log") skipped (exit $status)"
fi

if [ "${BENCH:-.}" != none ]; then
  "$BIN" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime "${BENCHTIME:-3x}" -test.timeout 30m >"$OUT/bench.log" 2>&1 || status=1
  grep -E "FAIL|panic|Error" "$OUT/bench.log" | head -20
  echo
  echo "| benchmark | ms/op |"
  echo "| --- | ---: |"
  awk '/^Benchmark/ && /ns\/op/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") printf "| %s | %.2f |\n", $1, $i / 1e6 }' "$OUT/bench.log"
fi
exit $status
