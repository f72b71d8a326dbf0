#!/usr/bin/env bash
# Builds rocelab (Release), runs the default scenario under five scheme combinations,
# prints the side-by-side table and draws its figures (runs/default/plots/). Extra
# arguments go to `rocelab compare`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-release.sh
status=0
build/release/rocelab compare scenarios/default.yaml \
  --schemes flb+rc,ecmp+dcqcn,letflow+dcqcn,ecmp+none,rps+dcqcn --out runs/default "$@" || status=$?
build/release/rocelab plot runs/default
exit $status
