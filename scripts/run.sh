#!/usr/bin/env bash
# Builds rocelab (Release) and runs the default scenario under five scheme combinations,
# printing the side-by-side table. Extra arguments go to `rocelab compare`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/release -j "$(nproc)" rocelab
exec build/release/rocelab compare scenarios/default.yaml \
  --schemes flb+rc,ecmp+dcqcn,letflow+dcqcn,ecmp+none,rps+dcqcn --out runs/default "$@"
