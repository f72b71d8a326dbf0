#!/usr/bin/env bash
# Two builds' bench_macro, run alternately (old, new, old, new...) so that the machine's
# drift hits both alike; prints each run's wall time and, per case, the means and the paired
# relative difference with its 95% interval.
#   scripts/bench_alternate.sh OLD/bench_macro NEW/bench_macro ROUNDS 'case args' ['case args'...]
#   scripts/bench_alternate.sh /work/base/build/release/bench_macro build/release/bench_macro 9 \
#       websearch-8x8 'conweave-128 --arrival-ms 2'
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
old=$1 new=$2 rounds=$3
shift 3
log=$(mktemp)
json=$(mktemp)
trap 'rm -f "$log" "$json"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for c in "$@"; do
    for side in old new; do
      bin=$old
      [ "$side" = new ] && bin=$new
      # shellcheck disable=SC2086 # the case's words are bench_macro's arguments
      "$bin" --case $c --json "$json" >/dev/null
      wall=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_s"])' "$json")
      printf '%s\t%s\t%s\t%s\n' "$r" "$c" "$side" "$wall" | tee -a "$log"
    done
  done
done
python3 - "$log" <<'EOF'
import statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    r, case, side, wall = line.rstrip("\n").split("\t")
    runs.setdefault(case, {}).setdefault(side, []).append(float(wall))
t975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
for case, sides in runs.items():
    old, new = sides["old"], sides["new"]
    rel = [(n - o) / o for o, n in zip(old, new)]
    half = t975.get(len(rel) - 1, 2.0) * st.stdev(rel) / len(rel) ** 0.5 if len(rel) > 1 else 0
    print(f"{case}: old mean {st.mean(old):.3f} s (min {min(old):.3f}), new mean "
          f"{st.mean(new):.3f} s (min {min(new):.3f}); paired new/old - 1: "
          f"{st.mean(rel) * 100:+.1f}% +- {half * 100:.1f}% ({len(rel)} pairs)")
EOF
