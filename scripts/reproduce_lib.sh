# Sourced by the reproduce_*.sh scripts: picks the binary their sweeps run (R).
#   ROCELAB_BIN=path   run that binary, built before (pinned, e.g. for a reproduction that
#                      spans several sessions: its runs all name its commit) instead of
#                      building build/release/rocelab from this tree.
# Building from a tree whose src/ or CMakeLists.txt differ from HEAD is refused: the runs
# would name a commit whose code they did not run (the version is stamped from HEAD).
repro_binary() {
  if [ -n "${ROCELAB_BIN:-}" ]; then
    R=$ROCELAB_BIN
    return
  fi
  if ! git diff --quiet HEAD -- src CMakeLists.txt; then
    echo "$0: src/ or CMakeLists.txt has uncommitted changes: commit them (the results name" \
         "the commit) or set ROCELAB_BIN" >&2
    exit 2
  fi
  scripts/build-release.sh >/dev/null
  R=build/release/rocelab
}
