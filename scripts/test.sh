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
