#!/usr/bin/env bash
# Reruns the FLB paper's experiments as sweeps (scenarios/flb/sweeps/, 5-7 seeds each) and
# regenerates the tables and figures of docs/reproduction/flb.md:
#   scripts/reproduce_flb.sh             every figure (the §4.3 leaf-spine sweeps take most
#                                        of a day on 2 cores: about a minute per run)
#   scripts/reproduce_flb.sh --testbed   the testbed-scale figures and the §4.3 sensitivity
#                                        and Fig. 16 sweeps (about an hour on 2 cores)
#   scripts/reproduce_flb.sh --quick     the testbed figures with one seed (minutes)
# ROCELAB_BIN=path runs that binary instead of building this tree (scripts/reproduce_lib.sh);
# a tree with uncommitted changes under src/ is refused, since the runs name the commit.
# Resumable: a rerun skips every finished run (rocelab sweep). Results in runs/flb/<sweep>/
# (sweep.csv, runs.csv, report.md with figures); runs/flb/results.md holds the FLB tables.
# Across machines: set ROCELAB_LAUNCH="mpirun -np 16 --hostfile hosts".
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
. scripts/reproduce_lib.sh
repro_binary
OUT=${ROCELAB_FLB_OUT:-runs/flb}
TESTBED="fig8_websearch fig8_websearch_mprdma fig8_rc_count fig2_burst fig10_interval
         fig12_threshold fig9_rates fig11_symmetric fig11_asymmetric fig4_clos_incast
         fig16_incast fig16_incast_mprdma fig16_incast_pcn rc_n_fig8"
LARGE="sec43_reroute_guard fig14_pause_sources sec43_delay_expiry sec43_datamining_cdf fig15_sr_fabricload fig15_sr_fabricload_baselines
       fig15_sr_fabricload_nocc fig15_fabricload_mprdma fig15_pcn fig15_pcn_sensitivity fig15_sr_hostload
       fig15_gbn_hostload fig17_fattree fig17_fattree_baselines fig17_fattree_mprdma
       fig17_fattree_pcn rc_n_fig15 rc_n_fig17"
seeds=()
case $mode in
  --quick) sweeps=$TESTBED; seeds=(--seeds 1) ;;
  --testbed) sweeps="$TESTBED sec43_delay_expiry" ;;
  all) sweeps="$TESTBED $LARGE" ;;
  *) echo "usage: $0 [--quick | --testbed]" >&2; exit 2 ;;
esac
status=0
for s in $sweeps; do
  echo "== $s" >&2
  ${ROCELAB_LAUNCH:-} $R sweep "scenarios/flb/sweeps/$s.yaml" --out "$OUT/$s" "${seeds[@]}" || status=1
  $R report "$OUT/$s" >/dev/null || status=1
done
PYTHONPATH=python /usr/bin/python3 scripts/flb_report.py "$OUT" > "$OUT/results.md"
PYTHONPATH=python /usr/bin/python3 scripts/flb_plots.py "$OUT" "$OUT"
echo "done: $OUT/results.md, $OUT/*/report.md; figures in $OUT (docs/reproduction/ holds a copy)" >&2
exit $status
