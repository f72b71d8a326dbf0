#!/usr/bin/env bash
# Installs what the runs and plots need and builds the Release binary
# build/release/rocelab: the common first step of run.sh and the reproduce_*.sh scripts.
# With GCC the binary is profile-guided (CMakeLists.txt, ROCELAB_PGO): an instrumented
# build runs the default scenario under three schemes, and the Release build uses that
# profile. The training reruns only when a source changed since the last one.
# ROCELAB_PGO=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --plots
jobs=$(nproc)
pgo=(-DROCELAB_PGO=)
if [ "${ROCELAB_PGO:-1}" != 0 ] && c++ --version 2>/dev/null | grep -qE '^(g\+\+|c\+\+) \(.*\) [0-9]'; then
  profile=$PWD/build/pgo-profile
  stamp=$profile/trained
  if [ ! -f "$stamp" ] ||
     [ -n "$(find src scenarios/default.yaml CMakeLists.txt -newer "$stamp" -print -quit)" ]; then
    cmake -S . -B build/pgo-gen -G Ninja -DCMAKE_BUILD_TYPE=Release -DROCELAB_PGO=generate \
      -DROCELAB_PGO_DIR="$profile" -DROCELAB_BUILD_TESTS=OFF -DROCELAB_BUILD_BENCH=OFF >/dev/null
    ninja -C build/pgo-gen -j "$jobs" rocelab
    rm -rf "$profile"
    build/pgo-gen/rocelab compare scenarios/default.yaml --schemes flb+rc,ecmp+dcqcn,letflow+dcqcn \
      --out build/pgo-gen/training >/dev/null ||
      echo "warning: the profile's training run failed; the build goes on with what it wrote" >&2
    touch "$stamp"
    # Objects built from an older profile are rebuilt from this one.
    if [ -f build/release/build.ninja ]; then ninja -C build/release -t clean >/dev/null; fi
  fi
  pgo=(-DROCELAB_PGO=use -DROCELAB_PGO_DIR="$profile")
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release "${pgo[@]}" >/dev/null
ninja -C build/release -j "$jobs" rocelab "$@"
