#!/usr/bin/env bash
# device-prove.sh runs the GPU prover's checks and benchmarks on a GPU machine: it
# builds libcuzk.so, runs the prover tests of ./gpu (GPU vs CPU proofs, engine interlock), the
# per-partition benchmark with its device-time breakdown, and `cuzk bench` over a sweep of GPU and
# worker counts, printing a short summary last. The tests run against the test build of the
# library (make TEST_KERNELS=1, csrc/build/test/libcuzk.so), the benchmarks against the production
# build (csrc/build/libcuzk.so). Run from the repository root:
#
#   (build machine)  CGO_ENABLED=1 go test -c -o .gpu/gpu.test ./gpu && go build -o .gpu/cuzk ./cmd/cuzk
#   (GPU machine)    scripts/device-prove.sh
#
# Environment: OUT (log folder, default /tmp/cuzk-device); STEPS (default "test bench cli"; add
# "partition" for the full PoRep-shaped partition with random parameters); CLI_ARGS (circuit and
# job flags for cuzk bench, default the PoRep-shaped 2^24 size, 3 jobs × 10 partitions); GPUS and
# WORKERS (cuzk bench's lists, default 1 and "2,1": one setup, one run per combination);
# SKIP_BUILD=1 uses the existing csrc/build/test/libcuzk.so and csrc/build/libcuzk.so.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/cuzk-device}
STEPS=${STEPS:-"test bench cli"}
CLI_ARGS=${CLI_ARGS:-"--circuit porep --porep-size 2^24 --jobs 3 --partitions 10"}
GPUS=${GPUS:-1}
WORKERS=${WORKERS:-2,1}
mkdir -p "$OUT"
has() { [[ " $STEPS " == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
nproc
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  t0=$(date +%s)
  ARCH="-gencode arch=compute_90,code=sm_90"
  test_pid=
  if has test; then
    make -C "$ROOT/csrc" -j8 TEST_KERNELS=1 ARCH="$ARCH" >"$OUT/build-test.log" 2>&1 &
    test_pid=$!
  fi
  make -C "$ROOT/csrc" -j8 TEST_KERNELS=0 ARCH="$ARCH" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  if [ -n "$test_pid" ]; then wait "$test_pid" || { tail -30 "$OUT/build-test.log"; exit 1; }; fi
  echo "built libcuzk.so in $(( $(date +%s) - t0 )) s"
fi
export CUZK_LIB="$ROOT/csrc/build/libcuzk.so"
status=0
cd "$ROOT/gpu" || exit 1
if has test; then
  CUZK_LIB="$ROOT/csrc/build/test/libcuzk.so" "$ROOT/.gpu/gpu.test" -test.v -test.run 'TestProver' -test.timeout 20m >"$OUT/prove-test.log" 2>&1 || status=1
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
  /usr/bin/time -v "$ROOT/.gpu/cuzk" bench --device gpu --gpus "$GPUS" --workers "$WORKERS" $CLI_ARGS --out "$OUT/bench" >"$OUT/bench.log" 2>"$OUT/bench.time" || status=1
  echo "== cuzk bench --gpus $GPUS --workers $WORKERS $CLI_ARGS"
  grep -E "circuit|== engine|throughput|proofs \(|peak host RSS|utilization|gaps|gap causes|overlapping|^\s+(synthesis|queue|preparation|lock wait|device|finalize) " "$OUT/bench.log"
  grep -E "Maximum resident" "$OUT/bench.time"
fi
exit $status
