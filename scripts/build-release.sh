#!/usr/bin/env bash
# Installs what the runs and plots need and builds the Release binary
# build/release/rocelab: the common first step of run.sh and the reproduce_*.sh scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --plots
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/release -j "$(nproc)" rocelab "$@"
