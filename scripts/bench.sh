#!/usr/bin/env bash
# Builds rocelab (Release, as scripts/build-release.sh) and runs the benchmarks: the
# event-queue micro-benchmark and the macro scenario (8x8 leaf-spine, 16 hosts/leaf,
# 100 Gb/s, 1 us, 12 MB, ECMP + DCQCN, WebSearch at 50% load, 10 ms simulated). Extra
# arguments go to bench_macro.
set -euo pipefail
cd "$(dirname "$0")/.."
# The same (profile-guided) build as the runs, so the numbers are the users'.
scripts/build-release.sh bench_event_queue bench_macro
build/release/bench_event_queue --benchmark_min_time=0.5
build/release/bench_macro "$@"
