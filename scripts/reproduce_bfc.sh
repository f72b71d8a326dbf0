#!/usr/bin/env bash
# Reruns the BFC paper's experiments as sweeps (scenarios/bfc/sweeps/, 5 seeds each) and
# regenerates the tables and figures of docs/reproduction/bfc.md:
#   scripts/reproduce_bfc.sh           every figure (about 3 hours on 2 cores)
#   scripts/reproduce_bfc.sh --quick   the sensitivity figures (12-14) with one seed
# ROCELAB_BIN=path runs that binary instead of building this tree (scripts/reproduce_lib.sh);
# a tree with uncommitted changes under src/ is refused, since the runs name the commit.
# Resumable: a rerun skips every finished run (rocelab sweep). Results in runs/bfc/<sweep>/;
# runs/bfc/results.md holds the tables, runs/bfc/bfc_*.png the figures.
# Across machines: set ROCELAB_LAUNCH="mpirun -np 16 --hostfile hosts".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
. scripts/reproduce_lib.sh
repro_binary
OUT=${ROCELAB_BFC_OUT:-runs/bfc}
SENSITIVITY="fig12_queues fig13_vfids fig14_filter"
ALL="t1_google_incast fig5b_hadoop_incast t1_google t1_schemes fig6_buffers fig7_static_queues
     fig8_incast_fanin fig8_no_incast fig9_two_dc fig10_fanin t1_fanin readings readings_fig8
     fig11_high_priority_queue $SENSITIVITY"
seeds=()
case $mode in
  --quick) sweeps=$SENSITIVITY; seeds=(--seeds 1) ;;
  all) sweeps=$ALL ;;
  *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
status=0
for s in $sweeps; do
  echo "== $s" >&2
  ${ROCELAB_LAUNCH:-} $R sweep "scenarios/bfc/sweeps/$s.yaml" --out "$OUT/$s" "${seeds[@]}" || status=1
done
PYTHONPATH=python /usr/bin/python3 scripts/bfc_report.py "$OUT" "$OUT" > "$OUT/results.md"
echo "done: $OUT/results.md; figures $OUT/bfc_*.png (docs/reproduction/ holds a copy)" >&2
exit $status
