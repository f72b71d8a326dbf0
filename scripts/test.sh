#!/usr/bin/env bash
# Builds rocelab twice (Release, and Debug with ASan+UBSan) and runs the whole test suite
# on both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/release -j "$jobs"
(cd build/release && ctest --output-on-failure -j "$jobs")

cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROCELAB_SANITIZE=ON \
  -DROCELAB_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="-O1" >/dev/null
ninja -C build/asan -j "$jobs"
(cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs")

# The scenario loader's libFuzzer target, when clang and its fuzzer runtime are present.
if command -v clang++ >/dev/null 2>&1 &&
   ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DROCELAB_FUZZ=ON \
    -DROCELAB_BUILD_TESTS=OFF -DROCELAB_BUILD_BENCH=OFF >/dev/null
  ninja -C build/fuzz -j "$jobs" scenario_fuzz
  corpus=$(mktemp -d)
  cp scenarios/*.yaml tests/scenarios/*.yaml tests/scenarios/bad/*.yaml "$corpus"/
  build/fuzz/scenario_fuzz -max_total_time=20 -rss_limit_mb=4096 -print_final_stats=1 "$corpus" \
    2>&1 | grep -E "^(Done|stat::number_of_executed_units)|ERROR|SUMMARY" || true
  status=${PIPESTATUS[0]}
  rm -rf "$corpus"
  if [ "$status" -ne 0 ]; then echo "scenario fuzzer found a failure" >&2; exit 1; fi
else
  echo "clang with libFuzzer not found: skipping the scenario fuzzer"
fi
