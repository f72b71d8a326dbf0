#!/usr/bin/env bash
# Reruns the LBoDSN paper's experiments as sweeps (scenarios/lbodsn/sweeps/) and regenerates
# the tables of docs/reproduction/lbodsn.md:
#   scripts/reproduce_lbodsn.sh           Fig. 2-4, the incast regime, the ablations and the
#                                         four seed systems over 5 seeds, LBoDSN in FLB's
#                                         Fig. 8 and Proteus' Fig. 10 (about 2 hours on 2 cores)
#   scripts/reproduce_lbodsn.sh --quick   Fig. 2 at the paper's 80% with one seed (minutes)
# ROCELAB_BIN=path runs that binary instead of building this tree (scripts/reproduce_lib.sh);
# a tree with uncommitted changes under src/ is refused, since the runs name the commit.
# Resumable: a rerun skips every finished run (rocelab sweep). Results in runs/lbodsn/<sweep>/
# (and runs/flb, runs/proteus for the two joined comparisons); runs/lbodsn/results.md holds
# the tables. Across machines: set ROCELAB_LAUNCH="mpirun -np 16 --hostfile hosts".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
. scripts/reproduce_lib.sh
repro_binary
OUT=${ROCELAB_LBODSN_OUT:-runs/lbodsn}
status=0
sweep() {  # sweep FILE OUTDIR [args]
  echo "== $1" >&2
  ${ROCELAB_LAUNCH:-} $R sweep "$1" --out "$2" "${@:3}" || status=1
}
case $mode in
  --quick)
    sweep scenarios/lbodsn/sweeps/fig2_alistorage.yaml "$OUT/fig2_alistorage" --seeds 1 ;;
  all)
    for s in fig2_alistorage fig3_hadoop seed_systems ablation_cnp ablation_fcn incast_regime ablation_cnp_incast watch; do
      sweep "scenarios/lbodsn/sweeps/$s.yaml" "$OUT/$s"
    done
    sweep scenarios/flb/sweeps/fig8_websearch_lbodsn.yaml runs/flb/fig8_websearch_lbodsn
    sweep scenarios/proteus/sweeps/fig10_websearch_load_lbodsn.yaml \
      runs/proteus/fig10_websearch_load_lbodsn ;;
  *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
PYTHONPATH=python /usr/bin/python3 scripts/lbodsn_report.py "$OUT" > "$OUT/results.md"
echo "done: $OUT/results.md" >&2
exit $status
