#!/usr/bin/env bash
# device-tune.sh builds libcuzk.so once per compile-time variant and runs the same gpu
# benchmarks against each, so that variants are compared side by side in one run on one
# GPU (docs/gpu-kernels.md records the outcomes). Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu
#   (GPU machine)    BENCH='NTT/2\^27/fwd' scripts/device-tune.sh "" "-DCUZK_NTT_BLOCKS=2"
#
# Each argument is one variant's extra nvcc flags ("" is the default build), for example a
# tunable of csrc/src/*.cuh or csrc/src/staging.cu; every variant is a production build
# (TEST_KERNELS=0: benchmarks only, no test entry point). Environment:
# OUT (log folder, default /tmp/cuzk-device), BENCH (benchmark regexp, required),
# BENCHTIME (default 5x), CUZK_ARCH (default sm_90).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${BIN:-$ROOT/.gpu/gpu.test}")
OUT=${OUT:-/tmp/cuzk-device}
ARCH=${CUZK_ARCH:-"-gencode arch=compute_90,code=sm_90"}
mkdir -p "$OUT"
[ $# -gt 0 ] || { echo "usage: BENCH=regexp $0 FLAGS..." >&2; exit 2; }

# Build every variant in parallel, each in its own folder.
i=0
for flags in "$@"; do
  make -C "$ROOT/csrc" -j4 TEST_KERNELS=0 BUILD="$OUT/build$i" ARCH="$ARCH" EXTRA="$flags" >"$OUT/build$i.log" 2>&1 &
  i=$((i + 1))
done
wait
cd "$ROOT/gpu" || exit 1
i=0
status=0
for flags in "$@"; do
  if [ ! -f "$OUT/build$i/libcuzk.so" ]; then
    tail -20 "$OUT/build$i.log"
    echo "variant $i ($flags): BUILD FAILED"
    status=1
  else
    CUZK_LIB="$OUT/build$i/libcuzk.so" "$BIN" -test.run '^$' -test.bench "$BENCH" -test.benchtime "${BENCHTIME:-5x}" \
      -test.timeout 20m >"$OUT/bench$i.log" 2>&1 || status=1
  fi
  i=$((i + 1))
done
echo "| benchmark | variant | ms/op |"
echo "| --- | --- | ---: |"
i=0
for flags in "$@"; do
  awk -v v="${flags:-default}" '/^Benchmark/ && /ns\/op/ { for (j = 1; j <= NF; j++) if ($(j+1) == "ns/op") printf "| %s | %s | %.2f |\n", $1, v, $j / 1e6 }' "$OUT/bench$i.log" 2>/dev/null
  i=$((i + 1))
done | sort
exit $status
