#!/usr/bin/env bash
# Reruns the Proteus paper's experiments as sweeps (scenarios/proteus/sweeps/, 5 seeds
# each) and regenerates the tables of docs/reproduction/proteus.md:
#   scripts/reproduce_proteus.sh           every figure (about 1.5 hours on 2 cores)
#   scripts/reproduce_proteus.sh --quick   the §II motivation figures with one seed
#   scripts/reproduce_proteus.sh --flb     Proteus+DCQCN in FLB's Fig. 8, 15, 16, 17 (runs/flb)
# ROCELAB_BIN=path runs that binary instead of building this tree (scripts/reproduce_lib.sh);
# a tree with uncommitted changes under src/ is refused, since the runs name the commit.
# Resumable: a rerun skips every finished run (rocelab sweep). Results in
# runs/proteus/<sweep>/; runs/proteus/results.md holds the tables.
# Across machines: set ROCELAB_LAUNCH="mpirun -np 16 --hostfile hosts".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
. scripts/reproduce_lib.sh
repro_binary
OUT=${ROCELAB_PROTEUS_OUT:-runs/proteus}
MOTIVATION="motivation_fig2 motivation_fig3 motivation_fig4 motivation_fig6"
ALL="$MOTIVATION fig5_pfc fig8_testbed_load fig9_link_speed fig10_websearch_load fig12_attribution
     fig10_attribution fig10_link_delay fig12_workloads fig13_sensitivity fig10_triggers
     fig10_triggers_fabric fig12_triggers fig12_unbounded_window"
FLB="fig8_websearch_proteus fig16_incast_proteus fig15_sr_fabricload_proteus fig17_fattree_proteus"
seeds=()
status=0
case $mode in
  --quick) sweeps=$MOTIVATION; seeds=(--seeds 1) ;;
  all) sweeps=$ALL ;;
  --flb)
    for s in $FLB; do
      echo "== $s" >&2
      ${ROCELAB_LAUNCH:-} $R sweep "scenarios/flb/sweeps/$s.yaml" --out "runs/flb/$s" || status=1
    done
    exit $status ;;
  *) echo "usage: $0 [--quick|--flb]" >&2; exit 2 ;;
esac
for s in $sweeps; do
  echo "== $s" >&2
  ${ROCELAB_LAUNCH:-} $R sweep "scenarios/proteus/sweeps/$s.yaml" --out "$OUT/$s" "${seeds[@]}" || status=1
done
PYTHONPATH=python /usr/bin/python3 scripts/proteus_report.py "$OUT" > "$OUT/results.md"
echo "done: $OUT/results.md" >&2
exit $status
