#!/usr/bin/env bash
# Builds rocelab (Release) and runs the default scenario: the macro benchmark
# (8x8 leaf-spine, 16 hosts/leaf, 100 Gb/s, ECMP + DCQCN, WebSearch at 50% load).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/release -j "$(nproc)"
exec build/release/bench_macro "$@"
