#!/usr/bin/env bash
# Installs what the runs and plots need and builds the Release binary
# build/release/rocelab: the common first step of run.sh and the reproduce_*.sh scripts.
# With GCC the binary is profile-guided (CMakeLists.txt, ROCELAB_PGO): an instrumented
# build runs the default scenario under three schemes and under the conweave-ns3 and
# hpcc-ns3 presets, and the Release build uses that profile. The training reruns only
# when something it depends on changed since the last one. ROCELAB_PGO=0 skips it; so
# does a failed training run (with a warning).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --plots
jobs=$(nproc)

# The compiler CMake will use: the one build/release was configured with, else $CXX or c++.
compiler=${CXX:-c++}
if [ -f build/release/CMakeCache.txt ]; then
  cached=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/release/CMakeCache.txt)
  compiler=${cached:-$compiler}
fi
is_gcc() { "$1" -v 2>&1 | grep -q '^gcc version'; }

pgo=(-DROCELAB_PGO=)
if [ "${ROCELAB_PGO:-1}" != 0 ] && is_gcc "$compiler"; then
  profile=$PWD/build/pgo-profile
  stamp=$profile/trained
  if [ ! -f "$stamp" ] || [ -n "$(find src scenarios/default.yaml workloads CMakeLists.txt \
        scripts/build-release.sh -newer "$stamp" -print -quit)" ]; then
    # Marked before the build: a source edited while it runs counts as newer.
    mkdir -p build
    started=build/pgo-training-started
    touch "$started"
    CXX=$compiler cmake -S . -B build/pgo-gen -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DROCELAB_PGO=generate -DROCELAB_PGO_DIR="$profile" -DROCELAB_BUILD_TESTS=OFF \
      -DROCELAB_BUILD_BENCH=OFF >/dev/null
    ninja -C build/pgo-gen -j "$jobs" rocelab
    rm -rf "$profile"
    # The default scenario under three schemes, and under the two ns-3 presets (their
    # wire model, ECMP hash, PFC thresholds and DCQCN model), which the validation and
    # reproduction runs use: paths a training never takes are laid out as cold code. The
    # hpcc-ns3 run keeps the preset's 32 MB buffer: with the scenario's 12 MB, ACKs sent
    # through PAUSEs fill a switch port's headroom and are dropped, as HPCC-ns3 drops them
    # (docs/validation.md), which ends the run with exit 3 and so would fail the training.
    trainer=build/pgo-gen/rocelab
    if $trainer compare scenarios/default.yaml --schemes flb+rc,ecmp+dcqcn,letflow+dcqcn \
        --out build/pgo-gen/training >/dev/null &&
      $trainer run scenarios/default.yaml --set preset=conweave-ns3 -q \
        --out build/pgo-gen/training/conweave-ns3 >/dev/null &&
      $trainer run scenarios/default.yaml --set preset=hpcc-ns3 --set switch.buffer=32MB -q \
        --out build/pgo-gen/training/hpcc-ns3 >/dev/null; then
      mkdir -p "$profile"
      mv "$started" "$stamp"
    else
      echo "warning: the profile's training run failed; building without a profile" >&2
      rm -rf "$profile" "$started"
    fi
    # Objects built from an older profile are rebuilt from this one.
    if [ -f build/release/build.ninja ]; then ninja -C build/release -t clean >/dev/null; fi
  fi
  if [ -f "$stamp" ]; then pgo=(-DROCELAB_PGO=use -DROCELAB_PGO_DIR="$profile"); fi
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release "${pgo[@]}" >/dev/null
ninja -C build/release -j "$jobs" rocelab "$@"
