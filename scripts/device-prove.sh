#!/usr/bin/env bash
# device-prove.sh runs the GPU prover's checks and benchmarks on a GPU machine (issue 5): it
# builds libcuzk.so, runs the prover tests of ./gpu (GPU vs CPU proofs, engine interlock), the
# per-partition benchmark with its device-time breakdown, and `cuzk bench` with 2 and 1 workers,
# printing a short summary last. Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu && go build -o .gpu/cuzk ./cmd/cuzk
#   (GPU machine)    scripts/device-prove.sh
#
# Environment: OUT (log folder, default /tmp/cuzk-device); STEPS (default "test bench cli"; add
# "partition" for the full PoRep-shaped partition with random parameters, "multi" for cuzk bench
# on every GPU); CLI_ARGS (circuit flags for cuzk bench, default the PoRep-shaped 2^24 size);
# SKIP_BUILD=1 uses an existing csrc/build/libcuzk.so.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/cuzk-device}
STEPS=${STEPS:-"test bench cli"}
CLI_ARGS=${CLI_ARGS:-"--circuit porep --porep-size 2^24 --jobs 3 --partitions 4"}
mkdir -p "$OUT"
has() { [[ " $STEPS " == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
nproc
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  t0=$(date +%s)
  make -C "$ROOT/csrc" -j8 ARCH="-gencode arch=compute_90,code=sm_90" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "built libcuzk.so in $(( $(date +%s) - t0 )) s"
fi
export CUZK_LIB="$ROOT/csrc/build/libcuzk.so"
status=0
cd "$ROOT/gpu" || exit 1
if has test; then
  "$ROOT/.gpu/gpu.test" -test.v -test.run 'TestProver' -test.timeout 20m >"$OUT/prove-test.log" 2>&1 || status=1
  grep -E -- "^(\s*--- (PASS|FAIL)|FAIL|panic)|utilization" "$OUT/prove-test.log" | head -30
fi
if has bench; then
  "$ROOT/.gpu/gpu.test" -test.run '^$' -test.bench 'BenchmarkProvePartitionGPU' -test.benchtime 3x -test.v -test.timeout 20m >"$OUT/prove-bench.log" 2>&1 || status=1
  grep -E "constraints, domain|SRS upload|^Benchmark|FAIL|panic" "$OUT/prove-bench.log"
fi
if has partition; then
  CUZK_BENCH_PARTITION=1 "$ROOT/.gpu/gpu.test" -test.run '^$' -test.bench "BenchmarkProvePartitionGPU/porep-partition" -test.benchtime 2x -test.v -test.timeout 20m >"$OUT/partition-bench.log" 2>&1 || status=1
  grep -E "constraints, domain|SRS upload|^Benchmark|FAIL|panic|memory" "$OUT/partition-bench.log"
fi
cd "$ROOT" || exit 1
if has cli; then
  for w in 2 1; do
    /usr/bin/time -v "$ROOT/.gpu/cuzk" bench --device gpu --gpus 1 --workers "$w" $CLI_ARGS --out "$OUT/bench-w$w" >"$OUT/bench-w$w.log" 2>"$OUT/bench-w$w.time" || status=1
    echo "== cuzk bench, 1 GPU, $w workers"
    grep -E "circuit|throughput|proofs \(|peak host RSS|utilization|gaps|gap causes|^\s+(synthesis|queue|preparation|lock wait|device|finalize) " "$OUT/bench-w$w.log"
    grep -E "Maximum resident" "$OUT/bench-w$w.time"
  done
fi
if has multi; then
  "$ROOT/.gpu/cuzk" bench --device gpu --workers 2 $CLI_ARGS --out "$OUT/bench-multi" >"$OUT/bench-multi.log" 2>&1 || status=1
  echo "== cuzk bench, every GPU, 2 workers each"
  grep -E "engine|throughput|proofs \(|utilization|overlapping" "$OUT/bench-multi.log"
fi
exit $status
